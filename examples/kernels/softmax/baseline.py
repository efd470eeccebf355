#!/usr/bin/env python3
"""The softmax example's baseline: torch.softmax(x, dim=-1) on fp16 (PyTorch computes in fp32), timed as
evotune times kernels (L2 flushed before each sample, CUDA events, median; ../baseline_timing.py).

    python3 baseline.py --rows 8192 --cols 4096 [--device 0] [--batch 0] [--reps 50]

Input X[rows, cols] is seeded uniform in [-1, 1] (evotune's fill = "random"). max_abs_error is against
a float64 softmax of the same input. The last line is one JSON object.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import baseline_timing as bt  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--cols", type=int, required=True)
    bt.add_common_arguments(parser)
    args = parser.parse_args()
    bt.check_common_arguments(parser, args)
    if min(args.rows, args.cols) < 1:
        parser.error("rows and cols must be positive")

    torch = bt.import_torch(args.device)
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    x = (torch.rand(args.rows, args.cols, device="cuda", generator=gen) * 2 - 1).half()

    y = torch.softmax(x, dim=-1)
    err = (y.double() - torch.softmax(x.double(), dim=-1)).abs().max().item()
    del y
    torch.cuda.empty_cache()

    timer = bt.Timer(torch, args.device)
    result = timer.median_us(lambda: torch.softmax(x, dim=-1), args.batch, args.reps, args.warmup)
    gbps = 4.0 * args.rows * args.cols / (result["median_us"] * 1e-6) / 1e9
    bt.report(result, "torch.softmax(dim=-1) fp16", err, {"gbps": round(gbps, 1)})


if __name__ == "__main__":
    main()
