"""What the GPU evidence summaries (decode_summary.py, hopper_summary.py, probe_table.py) read from a call's
folder: bench.jsonl or probe.jsonl (evotune bench --json records tagged which= and round=) and sdpa.csv
(compare_sdpa.py). A record file may be kept gzipped (NAME.jsonl.gz, as the closed probe calls' are, to keep
the tracked tree small enough to travel to the GPU machine): read_jsonl takes either. The closed probe calls
themselves are archived in lab/ (lab/h100/<topic>/probe.tar.xz, lab/README.md): call_folder gives a folder of
one of them, extracted, to read as any other."""
import atexit
import csv
import gzip
import json
import shutil
import statistics
import tarfile
import tempfile
from pathlib import Path, PurePosixPath


def call_folder(spec: str) -> Path:
    """The folder `spec` names: a plain path, or ARCHIVE.tar.xz:callNN[/SUB] for a closed probe call archived
    in lab/ (e.g. lab/h100/hopper/probe.tar.xz:call63/both/hopper), whose members under probe/callNN[/SUB] are
    extracted to a temporary folder (with the databases kept beside the archive, lab/h100/<topic>/probe/callNN/,
    copied in) that is removed when the process exits."""
    archive, sep, inner = spec.partition(".tar.xz:")
    if not sep:
        return Path(spec)
    archive = Path(archive + ".tar.xz")
    inner = PurePosixPath(inner.strip("/"))
    prefix = PurePosixPath("probe") / inner
    scratch = tempfile.TemporaryDirectory(prefix="evotune_lab_")
    atexit.register(scratch.cleanup)
    with tarfile.open(archive, "r:xz") as tar:
        members = [m for m in tar.getmembers()
                   if PurePosixPath(m.name) == prefix or prefix in PurePosixPath(m.name).parents]
        if not members:
            raise FileNotFoundError(f"{archive} holds no {prefix}")
        if hasattr(tarfile, "data_filter"):
            tar.extractall(scratch.name, members=members, filter="data")
        else:
            tar.extractall(scratch.name, members=members)
    beside = archive.parent / prefix
    if beside.is_dir():
        shutil.copytree(beside, Path(scratch.name) / prefix, dirs_exist_ok=True)
    return Path(scratch.name) / prefix


def read_jsonl(path: Path) -> list[dict]:
    """The records of a JSON-lines file, or of its gzipped copy (path + ".gz") where the file is not there."""
    if not path.exists() and path.with_name(path.name + ".gz").exists():
        with gzip.open(path.with_name(path.name + ".gz"), "rt") as f:
            return [json.loads(line) for line in f if line.strip()]
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def read_bench(out: Path) -> tuple[dict[tuple[str, str], list[dict]], list[str]]:
    """Records by (problem, which), and the problems in the order they first appear."""
    bench: dict[tuple[str, str], list[dict]] = {}
    order: list[str] = []
    for r in read_jsonl(out / "bench.jsonl"):
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
