#!/usr/bin/env python3
"""The PyTorch op over random shapes, every call under a watchdog: no hang, every output within tolerance.

    scripts/op_fuzz.py make --seed 48 --count 240 --out tests/data/op_fuzz_shapes.json
    scripts/op_fuzz.py run tests/data/op_fuzz_shapes.json --out DIR [--workers 8] [--stall 180] [--first N]

make draws problems from the table the build embeds (examples/tuned_attention.h): two thirds near one of its
entries, inside that entry's lookup contract (its head dim, dtype, masking and decode or prefill kind, within
the lookup's distance) with GQA groups of 1 to 16 and odd lengths, the rest anywhere evotune runs (d 64, 128,
256; decode and prefill). Shape 0 is the problem that hung the op on an H200 before the lookup asked the rules
(issue 48). The seed and the list are committed, so a run is repeatable.

run calls evotune_torch.attention on each shape in worker processes (JIT allowed: what the table does not
cover runs evotune's problem-aware default, compiled with NVRTC), each output checked against an fp32
reference with the tolerance of tests/python/test_evotune_torch_gpu.py: at most twice the error of PyTorch's
own SDPA on the same inputs, plus a floor at the dtype's rounding. A worker that prints nothing for --stall
seconds is killed and its shape recorded as a hang; one that dies is recorded as a crash; either way a new
worker goes on with the rest. Writes DIR/records.jsonl (one record per shape) and DIR/summary.json (shapes,
hangs, mismatches, errors, crashes, and shape 0 timed beside SDPA's flash and cuDNN backends).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HUNG = {"b": 1, "hq": 28, "hkv": 4, "sq": 3000, "skv": 3000, "d": 128, "causal": 1, "dtype": "bf16"}
DECODE_MAX_QUERIES = 16  # the header's kDecodeMaxQueries
MAX_DISTANCE = 3.0       # the header's kMaxDistance
GROUPS = list(range(1, 17))


def problem_text(p: dict) -> str:
    return ",".join(f"{k}={p[k]}" for k in ("b", "hq", "hkv", "sq", "skv", "d", "causal", "dtype"))


def table_entries(header: Path) -> list[dict]:
    """The problems of the header's entries: `{b, hq, hkv, sq, skv, d, causal, bf16}` after each kEntryN."""
    text = header.read_text()
    pattern = re.compile(r"inline constexpr TunedAttention kEntry\d+ = \{\n\s+\"[^\"]*\", \d+,\n\s+"
                         r"\{(\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (true|false), (true|false)\}")
    entries = []
    for m in pattern.finditer(text):
        b, hq, hkv, sq, skv, d = (int(x) for x in m.groups()[:6])
        entries.append({"b": b, "hq": hq, "hkv": hkv, "sq": sq, "skv": skv, "d": d, "causal": int(m[7] == "true"),
                        "dtype": "bf16" if m[8] == "true" else "fp16"})
    if not entries:
        raise SystemExit(f"op_fuzz: no entries found in {header}")
    return entries


def masked(p: dict) -> bool:
    return bool(p["causal"]) and p["sq"] > 1


def same_kind(a: dict, b: dict) -> bool:
    return (a["d"] == b["d"] and a["dtype"] == b["dtype"] and masked(a) == masked(b)
            and (a["sq"] <= DECODE_MAX_QUERIES) == (b["sq"] <= DECODE_MAX_QUERIES))


