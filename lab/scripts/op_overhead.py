#!/usr/bin/env python3
"""Host-side cost of one evotune_torch.attention call against SDPA's, on a GPU: the CPU microseconds each call
takes to enqueue its work (what an eager decode loop, bound by the host, pays per layer), and its parts.

    EVOTUNE_CAPI_LIBRARY=build-device/runtime/libevotune_capi.so python lab/scripts/op_overhead.py [--calls N]
"""

import argparse
import ctypes
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import evotune_torch  # noqa: E402


def per_call_us(fn, calls):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    return host


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=3000)
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("op_overhead.py: no CUDA device")
    b, hq, hkv, skv, d = 2, 32, 8, 2112, 128  # the LLaMA decode step the table was searched for
    q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    lib = evotune_torch._load()
    out = torch.empty_like(q)
    shape = evotune_torch._shape(b, hq, hkv, 1, skv, d, False, True)
    err = ctypes.create_string_buffer(1024)
    stream = torch.cuda.current_stream().cuda_stream
    rows = [
        ("evotune_torch.attention", lambda: evotune_torch.attention(q, k, v)),
        ("  _check", lambda: evotune_torch._check(q, k, v)),
        ("  torch.empty_like", lambda: torch.empty_like(q)),
        ("  the C call alone", lambda: lib.evotune_attention_forward(
            ctypes.byref(shape), q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), 0, ctypes.c_void_p(stream),
            0, 0.0, 0, err, len(err))),
        ("F.scaled_dot_product_attention (enable_gqa)", lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)),
    ]
    for name, fn in rows:
        print(f"{name:45s} {per_call_us(fn, args.calls):7.2f} us/call (host)")
    # SDPA with one backend forced, as llama_e2e.py times them (the context entered once, outside the calls,
    # as in its decode loop).
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cuDNN", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):
                us = per_call_us(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), args.calls)
            print(f"{'F.scaled_dot_product_attention, ' + name:45s} {us:7.2f} us/call (host)")
        except RuntimeError as e:
            print(f"{'F.scaled_dot_product_attention, ' + name:45s} not available: {str(e).splitlines()[0]}")
    # A decode loop's pattern: a new length every 4 calls (one step of a 4-layer model), so that each step's
    # first call meets a shape the launcher has not planned yet.
    caches = [(torch.randn(b, hkv, n, d, device="cuda", dtype=torch.bfloat16),) * 2 for n in range(skv, skv + 16)]
    step = [0]

    def decode_pattern():
        kk, vv = caches[(step[0] // 4) % len(caches)]
        step[0] += 1
        return evotune_torch.attention(q, kk, vv)

    us = per_call_us(decode_pattern, args.calls)
    print(f"{'evotune_torch.attention, new skv every 4':45s} {us:7.2f} us/call (host)")


if __name__ == "__main__":
    main()
