#!/usr/bin/env python3
"""GPU time of one attention call at a LLaMA prefill shape (default b2 hq32 hkv8 s2048 d128 causal bf16) on the
layouts a model hands over: Q, K, V as BHSD views of BSHD memory (what the projections and RoPE give) against
dense BHSD copies, for evotune_torch (read and written in place) and SDPA's cuDNN and flash backends, and the
copies a dense-only kernel needed before (Q's .contiguous() and the output's transpose back).

CUDA-event median of --reps calls, each after an L2 flush (a 256 MiB write), all in one process.

    EVOTUNE_CAPI_LIBRARY=build-device/runtime/libevotune_capi.so python lab/scripts/layout_timing.py
"""

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

import evotune_torch  # noqa: E402


def median_us(fn, reps, flush):
    times = []
    for _ in range(3):
        fn()
    for _ in range(reps):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq", type=int, default=2048, help="prompt tokens (queries = keys)")
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("layout_timing.py: no CUDA device")
    b, hq, hkv, s, d = args.batch, 32, 8, args.seq, 128
    g = torch.Generator(device="cuda").manual_seed(0)
    bshd = [torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g).transpose(1, 2)
            for h in (hq, hkv, hkv)]
    dense = [t.contiguous() for t in bshd]
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def sdpa(backend, tensors):
        def call():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(*tensors, is_causal=True, enable_gqa=True)
        return call

    rows = [
        ("evotune, dense BHSD", lambda: evotune_torch.attention(*dense, causal=True)),
        ("evotune, BSHD views, in place", lambda: evotune_torch.attention(*bshd, causal=True)),
        ("evotune, BSHD views + the two copies of before",
         lambda: evotune_torch.attention(bshd[0].contiguous(), *dense[1:], causal=True).transpose(1, 2).contiguous()),
        ("SDPA cuDNN, dense BHSD", sdpa(SDPBackend.CUDNN_ATTENTION, dense)),
        ("SDPA cuDNN, BSHD views", sdpa(SDPBackend.CUDNN_ATTENTION, bshd)),
        ("SDPA flash, BSHD views", sdpa(SDPBackend.FLASH_ATTENTION, bshd)),
    ]
    same = torch.equal(evotune_torch.attention(*dense, causal=True), evotune_torch.attention(*bshd, causal=True))
    print(f"# b{b} hq{hq} hkv{hkv} s{s} d{d} causal bf16, {torch.cuda.get_device_name()}, median of {args.reps} "
          f"CUDA-event timed calls, L2 flushed before each; evotune's BSHD output equals its dense one: {same}")
    for name, fn in rows:
        try:
            print(f"{name:50s} {median_us(fn, args.reps, flush):8.1f} us")
        except RuntimeError as e:
            print(f"{name:50s} not available: {str(e).splitlines()[0]}")


if __name__ == "__main__":
    main()