def distance(a: dict, b: dict) -> float:
    def log_ratio(x, y):
        return abs(math.log2(x / y))
    d = log_ratio(a["b"] * a["hq"], b["b"] * b["hq"]) + log_ratio(a["sq"], b["sq"]) + log_ratio(a["skv"], b["skv"])
    return d + (1 if a["hq"] // a["hkv"] != b["hq"] // b["hkv"] else 0)


def small_enough(p: dict) -> bool:
    """Bounded so that a run of a few hundred shapes, reference included, takes minutes."""
    return p["b"] * p["hq"] * p["sq"] * p["skv"] <= 1 << 31 and p["b"] * p["hkv"] * p["skv"] * p["d"] <= 1 << 30


def near(entry: dict, rng: random.Random) -> dict:
    scaled = lambda x: max(1, int(x * 2 ** rng.uniform(-1.2, 1.2)))  # noqa: E731
    group = rng.choice(GROUPS)
    hkv = rng.randint(1, 8)
    p = {"hkv": hkv, "hq": group * hkv, "d": entry["d"], "dtype": entry["dtype"], "causal": entry["causal"]}
    p["b"] = max(1, scaled(entry["b"] * entry["hq"]) // p["hq"])
    p["skv"] = scaled(entry["skv"]) | 1
    if entry["sq"] <= DECODE_MAX_QUERIES:
        p["sq"] = rng.randint(1, DECODE_MAX_QUERIES)
        if p["sq"] > 1 and entry["sq"] == 1:
            p["causal"] = 0  # a single query entry's kind: unmasked
    else:
        p["sq"] = min(p["skv"], max(DECODE_MAX_QUERIES + 1, scaled(entry["sq"]) | 1))
    return p


def anywhere(rng: random.Random) -> dict:
    group = rng.choice(GROUPS)
    hkv = rng.randint(1, 8)
    skv = int(2 ** rng.uniform(4, 13)) | rng.randint(0, 1)
    sq = rng.randint(1, DECODE_MAX_QUERIES) if rng.random() < 0.4 else max(1, int(skv * 2 ** rng.uniform(-4, 0)))
    return {"b": rng.randint(1, 8), "hq": group * hkv, "hkv": hkv, "sq": min(sq, skv), "skv": skv,
            "d": rng.choice([64, 128, 256]), "causal": rng.randint(0, 1), "dtype": rng.choice(["fp16", "bf16"])}


def make(args) -> None:
    rng = random.Random(args.seed)
    entries = table_entries(ROOT / "examples" / "tuned_attention.h")
    shapes, seen = [HUNG], {problem_text(HUNG)}
    while len(shapes) < args.count:
        if rng.random() < 2 / 3:
            entry = rng.choice(entries)
            p = near(entry, rng)
            if not (same_kind(entry, p) and distance(entry, p) <= MAX_DISTANCE):
                continue
        else:
            p = anywhere(rng)
        if small_enough(p) and problem_text(p) not in seen:
            seen.add(problem_text(p))
            shapes.append(p)
    document = {"seed": args.seed, "command": f"scripts/op_fuzz.py make --seed {args.seed} --count {args.count}",
                "table": "examples/tuned_attention.h", "shapes": [problem_text(p) for p in shapes]}
    Path(args.out).write_text(json.dumps(document, indent=1) + "\n")
    print(f"op_fuzz: {len(shapes)} shapes into {args.out}")


def parse(text: str) -> dict:
    p = dict(kv.split("=") for kv in text.split(","))
    return {k: (v if k == "dtype" else int(v)) for k, v in p.items()}


# --- in a worker process (the only code here that touches CUDA) ---------------------------------------------

def check_one(index: int, p: dict) -> dict:
    import torch
    import torch.nn.functional as F

    import evotune_torch

    dtype = torch.bfloat16 if p["dtype"] == "bf16" else torch.float16
    b, hq, hkv, sq, skv, d, causal = (p[k] for k in ("b", "hq", "hkv", "sq", "skv", "d", "causal"))
    record = {"index": index, "problem": problem_text(p)}
    plan = evotune_torch.plan(b, hq, hkv, sq, skv, d, bool(causal), dtype, jit=True)
    record.update({"source": plan["source"], "match": plan["match"], "config": plan["config"]})
    g = torch.Generator(device="cuda").manual_seed(1000 + index)
    q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype, generator=g)
    k = torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype, generator=g)
    v = torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype, generator=g)
    start = time.perf_counter()
    out = evotune_torch.attention(q, k, v, causal=bool(causal), jit=True)
    torch.cuda.synchronize()
    record["call_seconds"] = round(time.perf_counter() - start, 3)
    mask = None
    if causal and sq > 1:  # bottom-right: query i sees keys 0 .. i + skv - sq
        mask = torch.arange(skv, device="cuda")[None, :] <= torch.arange(sq, device="cuda")[:, None] + (skv - sq)
    group, scale = hq // hkv, 1.0 / math.sqrt(d)
    sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    ours = theirs = largest = 0.0
    rows = max(1, (1 << 28) // (group * skv))  # fp32 scores of at most 1 GiB at once
    for bi in range(b):
        for j in range(hkv):
            heads = slice(j * group, (j + 1) * group)
            kj, vj = k[bi, j].float(), v[bi, j].float()
            for r in range(0, sq, rows):
                rs = slice(r, min(sq, r + rows))
                s = torch.matmul(q[bi, heads, rs].float(), kj.transpose(-1, -2)) * scale
                if mask is not None:
                    s = s.masked_fill(~mask[rs], float("-inf"))
                ref = torch.matmul(torch.softmax(s, dim=-1), vj)
                ours = max(ours, (out[bi, heads, rs].float() - ref).abs().max().item())
                theirs = max(theirs, (sdpa[bi, heads, rs].float() - ref).abs().max().item())
                largest = max(largest, ref.abs().max().item())
    mantissa = 7 if dtype == torch.bfloat16 else 10
    floor = math.ldexp(0.25, math.frexp(largest)[1] - 1 - mantissa)
    tolerance = 2 * theirs + floor
    finite = bool(torch.isfinite(out).all().item())
    record.update({"max_abs_error": ours, "sdpa_max_abs_error": theirs, "tolerance": tolerance,
                   "status": "ok" if finite and ours <= tolerance else "mismatch"})
    return record


def time_one(p: dict, reps: int = 30) -> dict:
    """Shape p through the op beside SDPA's flash and cuDNN backends: CUDA events, L2 flushed between samples."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import evotune_torch

    dtype = torch.bfloat16 if p["dtype"] == "bf16" else torch.float16
    b, hq, hkv, sq, skv, d, causal = (p[k] for k in ("b", "hq", "hkv", "sq", "skv", "d", "causal"))
    g = torch.Generator(device="cuda").manual_seed(7)
    q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype, generator=g)
    k = torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype, generator=g)
    v = torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype, generator=g)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    is_causal = bool(causal) and sq > 1 and sq == skv

    def median_us(fn):
        fn()
        times = []
        for _ in range(reps):
            flush.add_(1)  # L2 (60 MB) emptied of the inputs
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1000)
        return sorted(times)[len(times) // 2]

    out = {"problem": problem_text(p), "evotune_us": median_us(
        lambda: evotune_torch.attention(q, k, v, causal=bool(causal), jit=True))}
    for name, backend in (("sdpa_flash_us", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn_us", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):
                out[name] = median_us(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=is_causal,
                                                                             enable_gqa=True))
        except RuntimeError as e:
            out[name] = None
            out[name.replace("_us", "_error")] = str(e).splitlines()[0][:200]
    return out


def worker(args) -> None:
    sys.path.insert(0, str(ROOT / "python"))
    shapes = json.loads(Path(args.shapes).read_text())["shapes"]
    for index in (int(i) for i in args.indices.split(",")):
        print(f"start {index}", flush=True)
        try:
            record = check_one(index, parse(shapes[index]))
        except Exception as e:  # a refusal or a failed launch: recorded, and the worker goes on
            record = {"index": index, "problem": shapes[index], "status": "error",
                      "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:400]}
        print("done " + json.dumps(record), flush=True)
    if args.time_index is not None:
        print("timed " + json.dumps(time_one(parse(shapes[args.time_index]))), flush=True)


# --- the watchdog ------------------------------------------------------------------------------------------

class Worker:
    def __init__(self, script_args: list[str], indices: list[int], time_index=None):
        self.pending = list(indices)
        self.current = None
        self.time_index = time_index
        command = [sys.executable, __file__, "worker", *script_args, "--indices", ",".join(map(str, indices))]
        if time_index is not None:
            command += ["--time-index", str(time_index)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        bufsize=1)
        self.last = time.monotonic()


def run(args) -> None:
    shapes = json.loads(Path(args.shapes).read_text())["shapes"]
    if args.first:
        shapes = shapes[:args.first]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records: dict[int, dict] = {}
    timed = None
    slices = [list(range(i, len(shapes), args.workers)) for i in range(args.workers)]
    selector = selectors.DefaultSelector()

    def spawn(indices, time_index=None):
        if not indices and time_index is None:
            return
        w = Worker([args.shapes], indices, time_index)
        selector.register(w.process.stdout, selectors.EVENT_READ, w)

    def retire(w, status):
        selector.unregister(w.process.stdout)
        if w.process.poll() is None:
            w.process.kill()
        w.process.wait()
        if w.current is not None:
            records[w.current] = {"index": w.current, "problem": shapes[w.current], "status": status}
            print(f"op_fuzz: shape {w.current} {shapes[w.current]}: {status.upper()}", flush=True)
            w.pending.remove(w.current)
            spawn(w.pending, w.time_index)
        elif w.pending:  # died between shapes
            spawn(w.pending, w.time_index)

    started = time.monotonic()
    for i, indices in enumerate(slices):
        spawn(indices, 0 if i == 0 and args.time_first else None)
    while selector.get_map():
        for key, _ in selector.select(timeout=5):
            w = key.data
            line = w.process.stdout.readline()
            if not line:
                retire(w, "crash")
                continue
            w.last = time.monotonic()
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind == "start":
                w.current = int(rest)
            elif kind == "done":
                record = json.loads(rest)
                records[record["index"]] = record
                w.pending.remove(record["index"])
                w.current = None
                if len(records) % 20 == 0:
                    print(f"op_fuzz: {len(records)}/{len(shapes)} shapes in {time.monotonic() - started:.0f} s",
                          flush=True)
                if record["status"] != "ok":
                    print(f"op_fuzz: shape {record['index']} {record['problem']}: {record['status']} "
                          f"{record.get('error', '')}", flush=True)
            elif kind == "timed":
                timed = json.loads(rest)
                w.time_index = None
        now = time.monotonic()
        for key in list(selector.get_map().values()):
            w = key.data
            if now - w.last > args.stall:
                retire(w, "hang")
    with open(out / "records.jsonl", "w") as f:
        for i in sorted(records):
            f.write(json.dumps(records[i]) + "\n")
    count = lambda s: sum(r["status"] == s for r in records.values())  # noqa: E731
    summary = {
        "command": " ".join(["scripts/op_fuzz.py", *sys.argv[1:]]),
        "shapes_file": args.shapes, "seed": json.loads(Path(args.shapes).read_text()).get("seed"),
        "shapes": len(records), "hangs": count("hang"), "mismatches": count("mismatch"), "errors": count("error"),
        "crashes": count("crash"), "ok": count("ok"),
        "table_served": sum(r.get("source") == "table" for r in records.values()),
        "jit_default": sum(r.get("source") == "jit_default" for r in records.values()),
        "stall_seconds": args.stall, "workers": args.workers, "wall_seconds": round(time.monotonic() - started, 1),
        "shape_0_timed": timed,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    if summary["shapes"] != len(shapes) or summary["ok"] != len(shapes):
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make", help="draw the shapes", formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    m.add_argument("--seed", type=int, default=48)
    m.add_argument("--count", type=int, default=240)
    m.add_argument("--out", default=str(ROOT / "tests" / "data" / "op_fuzz_shapes.json"))
    r = sub.add_parser("run", help="run the op on them under a watchdog",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    r.add_argument("shapes")
    r.add_argument("--out", required=True)
    r.add_argument("--workers", type=int, default=8, help="worker processes sharing the GPU")
    r.add_argument("--stall", type=float, default=180.0,
                   help="seconds a worker may print nothing before its shape counts as a hang (a first JIT "
                        "compile and the fp32 reference of a large shape fit well within it)")
    r.add_argument("--first", type=int, default=0, help="only the first N shapes (0: all)")
    r.add_argument("--time-first", action="store_true", help="also time shape 0 beside SDPA's backends")
    w = sub.add_parser("worker")
    w.add_argument("shapes")
    w.add_argument("--indices", required=True)
    w.add_argument("--time-index", type=int)
    args = parser.parse_args()
    {"make": make, "run": run, "worker": worker}[args.command](args)


if __name__ == "__main__":
    main()
