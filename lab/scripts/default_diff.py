#!/usr/bin/env python3
"""How many problem-aware defaults a rule change moves: the sm_90a default of two evotune builds
(`evotune compile --config default`, no GPU needed) on the same random problems.

  python3 lab/scripts/default_diff.py OLD_EVOTUNE NEW_EVOTUNE [--count 170] [--seed 20261126]

Problems: a quarter decode-like (1-64 queries over 512-32768 keys), the rest prefill (192-8192 queries,
a fifth with more keys than queries), head dims 64/128/256, causal or not, GQA groups 1/2/4/7/8, batch
sized to ~1.5 ms of work. Prints the count moved and each moved problem with its two defaults' differences.
"""
import argparse, math, pathlib, random, sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from probe_draw import default_config, fields  # noqa: E402  scripts/probe_draw.py; default_config: the CLI's default, line 1


def problems(count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        decode = rng.random() < 0.25
        d = rng.choices([64, 128, 256], [0.4, 0.45, 0.15])[0]
        causal = rng.random() < 0.5
        hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
        g = rng.choice([g for g in [1, 2, 4, 7, 8] if hq % g == 0])
        if decode:
            sq = rng.choice([1, 1, 2, 4, 8, 16, 32, 64])
            skv = int(math.exp(rng.uniform(math.log(512), math.log(32768))))
            b = rng.randint(1, 64)
        else:
            sq = int(math.exp(rng.uniform(math.log(192), math.log(8192))))
            skv = sq if rng.random() < 0.8 else int(sq * rng.choice([2, 3, 4, 1.5]))
            work = 4 * hq * sq * skv * d * (0.5 if causal else 1)
            b = rng.randint(1, min(64, max(1, int(1.5e-3 * 5e14 / work))))
        out.append(f"b={b},hq={hq},hkv={hq // g},sq={sq},skv={skv},d={d},causal={int(causal)},dtype=fp16")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--count", type=int, default=170)
    ap.add_argument("--seed", type=int, default=20261126)
    a = ap.parse_args()
    moved = []
    for p in problems(a.count, a.seed):
        old, new = default_config(a.old, p), default_config(a.new, p)
        if old != new:
            o, n = fields(old), fields(new)
            moved.append((p, " ".join(f"{k}={o[k]}->{n[k]}" for k in o if o[k] != n.get(k))))
    print(f"{len(moved)} of {a.count} defaults move")
    for p, change in moved:
        print(f"  {p}: {change}")


if __name__ == "__main__":
    main()
