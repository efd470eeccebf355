#!/usr/bin/env python3
"""The reduction example's baseline: torch.sum of n fp32 values, timed as evotune times kernels
(L2 flushed before each sample, CUDA events, median; ../baseline_timing.py).

    python3 baseline.py --n 268435456 [--device 0] [--batch 0] [--reps 50] [--ceiling]

Input is seeded uniform in [-1, 1] (evotune's fill = "random"). max_abs_error is against a float64 sum
of the same input. --ceiling also times two bandwidth references, reported in the JSON object: a
device-to-device copy of the same 4n bytes (counting bytes read + written) and a read-only pass
(torch.amax of a bit-cast view, whose work per byte is trivial). The last line is one JSON object.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import baseline_timing as bt  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--ceiling", action="store_true", help="also time a copy and a read-only pass")
    bt.add_common_arguments(parser)
    args = parser.parse_args()
    bt.check_common_arguments(parser, args)
    if args.n < 1:
        parser.error("n must be positive")

    torch = bt.import_torch(args.device)
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    x = torch.rand(args.n, device="cuda", generator=gen) * 2 - 1

    err = abs(torch.sum(x).double().item() - x.double().sum().item())

    timer = bt.Timer(torch, args.device)
    result = timer.median_us(lambda: torch.sum(x), args.batch, args.reps, args.warmup)
    extra = {"gbps": round(4.0 * args.n / (result["median_us"] * 1e-6) / 1e9, 1)}
    if args.ceiling:
        y = torch.empty_like(x)
        copy = timer.median_us(lambda: y.copy_(x), args.batch, args.reps, args.warmup)
        extra["copy_gbps_read_plus_write"] = round(8.0 * args.n / (copy["median_us"] * 1e-6) / 1e9, 1)
        xi = x.view(torch.int32)
        read = timer.median_us(lambda: torch.amax(xi), args.batch, args.reps, args.warmup)
        extra["read_only_gbps"] = round(4.0 * args.n / (read["median_us"] * 1e-6) / 1e9, 1)
    bt.report(result, "torch.sum fp32", err, extra)


if __name__ == "__main__":
    main()
