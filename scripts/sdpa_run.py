#!/usr/bin/env python3
"""Runs one PyTorch SDPA backend on one problem a few times, and nothing else: a target for Nsight Compute
(scripts/gpu_hopper.sh's ncu step), so that the profiled launches are the library's attention kernels.

  sdpa_run.py PROBLEM [--backend cudnn|flash] [--calls N]

PROBLEM is evotune's canonical form, e.g. b=16,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=1,dtype=fp16.
"""
import argparse
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("problem")
    parser.add_argument("--backend", choices=("cudnn", "flash"), default="cudnn")
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    try:
        spec = dict(kv.split("=") for kv in args.problem.split(","))
        b, hq, hkv, sq, skv, d = (int(spec[k]) for k in ("b", "hq", "hkv", "sq", "skv", "d"))
        causal = spec.get("causal", "0") == "1"
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[spec["dtype"]]
    except (KeyError, ValueError) as e:
        print(f"sdpa_run: cannot read problem '{args.problem}': {e}", file=sys.stderr)
        return 2
    q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype)
    k = torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype)
    v = torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype)
    backend = SDPBackend.CUDNN_ATTENTION if args.backend == "cudnn" else SDPBackend.FLASH_ATTENTION
    with sdpa_kernel(backend):
        for _ in range(args.calls):
            # Causal with sq < skv is bottom-right aligned in evotune; SDPA's is_causal is top-left, so the
            # profile target is only meaningful for sq == skv when causal (as every problem it is run on).
            torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=hq != hkv)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
