#!/usr/bin/env python3
"""Runs one PyTorch SDPA backend on one problem a few times, and nothing else: a target for Nsight Compute
(scripts/gpu_hopper.sh's ncu step), so that the profiled launches are the library's attention kernels.

  sdpa_run.py PROBLEM [--backend cudnn|flash|efficient|math] [--calls N]

PROBLEM is evotune's format, e.g. b=16,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=1,dtype=fp16. Problems,
inputs and masking are scripts/compare_sdpa.py's (bottom-right causal, native GQA), as its timings use.
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import compare_sdpa  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("problem")
    parser.add_argument("--backend", choices=sorted(compare_sdpa.BACKENDS), default="cudnn")
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    try:
        p = compare_sdpa.parse_problem(args.problem)
    except ValueError as e:
        print(f"sdpa_run: cannot read problem '{args.problem}': {e}", file=sys.stderr)
        return 2
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = compare_sdpa.make_inputs(torch, p, 0)
    call = compare_sdpa.make_sdpa_call(torch, p, q, k, v)
    with sdpa_kernel([getattr(SDPBackend, compare_sdpa.BACKENDS[args.backend])]):
        for _ in range(args.calls):
            call()
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
