"""What the GPU evidence summaries (decode_summary.py, hopper_summary.py) read from a call's folder:
bench.jsonl (evotune bench --json records tagged which= and round=) and sdpa.csv (compare_sdpa.py)."""
import csv
import json
import statistics
from pathlib import Path


def read_bench(out: Path) -> tuple[dict[tuple[str, str], list[dict]], list[str]]:
    """Records by (problem, which), and the problems in the order they first appear."""
    bench: dict[tuple[str, str], list[dict]] = {}
    order: list[str] = []
    for line in (out / "bench.jsonl").read_text().splitlines():
        r = json.loads(line)
        bench.setdefault((r["problem"], r["which"]), []).append(r)
        if r["problem"] not in order:
            order.append(r["problem"])
    return bench, order


def read_sdpa(out: Path) -> dict[tuple[str, str], float]:
    """Median µs by (problem, backend), for the backends that ran."""
    sdpa: dict[tuple[str, str], float] = {}
    if (out / "sdpa.csv").exists():
        with open(out / "sdpa.csv") as f:
            for r in csv.DictReader(f):
                if r["status"] == "ok":
                    sdpa[(r["problem"], r["backend"])] = float(r["median_us"])
    return sdpa


def read_sdpa_batches(out: Path) -> dict[tuple[str, str], int]:
    """Calls per timed sample by (problem, backend), for the backends that ran (1: eager; N: a CUDA graph)."""
    batches: dict[tuple[str, str], int] = {}
    if (out / "sdpa.csv").exists():
        with open(out / "sdpa.csv") as f:
            for r in csv.DictReader(f):
                if r["status"] == "ok" and r["batch"]:
                    batches[(r["problem"], r["backend"])] = int(r["batch"])
    return batches


def batches_of(bench: dict[tuple[str, str], list[dict]], problem: str, which: str) -> list[int]:
    """Launches per timed sample of each checked bench of (problem, which), distinct, in order."""
    runs = [r for r in bench.get((problem, which), []) if r.get("kernel") and r["check"]["passed"]]
    return list(dict.fromkeys(int(r["kernel"].get("batch", 1)) for r in runs))


def timed_alike(ours: list[int], theirs: int | None) -> bool:
    """Whether two sides of a comparison were timed the same way: every one of our benches and theirs single
    launches, or all CUDA graphs (launches per sample > 1, whose later launches find their inputs in L2)."""
    graph = lambda n: n is not None and n > 1
    return {graph(n) for n in ours} == {graph(theirs)}


def median_of(bench: dict[tuple[str, str], list[dict]], problem: str, which: str):
    """(median over rounds of each checked bench's median µs, its config, the rounds' µs); Nones without one."""
    runs = [r for r in bench.get((problem, which), []) if r.get("kernel") and r["check"]["passed"]]
    if not runs:
        return None, None, None
    return (statistics.median(r["kernel"]["median_us"] for r in runs), runs[0]["config"],
            [round(r["kernel"]["median_us"], 2) for r in runs])
