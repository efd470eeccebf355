#!/usr/bin/env python3
"""The GEMM example's baseline: cuBLAS through torch.matmul in fp16 (fp32 accumulation), timed as evotune
times kernels (L2 flushed before each sample, CUDA events, median; ../baseline_timing.py).

    python3 baseline.py --m 4096 --n 4096 --k 4096 [--device 0] [--batch 0] [--reps 50]

Inputs are seeded uniform in [-1, 1] (the distribution of evotune's fill = "random"), A[m, k] and B[k, n]
row-major. max_abs_error is against a float64 product of the same inputs. The last line is one JSON object.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import baseline_timing as bt  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, required=True)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--k", type=int, required=True)
    bt.add_common_arguments(parser)
    args = parser.parse_args()
    bt.check_common_arguments(parser, args)
    if min(args.m, args.n, args.k) < 1:
        parser.error("m, n and k must be positive")

    torch = bt.import_torch(args.device)
    # cuBLAS's default fp16 GEMM accumulates in fp32; reduced-precision reductions are turned off so that
    # it stays so, as in the example kernel.
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    a = (torch.rand(args.m, args.k, device="cuda", generator=gen) * 2 - 1).half()
    b = (torch.rand(args.k, args.n, device="cuda", generator=gen) * 2 - 1).half()

    c = torch.matmul(a, b)
    err = (c.double() - a.double() @ b.double()).abs().max().item()
    del c
    torch.cuda.empty_cache()

    timer = bt.Timer(torch, args.device)
    result = timer.median_us(lambda: torch.matmul(a, b), args.batch, args.reps, args.warmup)
    tflops = 2.0 * args.m * args.n * args.k / (result["median_us"] * 1e-6) / 1e12
    bt.report(result, "torch.matmul (cuBLAS) fp16, fp32 accumulate", err, {"tflops": round(tflops, 1)})


if __name__ == "__main__":
    main()
