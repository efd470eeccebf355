#!/usr/bin/env python3
"""Time PyTorch's scaled_dot_product_attention (SDPA) forward per backend, the way evotune times its kernels.

For each attention problem and each SDPA backend (flash, cudnn, efficient, optionally math) this script
runs the forward pass with that backend alone enabled, checks its output against a float64 reference,
times it, writes a CSV, and prints a table. Given evotune's `bench --json` output it also prints
evotune's kernel (and evotune's baseline) next to every SDPA backend, problem by problem.

Run it on the GPU machine (PyTorch with CUDA; numpy is not needed):

    python3 scripts/compare_sdpa.py                                   # the five default problems
    python3 scripts/compare_sdpa.py --problem b=4,hq=16,sq=4096,d=128,causal=1 --backends flash,cudnn,math
    python3 scripts/compare_sdpa.py --evotune-json bench.jsonl --markdown sdpa.md
    python3 scripts/compare_sdpa.py --from-csv sdpa.csv --evotune-json bench.jsonl   # no GPU needed
    python3 scripts/compare_sdpa.py --self-test                                      # no torch needed

Problems use evotune's CLI format, `b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16`, with
layout BHSD: q is (b, hq, sq, d), k and v are (b, hkv, skv, d), all contiguous.

Semantics, chosen to match evotune:
  * causal masks are aligned bottom-right (query i sees keys j <= i + skv - sq), as FlashAttention does
    for KV-cache prefill and decode. torch's `is_causal=True` is top-left aligned, so it is used only when
    sq == skv; for sq < skv the mask is `torch.nn.attention.bias.causal_lower_right(sq, skv)`; for sq == 1
    a bottom-right causal mask hides nothing, so no mask is passed (the CSV note says so).
  * GQA/MQA (hq != hkv): k and v keep hkv heads and SDPA gets `enable_gqa=True`; nothing is repeated.
  * softmax scale 1/sqrt(d).
  * FLOPs = 4*b*hq*sq*skv*d times the unmasked fraction for causal; bytes = q, k, v read once and o
    written once.

Timing:
  * one call outside timing detects "not supported" (recorded, never replaced by another backend) and
    gives the output that is checked against the reference (max_abs_err column);
  * warm-up calls; then every sample flushes L2 and is timed with CUDA events on the current stream. The
    flush streams a buffer twice the L2 size through it: --l2-flush read (the default, as evotune's timer
    does) reads it, leaving L2 clean; --l2-flush write zeroes it, leaving L2 full of dirty lines whose
    write-back to DRAM is then charged to the timed call (several percent of a memory-bound one);
  * before each sample a GPU spin (`torch.cuda._sleep`) keeps the GPU busy while Python queues the flush,
    the events and the work, so a sample measures GPU time, not PyTorch's host-side dispatch (evotune
    launches from C++, where that gap is a few microseconds);
  * calls shorter than --graph-below-us (20 us) are timed N at a time in a CUDA graph of N back-to-back
    calls (N = ceil(--min-sample-us / estimate), at most --max-batch), per-call time = sample / N; only the
    first call of such a sample sees a cold L2. If capture fails, N eager calls are timed instead and the
    note says so. --batch N fixes N for every call instead (1: one eager call per sample), so that a
    comparison times both sides one way: `evotune bench` passes its kernel's N here;
  * median, min, p10 and p90 over --reps samples, in microseconds per call.

Exit status: 0 success; 1 some (problem, backend) ended in status "error", or the run failed;
2 usage error (one line on stderr); 3 no CUDA device (as evotune's CLI).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import re
import shlex
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, NamedTuple, Sequence

# ---------------------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------------------

CSV_COLUMNS = [
    "problem", "backend", "status", "median_us", "min_us", "p10_us", "p90_us",
    "tflops", "gbps", "batch", "reps", "max_abs_err", "note",
]

DEFAULT_PROBLEMS = [
    "b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16",
    "b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16",
    "b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16",
    "b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16",
    "b=32,hq=32,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=fp16",  # decode
]

# CLI name -> torch.nn.attention.SDPBackend member name.
BACKENDS = {
    "flash": "FLASH_ATTENTION",
    "cudnn": "CUDNN_ATTENTION",
    "efficient": "EFFICIENT_ATTENTION",
    "math": "MATH",
}
DEFAULT_BACKENDS = ["flash", "cudnn", "efficient"]

DTYPE_BYTES = {"fp16": 2, "bf16": 2}

# An output further than this from the float64 reference is flagged in the note (status stays "ok":
# the number is in max_abs_err for anyone to judge). Inputs are N(0, 1), so outputs are O(1) and
# half-precision rounding alone gives ~1e-3 (fp16) or ~8e-3 (bf16).
SUSPICIOUS_ERR = {"fp16": 1e-2, "bf16": 4e-2}

FALLBACK_L2_BYTES = 50 * 2**20
REFERENCE_CHUNK_BYTES = 1 << 30  # float64 working set per reference chunk


class UsageError(Exception):
    """Bad user input: reported as one line on stderr, exit status 2."""


# ---------------------------------------------------------------------------------------------------
# Problems, FLOPs and bytes (pure Python)
# ---------------------------------------------------------------------------------------------------


class Problem(NamedTuple):
    b: int
    hq: int
    hkv: int
    sq: int
    skv: int
    d: int
    causal: int
    dtype: str

    def __str__(self) -> str:
        return (f"b={self.b},hq={self.hq},hkv={self.hkv},sq={self.sq},skv={self.skv},d={self.d},"
                f"causal={self.causal},dtype={self.dtype}")


_INT_KEYS = ("b", "hq", "hkv", "sq", "skv", "d")
_REQUIRED_KEYS = ("b", "hq", "sq", "d")


def parse_problem(text: str) -> Problem:
    """Parse `b=..,hq=..,...`; raises ValueError with a reason on unknown keys or bad values."""
    fields: dict[str, str] = {}
    for token in text.split(","):
        token = token.strip()
        if not token:
            raise ValueError("empty field")
        key, sep, value = token.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise ValueError(f"field '{token}' is not key=value")
        if key not in _INT_KEYS and key not in ("causal", "dtype"):
            raise ValueError(f"unknown key '{key}' (keys: b, hq, hkv, sq, skv, d, causal, dtype)")
        if key in fields:
            raise ValueError(f"key '{key}' given twice")
        fields[key] = value
    missing = [k for k in _REQUIRED_KEYS if k not in fields]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")

    ints: dict[str, int] = {}
    for key in _INT_KEYS:
        if key not in fields:
            continue
        try:
            ints[key] = int(fields[key], 10)
        except ValueError:
            raise ValueError(f"{key}={fields[key]} is not an integer") from None
        if ints[key] <= 0:
            raise ValueError(f"{key}={fields[key]} must be positive")
    ints.setdefault("hkv", ints["hq"])
    ints.setdefault("skv", ints["sq"])

    causal_text = fields.get("causal", "0")
    if causal_text not in ("0", "1"):
        raise ValueError(f"causal={causal_text} must be 0 or 1")
    dtype = fields.get("dtype", "fp16")
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"dtype={dtype} must be fp16 or bf16")
    if ints["hq"] % ints["hkv"] != 0:
        raise ValueError(f"hq={ints['hq']} is not a multiple of hkv={ints['hkv']}")
    if ints["sq"] > ints["skv"]:
        raise ValueError(f"sq={ints['sq']} is larger than skv={ints['skv']}")
    return Problem(ints["b"], ints["hq"], ints["hkv"], ints["sq"], ints["skv"], ints["d"],
                   int(causal_text), dtype)


def causal_fraction(p: Problem) -> float:
    """Fraction of the sq x skv score matrix a bottom-right causal mask leaves unmasked (1 if not causal)."""
    if not p.causal:
        return 1.0
    # Query i (0-based) sees skv - sq + i + 1 keys.
    unmasked = p.sq * (p.skv - p.sq) + p.sq * (p.sq + 1) / 2
    return unmasked / (p.sq * p.skv)


def attention_flops(p: Problem) -> float:
    """2 matmuls (QK^T and PV) of 2*sq*skv*d FLOPs each per head, scaled by the unmasked fraction."""
    return 4.0 * p.b * p.hq * p.sq * p.skv * p.d * causal_fraction(p)


def attention_bytes(p: Problem) -> int:
    """Each input read once and the output written once."""
    elems = p.b * p.hq * p.sq * p.d + 2 * p.b * p.hkv * p.skv * p.d + p.b * p.hq * p.sq * p.d
    return DTYPE_BYTES[p.dtype] * elems


def mask_form(p: Problem) -> tuple[str, str]:
    """How SDPA is asked for bottom-right causal masking: ('none'|'is_causal'|'lower_right', note)."""
    if not p.causal:
        return "none", ""
    if p.sq == p.skv:
        return "is_causal", ""  # top-left and bottom-right coincide on a square mask
    if p.sq == 1:
        return "none", "sq=1: bottom-right causal hides nothing, run without a mask"
    return "lower_right", "mask=causal_lower_right"


# ---------------------------------------------------------------------------------------------------
# Results and statistics (pure Python)
# ---------------------------------------------------------------------------------------------------


@dataclass
class Result:
    problem: Problem
    backend: str
    status: str  # ok | unsupported | error
    median_us: float | None = None
    min_us: float | None = None
    p10_us: float | None = None
    p90_us: float | None = None
    tflops: float | None = None
    gbps: float | None = None
    batch: int | None = None
    reps: int | None = None
    max_abs_err: float | None = None
    note: str = ""
    samples_us: list[float] = field(default_factory=list)  # raw per-sample times (N calls each)
    mode: str = ""  # eager | graph | eager-batch

    def csv_row(self) -> list[str]:
        return [
            str(self.problem), self.backend, self.status,
            _fmt(self.median_us, 3), _fmt(self.min_us, 3), _fmt(self.p10_us, 3), _fmt(self.p90_us, 3),
            _fmt(self.tflops, 3), _fmt(self.gbps, 1),
            "" if self.batch is None else str(self.batch),
            "" if self.reps is None else str(self.reps),
            "" if self.max_abs_err is None else f"{self.max_abs_err:.3e}",
            self.note,
        ]


def _fmt(x: float | None, digits: int) -> str:
    return "" if x is None else f"{x:.{digits}f}"


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), q in [0, 1]."""
    if not sorted_values:
        raise ValueError("no values")
    pos = (len(sorted_values) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def fill_stats(r: Result, per_call_us: Sequence[float]) -> None:
    """Median/min/p10/p90 of per-call times, and throughput from the median."""
    s = sorted(per_call_us)
    r.median_us = statistics.median(s)
    r.min_us = s[0]
    r.p10_us = percentile(s, 0.10)
    r.p90_us = percentile(s, 0.90)
    r.reps = len(s)
    seconds = r.median_us * 1e-6
    r.tflops = attention_flops(r.problem) / seconds / 1e12
    r.gbps = attention_bytes(r.problem) / seconds / 1e9


def read_results_csv(path: str) -> list[Result]:
    """Read a CSV this script wrote (for --from-csv)."""
    def num(text: str) -> float | None:
        return float(text) if text.strip() else None

    def integer(text: str) -> int | None:
        return int(text) if text.strip() else None

    results = []
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != CSV_COLUMNS:
                raise UsageError(f"{path}: columns are {reader.fieldnames}, expected {CSV_COLUMNS}")
            for line_no, row in enumerate(reader, start=2):
                try:
                    results.append(Result(
                        problem=parse_problem(row["problem"]), backend=row["backend"],
                        status=row["status"], median_us=num(row["median_us"]),
                        min_us=num(row["min_us"]), p10_us=num(row["p10_us"]), p90_us=num(row["p90_us"]),
                        tflops=num(row["tflops"]), gbps=num(row["gbps"]), batch=integer(row["batch"]),
                        reps=integer(row["reps"]), max_abs_err=num(row["max_abs_err"]),
                        note=row["note"] or ""))
                except ValueError as e:
                    raise UsageError(f"{path}:{line_no}: {e}") from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    return results


# ---------------------------------------------------------------------------------------------------
# evotune's `bench --json` output (pure Python)
# ---------------------------------------------------------------------------------------------------


@dataclass
class Measure:
    name: str
    median_us: float
    tflops: float
    gbps: float


@dataclass
class EvotuneEntry:
    problem: Problem
    kernel: Measure  # name = evotune's config string
    baseline: Measure | None
    source: str  # file:line


def _measure(obj: object, p: Problem, name: str, where: str) -> Measure:
    """A {median_us, tflops, gbps} object; throughput is derived from median_us when it is missing."""
    if not isinstance(obj, dict):
        raise ValueError(f"{where} is not an object")
    median = obj.get("median_us")
    if not isinstance(median, (int, float)) or isinstance(median, bool) or not median > 0:
        raise ValueError(f"{where}.median_us missing or not a positive number")
    seconds = median * 1e-6

    def number(key: str, derived: float) -> float:
        v = obj.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else derived

    return Measure(name, float(median),
                   number("tflops", attention_flops(p) / seconds / 1e12),
                   number("gbps", attention_bytes(p) / seconds / 1e9))


def parse_evotune_object(obj: object, source: str) -> EvotuneEntry:
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    if not isinstance(obj.get("problem"), str):
        raise ValueError("no \"problem\" string")
    p = parse_problem(obj["problem"])
    config = obj.get("config", "")
    config = config if isinstance(config, str) else json.dumps(config, sort_keys=True)
    kernel = _measure(obj.get("kernel"), p, config or "evotune", "kernel")
    baseline = None
    if obj.get("baseline") is not None:
        b = obj["baseline"]
        name = b.get("name", "baseline") if isinstance(b, dict) else "baseline"
        baseline = _measure(b, p, str(name), "baseline")
    return EvotuneEntry(p, kernel, baseline, source)


def load_evotune(paths: Sequence[str]) -> list[EvotuneEntry]:
    """JSON lines (one object per line); a file holding one JSON array of objects is accepted too."""
    entries: list[EvotuneEntry] = []
    for path in paths:
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
        stripped = text.lstrip()
        if stripped.startswith("["):
            try:
                items = json.loads(text)
            except json.JSONDecodeError as e:
                raise UsageError(f"{path}: not valid JSON: {e}") from None
            numbered = [(f"{path}[{i}]", obj) for i, obj in enumerate(items)]
        else:
            numbered = []
            for line_no, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    numbered.append((f"{path}:{line_no}", json.loads(line)))
                except json.JSONDecodeError as e:
                    raise UsageError(f"{path}:{line_no}: not a JSON object: {e}") from None
        for source, obj in numbered:
            try:
                entries.append(parse_evotune_object(obj, source))
            except ValueError as e:
                raise UsageError(f"{source}: {e}") from None
    return entries


# ---------------------------------------------------------------------------------------------------
# Text and Markdown output (pure Python)
# ---------------------------------------------------------------------------------------------------


def _cell(x: float | None, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _err_cell(x: float | None) -> str:
    return "-" if x is None else f"{x:.2e}"


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """Fixed-width columns; the last column (a free-text note) is left unpadded."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    out = []
    for row in [list(header), *rows]:
        cells = []
        for i, c in enumerate(row):
            if i == len(row) - 1:
                cells.append(c)
            else:
                cells.append(c.rjust(widths[i]) if right[i] else c.ljust(widths[i]))
        out.append("  ".join(cells).rstrip())
    return out


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def esc(c: str) -> str:
        return c.replace("|", "\\|")

    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return out


def problem_heading(p: Problem) -> str:
    return (f"{p}  ({attention_flops(p) / 1e9:.3f} GFLOP, {attention_bytes(p) / 1e6:.2f} MB"
            f"{', causal fraction %.3f' % causal_fraction(p) if p.causal else ''})")


_RESULT_HEADER = ["backend", "status", "median_us", "min_us", "p10_us", "p90_us", "TFLOP/s", "GB/s",
                  "batch", "max_abs_err", "note"]
_RESULT_RIGHT = [False, False, True, True, True, True, True, True, True, True, False]


def _result_cells(r: Result) -> list[str]:
    batch = "-" if r.batch is None else str(r.batch)
    return [r.backend, r.status, _cell(r.median_us, 2), _cell(r.min_us, 2), _cell(r.p10_us, 2),
            _cell(r.p90_us, 2), _cell(r.tflops, 1), _cell(r.gbps, 0), batch, _err_cell(r.max_abs_err),
            r.note]


def _group_by_problem(results: Sequence[Result]) -> dict[Problem, list[Result]]:
    groups: dict[Problem, list[Result]] = {}
    for r in results:
        groups.setdefault(r.problem, []).append(r)
    return groups


def render_results(results: Sequence[Result], markdown: bool) -> list[str]:
    out: list[str] = []
    for p, rows in _group_by_problem(results).items():
        cells = [_result_cells(r) for r in rows]
        if markdown:
            out += [f"### `{p}`", "", problem_heading(p).split("  ", 1)[1], ""]
            out += _md_table(_RESULT_HEADER, cells) + [""]
        else:
            out += [problem_heading(p)]
            out += ["  " + line for line in _text_table(_RESULT_HEADER, cells, _RESULT_RIGHT)] + [""]
    return out


_SIDE_HEADER = ["source", "name", "status", "median_us", "TFLOP/s", "GB/s", "evotune speedup", "note"]
_SIDE_RIGHT = [False, False, False, True, True, True, True, False]


def side_by_side_rows(entry: EvotuneEntry, sdpa: Sequence[Result]) -> list[list[str]]:
    """Rows for one evotune entry; speedup = other's median / evotune's median (>1: evotune faster)."""
    ref = entry.kernel.median_us

    def speedup(t: float | None) -> str:
        return "-" if t is None else f"{t / ref:.2f}x"

    rows = [["evotune", entry.kernel.name, "ok", _cell(ref, 2), _cell(entry.kernel.tflops, 1),
             _cell(entry.kernel.gbps, 0), "1.00x", entry.source]]
    if entry.baseline is not None:
        b = entry.baseline
        rows.append(["evotune baseline", b.name, "ok", _cell(b.median_us, 2), _cell(b.tflops, 1),
                     _cell(b.gbps, 0), speedup(b.median_us), ""])
    for r in sdpa:
        ok = r.status == "ok"
        rows.append(["sdpa", r.backend, r.status, _cell(r.median_us, 2), _cell(r.tflops, 1),
                     _cell(r.gbps, 0), speedup(r.median_us if ok else None), r.note])
    return rows


def render_side_by_side(entries: Sequence[EvotuneEntry], results: Sequence[Result],
                        markdown: bool) -> list[str]:
    groups = _group_by_problem(results)
    out: list[str] = []
    for e in entries:
        sdpa = groups.get(e.problem, [])
        rows = side_by_side_rows(e, sdpa)
        missing = [] if sdpa else ["(no SDPA measurement of this problem in these results; "
                                   f"add --problem {e.problem})"]
        if markdown:
            out += [f"### `{e.problem}` — evotune `{e.kernel.name}`", ""]
            out += _md_table(_SIDE_HEADER, rows) + [""] + [m + "\n" for m in missing]
        else:
            out += [f"{problem_heading(e.problem)}  evotune config: {e.kernel.name}"]
            out += ["  " + line for line in _text_table(_SIDE_HEADER, rows, _SIDE_RIGHT)]
            out += ["  " + m for m in missing] + [""]
    return out


def render_markdown(header_lines: Sequence[str], results: Sequence[Result],
                    entries: Sequence[EvotuneEntry]) -> str:
    out = ["# PyTorch SDPA forward vs evotune", ""]
    out += [f"- {line}" for line in header_lines] + [""]
    out += ["Times are microseconds per call (median over samples; L2 flushed before each sample). "
            "`batch` N > 1: a sample timed a CUDA graph of N back-to-back calls (N eager calls where the note "
            "says graph capture failed). "
            "`max_abs_err`: against a float64 reference. "
            "`evotune speedup` = that row's median / evotune's median (> 1: evotune is faster).", ""]
    if entries:
        out += ["## Side by side", ""] + render_side_by_side(entries, results, markdown=True)
    out += ["## SDPA backends", ""] + render_results(results, markdown=True)
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------------------------------------------
# Measurement (needs torch; imported lazily so the rest works without it)
# ---------------------------------------------------------------------------------------------------


_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")


def first_line(text: str) -> str:
    """First non-empty line, without the "(Triggered internally at file:line.)" C++ warnings carry."""
    for line in str(text).splitlines():
        line = _TRIGGERED.sub("", line).strip()
        if line:
            return line
    return ""


def failure_reason(exc: BaseException, caught: Sequence[warnings.WarningMessage]) -> str:
    """The error's first line, plus the reasons PyTorch gave as warnings or further error lines.

    SDPA raises a generic "No available kernel" and explains why a backend refused in warnings emitted
    just before (or, in newer versions, in the error's later lines), so both are kept, shortened.
    """
    head = first_line(str(exc)) or type(exc).__name__
    details: list[str] = []
    for line in str(exc).splitlines()[1:]:
        line = first_line(line)
        if line and line not in details:
            details.append(line)
    for w in caught:
        line = first_line(str(w.message))
        if line and line not in details:
            details.append(line)
    text = head if not details else f"{head} [{' | '.join(details)}]"
    return text if len(text) <= 400 else text[:397] + "..."


def environment_lines(torch, device_index: int, flush_bytes: int, cycles_per_us: float | None,
                      l2_flush: str = "read") -> list[str]:
    props = torch.cuda.get_device_properties(device_index)
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    return [
        f"date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M:%S UTC')}",
        f"torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {cudnn}",
        f"device {device_index}: {props.name}, sm_{props.major}{props.minor}, "
        f"{props.multi_processor_count} SMs, L2 {getattr(props, 'L2_cache_size', 0) / 2**20:.0f} MiB, "
        f"{props.total_memory / 2**30:.1f} GiB",
        f"L2 flush: {flush_bytes / 2**20:.0f} MiB {'read' if l2_flush == 'read' else 'written'} before every "
        "sample; "
        + (f"GPU spin before each sample ({cycles_per_us:.0f} cycles/us)" if cycles_per_us
           else "no GPU spin before samples (torch.cuda._sleep unavailable)"),
        f"command: {command_line()}",
    ]


def command_line() -> str:
    return " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])


class Timer:
    """L2 flush, GPU spin and CUDA-event sampling on the current stream."""

    def __init__(self, torch, device_index: int, l2_flush: str = "read"):
        self.torch = torch
        self.l2_flush = l2_flush
        props = torch.cuda.get_device_properties(device_index)
        l2 = getattr(props, "L2_cache_size", 0) or FALLBACK_L2_BYTES
        self.flush_bytes = 2 * l2
        self.flush_buf = torch.empty(self.flush_bytes, dtype=torch.uint8, device="cuda")
        self.cycles_per_us = self._calibrate_spin()

    def flush(self) -> None:
        # "read" (evotune's default, harness/timer.h): reading the buffer evicts L2 and leaves it clean.
        # "write": zeroing it leaves L2 full of dirty lines, written back while the timed call runs.
        if self.l2_flush == "read":
            self.flush_buf.max()
        else:
            self.flush_buf.zero_()

    def _calibrate_spin(self) -> float | None:
        torch = self.torch
        sleep = getattr(torch.cuda, "_sleep", None)
        if sleep is None:
            return None
        try:
            sleep(1000)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            cycles = 2_000_000
            start.record()
            sleep(cycles)
            end.record()
            torch.cuda.synchronize()
            return cycles / (start.elapsed_time(end) * 1000.0)
        except Exception:  # a private API: if it misbehaves, time without it
            torch.cuda.synchronize()
            return None

    def spin(self, us: float) -> None:
        if self.cycles_per_us:
            self.torch.cuda._sleep(int(us * self.cycles_per_us))

    def host_us(self, work: Callable[[], object], trials: int = 3) -> float:
        """Worst host-side time to queue `work` (kernels run asynchronously)."""
        worst = 0.0
        for _ in range(trials):
            self.torch.cuda.synchronize()
            t0 = time.perf_counter()
            work()
            worst = max(worst, (time.perf_counter() - t0) * 1e6)
        self.torch.cuda.synchronize()
        return worst

    def samples(self, work: Callable[[], object], reps: int, spin_us: float) -> list[float]:
        """Per-sample GPU time of `work` in microseconds, L2 flushed before each sample."""
        torch = self.torch
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(reps)]
        torch.cuda.synchronize()
        for start, end in events:
            # The spin keeps the GPU busy while Python queues the flush, the start event and the work,
            # so the start event fires right after the flush and the work follows without a gap.
            self.spin(spin_us)
            self.flush()
            start.record()
            work()
            end.record()
        torch.cuda.synchronize()
        return [start.elapsed_time(end) * 1000.0 for start, end in events]

    def spin_for(self, work: Callable[[], object]) -> float:
        """Spin long enough to cover queuing the flush and the work, with margin."""
        return min(2.0 * self.host_us(work) + 50.0, 100_000.0)


def make_inputs(torch, p: Problem, seed: int):
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[p.dtype]
    torch.manual_seed(seed)
    q = torch.randn(p.b, p.hq, p.sq, p.d, device="cuda", dtype=dtype)
    k = torch.randn(p.b, p.hkv, p.skv, p.d, device="cuda", dtype=dtype)
    v = torch.randn(p.b, p.hkv, p.skv, p.d, device="cuda", dtype=dtype)
    return q, k, v


def make_sdpa_call(torch, p: Problem, q, k, v) -> Callable[[], object]:
    """A no-argument SDPA forward with bottom-right causal semantics and native GQA."""
    import torch.nn.functional as F

    kwargs: dict = {}
    form, _ = mask_form(p)
    if form == "is_causal":
        kwargs["is_causal"] = True
    elif form == "lower_right":
        from torch.nn.attention.bias import causal_lower_right
        kwargs["attn_mask"] = causal_lower_right(p.sq, p.skv)
    if p.hq != p.hkv:
        kwargs["enable_gqa"] = True
    return lambda: F.scaled_dot_product_attention(q, k, v, **kwargs)


def lower_right_path_note(torch, p: Problem, q, k, v) -> str:
    """Which implementation CausalBias picks under the active sdpa_kernel context (for the note).

    CausalBias calls the flash or efficient kernel directly with lower-right masking when the enabled
    backend can take the inputs; otherwise it materializes a boolean mask on every call and calls SDPA
    with it (the only route for cudnn and math), which adds that mask's cost to the timed call.
    """
    try:
        from torch.backends.cuda import SDPAParams, can_use_efficient_attention, can_use_flash_attention
        params = SDPAParams(q, k, v, None, 0.0, False, p.hq != p.hkv)
        if can_use_flash_attention(params):
            return "lower-right via CausalBias -> flash kernel"
        if can_use_efficient_attention(params):
            return "lower-right via CausalBias -> efficient kernel"
        return "lower-right via CausalBias -> bool mask materialized every call"
    except Exception as e:  # private-ish API; the note is informational only
        return f"lower-right via CausalBias (path unknown: {first_line(str(e))})"


def reference_output(torch, p: Problem, q, k, v):
    """softmax(q k^T / sqrt(d) + bottom-right mask) v computed in float64, returned as float32.

    Written out explicitly (what the math backend does) so it shares no dispatch or masking code with
    the backends under test; chunked over (batch, head) pairs to bound memory on large problems.
    """
    group = p.hq // p.hkv
    qf = q.reshape(p.b * p.hq, p.sq, p.d)
    kf = k.reshape(p.b * p.hkv, p.skv, p.d)
    vf = v.reshape(p.b * p.hkv, p.skv, p.d)
    # Query head h of batch i reads kv head h // group (enable_gqa's repeat_interleave semantics).
    flat = torch.arange(p.b * p.hq, device=q.device)
    kv_index = (flat // p.hq) * p.hkv + (flat % p.hq) // group
    allowed = None
    if p.causal:
        allowed = torch.ones(p.sq, p.skv, dtype=torch.bool, device=q.device).tril(diagonal=p.skv - p.sq)
    per_head = 8 * (2 * p.sq * p.skv + 2 * p.skv * p.d + 2 * p.sq * p.d)
    chunk = max(1, REFERENCE_CHUNK_BYTES // per_head)
    scale = 1.0 / math.sqrt(p.d)
    out = torch.empty(p.b * p.hq, p.sq, p.d, device=q.device, dtype=torch.float32)
    for lo in range(0, p.b * p.hq, chunk):
        hi = min(lo + chunk, p.b * p.hq)
        idx = kv_index[lo:hi]
        qc = qf[lo:hi].double()
        kc = kf.index_select(0, idx).double()
        vc = vf.index_select(0, idx).double()
        scores = torch.matmul(qc, kc.transpose(-1, -2)).mul_(scale)
        if allowed is not None:
            scores.masked_fill_(~allowed, float("-inf"))
        out[lo:hi] = torch.matmul(torch.softmax(scores, dim=-1), vc).float()
        del qc, kc, vc, scores
    return out.reshape(p.b, p.hq, p.sq, p.d)


def max_abs_error(torch, out, ref) -> float:
    diff = (out.float() - ref).abs()
    if not torch.isfinite(diff).all():
        return float("nan")
    return float(diff.max().item())


def capture_graph(torch, fn: Callable[[], object], n: int):
    """A CUDA graph of n back-to-back calls, captured as the PyTorch docs show (warm-up on a side stream)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(n):
            fn()  # outputs are dropped: their memory comes from, and is reused within, the graph's pool
    return graph


@dataclass
class BenchOptions:
    reps: int
    warmup: int
    graph_below_us: float
    min_sample_us: float
    max_batch: int
    check: bool
    batch: int = 0  # calls per sample, fixed; 0: each call's estimate decides


def time_call(torch, timer: Timer, fn: Callable[[], object], r: Result, opt: BenchOptions,
              notes: list[str]) -> list[float]:
    """Per-call microseconds for `fn`; fills r.batch, r.mode and r.samples_us."""
    for _ in range(opt.warmup):
        fn()
    torch.cuda.synchronize()

    single_spin = timer.spin_for(fn)
    if opt.batch > 0:
        n = min(opt.batch, opt.max_batch)
    else:
        estimate = statistics.median(timer.samples(fn, 5, single_spin))
        n = 1 if estimate >= opt.graph_below_us else \
            max(1, min(opt.max_batch, math.ceil(opt.min_sample_us / max(estimate, 1e-3))))
    if n == 1:
        r.batch, r.mode = 1, "eager"
        r.samples_us = timer.samples(fn, opt.reps, single_spin)
        return list(r.samples_us)

    try:
        graph = capture_graph(torch, fn, n)
        graph.replay()  # first replay uploads the graph; keep it out of the samples
        torch.cuda.synchronize()
        work: Callable[[], object] = graph.replay
        r.mode = "graph"
    except Exception as e:
        torch.cuda.synchronize()  # a sticky CUDA error surfaces here and ends this backend as "error"
        graph = None
        notes.append(f"graph capture failed ({first_line(str(e))}); timed {n} eager launches")

        def work() -> None:
            for _ in range(n):
                fn()
        r.mode = "eager-batch"
    r.batch = n
    r.samples_us = timer.samples(work, opt.reps, timer.spin_for(work))
    del graph
    return [s / n for s in r.samples_us]


def bench_backend(torch, timer: Timer, p: Problem, backend: str, q, k, v, ref,
                  opt: BenchOptions) -> Result:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    r = Result(p, backend, "error")
    notes = [n for n in [mask_form(p)[1]] if n]
    fn = make_sdpa_call(torch, p, q, k, v)
    with sdpa_kernel([getattr(SDPBackend, BACKENDS[backend])]):
        if mask_form(p)[0] == "lower_right":
            notes = [lower_right_path_note(torch, p, q, k, v)]

        # Probe: with only this backend enabled SDPA raises instead of falling back to another one.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = fn()
                torch.cuda.synchronize()
            except torch.cuda.OutOfMemoryError as e:
                r.note = "; ".join(notes + [f"out of memory: {first_line(str(e))}"])
                return r
            except RuntimeError as e:
                r.status = "unsupported"
                r.note = "; ".join(notes + [failure_reason(e, caught)])
                return r
        kernel_warnings = sorted({first_line(str(w.message)) for w in caught} - {""})
        if kernel_warnings:  # e.g. CausalBias explaining why it materialized the mask
            notes.append("warnings: " + " | ".join(kernel_warnings)[:300])

        if ref is not None:
            r.max_abs_err = max_abs_error(torch, out, ref)
            if math.isnan(r.max_abs_err):
                notes.append("output has NaN/Inf")
            elif r.max_abs_err > SUSPICIOUS_ERR[p.dtype]:
                notes.append(f"max_abs_err above {SUSPICIOUS_ERR[p.dtype]:g}: check this backend")
        del out

        try:
            per_call = time_call(torch, timer, fn, r, opt, notes)
        except Exception as e:
            r.note = "; ".join(notes + [f"{type(e).__name__}: {first_line(str(e))}"])
            return r
    fill_stats(r, per_call)
    r.status = "ok"
    r.note = "; ".join(notes)
    return r


def progress(i: int, total: int, r: Result) -> None:
    if r.status == "ok":
        how = f"x{r.batch} {r.mode}" if r.batch and r.batch > 1 else r.mode
        err = "" if r.max_abs_err is None else f", max_abs_err {r.max_abs_err:.2e}"
        detail = (f"median {r.median_us:.2f} us (p10 {r.p10_us:.2f}, p90 {r.p90_us:.2f}; {how}), "
                  f"{r.tflops:.1f} TFLOP/s{err}")
    else:
        detail = r.note
    print(f"[{i}/{total}] {r.problem} {r.backend}: {r.status}: {detail}", file=sys.stderr, flush=True)


def run_all(torch, timer: Timer, problems: Sequence[Problem], backends: Sequence[str], opt: BenchOptions,
            seed: int, csv_writer, csv_file) -> list[Result]:
    results: list[Result] = []
    total = len(problems) * len(backends)
    done = 0
    for p in problems:
        try:
            q, k, v = make_inputs(torch, p, seed)
            ref = reference_output(torch, p, q, k, v) if opt.check else None
        except Exception as e:  # e.g. out of memory: every backend of this problem is an error
            reason = f"inputs/reference: {type(e).__name__}: {first_line(str(e))}"
            q = k = v = ref = None
            problem_results = [Result(p, b, "error", note=reason) for b in backends]
        else:
            problem_results = []
            for backend in backends:
                try:
                    r = bench_backend(torch, timer, p, backend, q, k, v, ref, opt)
                except Exception as e:
                    r = Result(p, backend, "error", note=f"{type(e).__name__}: {first_line(str(e))}")
                problem_results.append(r)
                done += 1
                progress(done, total, r)
                csv_writer.writerow(r.csv_row())
                csv_file.flush()  # keep finished rows if a later problem crashes the process
                torch.cuda.empty_cache()  # release graph pools before the next backend
        if q is None:
            for r in problem_results:
                done += 1
                progress(done, total, r)
                csv_writer.writerow(r.csv_row())
            csv_file.flush()
        results += problem_results
        del q, k, v, ref
        torch.cuda.empty_cache()
    return results


def write_samples_json(path: str, header_lines: Sequence[str], results: Sequence[Result]) -> None:
    doc = {
        "environment": list(header_lines),
        "units": "samples_us: microseconds per sample of `batch` back-to-back calls",
        "results": [
            {"problem": str(r.problem), "backend": r.backend, "status": r.status, "mode": r.mode,
             "batch": r.batch, "samples_us": r.samples_us,
             "per_call_us": [s / r.batch for s in r.samples_us] if r.batch else []}
            for r in results
        ],
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


# ---------------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line on stderr, exit 2 (argparse prints usage too)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="compare_sdpa.py",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Time PyTorch SDPA forward per backend (flash, cudnn, efficient, math) on attention problems,\n"
            "the way evotune times its kernels; write a CSV; optionally print evotune's `bench --json`\n"
            "numbers next to each backend."),
        epilog=(
            "problem format (evotune's): b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16\n"
            "  hkv defaults to hq, skv to sq, causal to 0, dtype to fp16; hq % hkv == 0; sq <= skv.\n"
            "  causal is bottom-right aligned (the last query sees the last key).\n"
            "default problems:\n" + "".join(f"  {s}\n" for s in DEFAULT_PROBLEMS) +
            "CSV columns: " + ",".join(CSV_COLUMNS) + "\n"
            "  status: ok | unsupported (the backend refused; note says why) | error\n"
            "  batch: calls per sample (N > 1: a CUDA graph of N calls, or N eager calls where the note\n"
            "         says capture failed; per-call time = sample / N)\n"
            "  max_abs_err: against a float64 reference (explicit softmax(QK^T/sqrt(d))V)\n"
            "exit status: 0 ok, 1 some row has status error, 2 usage error, 3 no CUDA device"),
    )
    ap.add_argument("--problem", action="append", metavar="SPEC",
                    help="attention problem; repeat for several (default: the five listed below)")
    ap.add_argument("--backends", default=",".join(DEFAULT_BACKENDS), metavar="LIST",
                    help="comma-separated, from: " + ", ".join(BACKENDS) + " (default: %(default)s)")
    ap.add_argument("--csv", default="sdpa.csv", metavar="FILE", help="CSV output (default: %(default)s)")
    ap.add_argument("--reps", type=int, default=50, help="timed samples per backend (default: %(default)s)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed calls first (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0, help="torch.manual_seed for inputs (default: %(default)s)")
    ap.add_argument("--device", type=int, default=0, help="CUDA device index (default: %(default)s)")
    ap.add_argument("--l2-flush", choices=("read", "write"), default="read",
                    help="empty L2 before each sample by reading a buffer of twice its size (clean lines) or "
                         "by writing it (dirty lines, written back during the sample) (default: %(default)s)")
    ap.add_argument("--graph-below-us", type=float, default=20.0, metavar="US",
                    help="calls estimated shorter than this are timed N per sample in a CUDA graph "
                         "(default: %(default)s)")
    ap.add_argument("--min-sample-us", type=float, default=200.0, metavar="US",
                    help="target length of a batched sample: N = ceil(this / estimate) (default: %(default)s)")
    ap.add_argument("--max-batch", type=int, default=1000, metavar="N",
                    help="cap on N calls per sample (default: %(default)s)")
    ap.add_argument("--batch", type=int, default=0, metavar="N",
                    help="N calls per sample for every call, whatever its length (1: eager, one call per "
                         "sample; N > 1: a CUDA graph of N); 0: decided by each call's estimate "
                         "(default: %(default)s)")
    ap.add_argument("--no-check", action="store_true",
                    help="skip the float64 reference (max_abs_err left empty)")
    ap.add_argument("--samples-json", metavar="FILE", help="write every raw sample here")
    ap.add_argument("--evotune-json", action="append", default=[], metavar="FILE",
                    help="JSON lines from `evotune bench --json` (repeatable): print side-by-side tables")
    ap.add_argument("--markdown", metavar="FILE", help="also write the tables as Markdown")
    ap.add_argument("--from-csv", metavar="FILE",
                    help="measure nothing: read SDPA results from this CSV (no GPU or torch needed)")
    ap.add_argument("--self-test", action="store_true",
                    help="check the pure-Python parts (parsing, FLOPs, output formats) and exit")
    return ap


def parse_backends(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in BACKENDS]
    if not names or bad:
        raise UsageError(f"--backends: unknown backend {', '.join(bad) or '(none given)'}; "
                         f"choose from {', '.join(BACKENDS)}")
    return list(dict.fromkeys(names))


def parse_problems(specs: Sequence[str] | None) -> list[Problem]:
    problems = []
    for spec in specs or DEFAULT_PROBLEMS:
        try:
            problems.append(parse_problem(spec))
        except ValueError as e:
            raise UsageError(f"bad problem '{spec}': {e}") from None
    return list(dict.fromkeys(problems))


def measure(args, problems: list[Problem], backends: list[str]) -> tuple[list[str], list[Result]]:
    try:
        import torch
    except ImportError:
        print("compare_sdpa.py: PyTorch is not installed (pip install torch)", file=sys.stderr)
        sys.exit(1)
    if not torch.cuda.is_available():
        print(f"compare_sdpa.py: CUDA is not available to PyTorch {torch.__version__} "
              f"(built for CUDA {torch.version.cuda}); this script needs an NVIDIA GPU", file=sys.stderr)
        sys.exit(3)
    if not 0 <= args.device < torch.cuda.device_count():
        raise UsageError(f"--device {args.device}: only {torch.cuda.device_count()} CUDA device(s)")
    torch.cuda.set_device(args.device)

    timer = Timer(torch, args.device, args.l2_flush)
    header = environment_lines(torch, args.device, timer.flush_bytes, timer.cycles_per_us, args.l2_flush)
    for line in header:
        print(line)
    print(flush=True)

    opt = BenchOptions(reps=args.reps, warmup=args.warmup, graph_below_us=args.graph_below_us,
                       min_sample_us=args.min_sample_us, max_batch=args.max_batch, check=not args.no_check,
                       batch=args.batch)
    with open(args.csv, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        results = run_all(torch, timer, problems, backends, opt, args.seed, writer, f)
    if args.samples_json:
        write_samples_json(args.samples_json, header, results)
    return header, results


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.self_test:
        return self_test()
    try:
        if args.reps < 1 or args.warmup < 0 or args.max_batch < 1 or args.batch < 0:
            raise UsageError("--reps and --max-batch must be >= 1, --warmup and --batch >= 0")
        problems = parse_problems(args.problem)
        backends = parse_backends(args.backends)
        entries = load_evotune(args.evotune_json)
        if args.from_csv:
            results = read_results_csv(args.from_csv)
            header = [f"SDPA results read from {args.from_csv}", f"command: {command_line()}"]
            for line in header:
                print(line)
            print()
        else:
            header, results = measure(args, problems, backends)
    except UsageError as e:
        print(f"compare_sdpa.py: error: {e}", file=sys.stderr)
        return 2

    print("\n".join(render_results(results, markdown=False)))
    if entries:
        print("Side by side (evotune speedup = that row's median / evotune's median; > 1: evotune faster)\n")
        print("\n".join(render_side_by_side(entries, results, markdown=False)))
    if not args.from_csv:
        print(f"CSV: {args.csv}" + (f"; samples: {args.samples_json}" if args.samples_json else ""))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(render_markdown(header, results, entries))
        print(f"Markdown: {args.markdown}")
    return 1 if any(r.status == "error" for r in results) else 0


# ---------------------------------------------------------------------------------------------------
# Self-test of the pure-Python parts (no torch)
# ---------------------------------------------------------------------------------------------------


def self_test() -> int:
    import io
    import os
    import tempfile

    def check(cond: bool, what: str) -> None:
        if not cond:
            raise AssertionError(what)

    # Parsing: defaults, canonical form, normalization.
    p = parse_problem("b=4,hq=16,sq=4096,d=128")
    check(p == Problem(4, 16, 16, 4096, 4096, 128, 0, "fp16"), "defaults")
    check(parse_problem(str(p)) == p, "round trip")
    check(parse_problem(" d=128 , sq=4096,hq=16 ,b=4,causal=0,dtype=fp16,skv=4096,hkv=16") == p,
          "order and spaces do not matter")
    for bad in ["", "b=1", "b=1,hq=8,sq=4,d=64,x=1", "b=1,hq=8,sq=4,d=64,causal=2",
                "b=1,hq=8,sq=4,d=64,dtype=fp32", "b=1,hq=6,hkv=4,sq=4,d=64", "b=1,hq=8,sq=8,skv=4,d=64",
                "b=0,hq=8,sq=4,d=64", "b=1,hq=8,sq=4,d=6.4", "b=1,b=1,hq=8,sq=4,d=64", "b=1,hq,sq=4,d=64"]:
        try:
            parse_problem(bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"accepted {bad!r}")
    check(all(parse_problem(s) for s in DEFAULT_PROBLEMS), "default problems parse")

    # FLOPs, bytes, causal fraction.
    p2 = parse_problem(DEFAULT_PROBLEMS[1])
    check(attention_flops(p2) == 4 * 4 * 16 * 4096 * 4096 * 128, "non-causal flops")
    p3 = parse_problem(DEFAULT_PROBLEMS[2])
    check(abs(causal_fraction(p3) - (4096 + 1) / (2 * 4096)) < 1e-15, "square causal fraction")
    check(attention_bytes(p2) == 2 * (2 * 4 * 16 * 4096 * 128 + 2 * 4 * 16 * 4096 * 128), "bytes")
    p5 = parse_problem(DEFAULT_PROBLEMS[4])
    check(attention_bytes(p5) == 2 * (2 * 32 * 32 * 128 + 2 * 32 * 8 * 4096 * 128), "GQA bytes")
    decode_causal = p5._replace(causal=1)
    check(causal_fraction(decode_causal) == 1.0, "sq=1 causal is unmasked")
    # Brute-force count of the bottom-right mask on a small rectangle.
    small = parse_problem("b=1,hq=1,sq=3,skv=7,d=8,causal=1")
    count = sum(1 for i in range(3) for j in range(7) if j <= i + 7 - 3)
    check(abs(causal_fraction(small) - count / 21) < 1e-15, "rectangular causal fraction")
    check(mask_form(p3)[0] == "is_causal" and mask_form(decode_causal)[0] == "none"
          and mask_form(small)[0] == "lower_right" and mask_form(p2)[0] == "none", "mask forms")

    # Statistics.
    check(percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.1) == 1.4, "p10")
    r = Result(p2, "flash", "ok")
    fill_stats(r, [float(x) for x in range(100, 0, -1)])
    check(r.median_us == 50.5 and r.min_us == 1.0 and abs(r.p90_us - 90.1) < 1e-9, "stats")
    check(abs(r.tflops - attention_flops(p2) / 50.5e-6 / 1e12) < 1e-9, "tflops")

    # CSV round trip, including a note with a comma and an unsupported row.
    r.batch, r.max_abs_err, r.note = 1, 1.5e-3, "a, b"
    u = Result(p5, "efficient", "unsupported", note="No available kernel [reason | more]")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(CSV_COLUMNS)
            w.writerow(r.csv_row())
            w.writerow(u.csv_row())
        back = read_results_csv(path)
        with open(path) as f:
            check(f.readline().strip() == ",".join(CSV_COLUMNS), "CSV header")
        check(back[0].problem == p2 and back[0].note == "a, b" and back[0].median_us == 50.5, "CSV row")
        check(back[1].status == "unsupported" and back[1].median_us is None, "CSV unsupported row")

        # evotune JSON lines: problem normalized, throughput derived when missing.
        jl = os.path.join(tmp, "e.jsonl")
        with open(jl, "w") as f:
            f.write(json.dumps({"problem": "hq=16,b=4,sq=4096,d=128", "config": "bm128_bn64",
                                "kernel": {"median_us": 40.4, "tflops": 700.0, "gbps": 10.0},
                                "baseline": {"name": "flash2", "median_us": 50.5}}) + "\n\n")
            f.write(json.dumps({"problem": "b=2,hq=2,sq=64,d=64", "config": "x",
                                "kernel": {"median_us": 1.0}}) + "\n")
        entries = load_evotune([jl])
        check(entries[0].problem == p2 and entries[0].baseline is not None, "evotune parse")
        check(abs(entries[0].baseline.tflops - r.tflops) < 1e-9, "derived baseline tflops")
        bad = os.path.join(tmp, "bad.jsonl")
        with open(bad, "w") as f:
            f.write('{"problem": "b=1,hq=8,sq=4,d=64,zz=1", "kernel": {"median_us": 1}}\n')
        try:
            load_evotune([bad])
        except UsageError as e:
            check("bad.jsonl:1" in str(e) and "zz" in str(e), "evotune error names file:line")
        else:
            raise AssertionError("bad evotune problem accepted")

        # Side by side: speedup = backend / evotune.
        rows = side_by_side_rows(entries[0], back)
        check(rows[0][6] == "1.00x" and rows[1][6] == "1.25x" and rows[2][6] == "1.25x", "speedups")
        text = "\n".join(render_side_by_side(entries, back, markdown=False))
        check("no SDPA measurement" in text and "bm128_bn64" in text, "side-by-side text")
        md = render_markdown(["torch X"], back, entries)
        check("| evotune | bm128_bn64 |" in md and "## SDPA backends" in md, "markdown")
        check("No available kernel [reason \\| more]" in md, "markdown escapes pipes")

        # The CLI end to end without torch: --from-csv with evotune JSON and Markdown.
        mdpath = os.path.join(tmp, "o.md")
        saved = sys.stdout
        sys.stdout = io.StringIO()
        try:
            rc = main(["--from-csv", path, "--evotune-json", jl, "--markdown", mdpath])
            printed = sys.stdout.getvalue()
        finally:
            sys.stdout = saved
        check(rc == 0 and "Side by side" in printed and os.path.exists(mdpath), "--from-csv run")

    check(parse_backends("flash, math,flash") == ["flash", "math"], "backends")
    try:
        parse_backends("flash,triton")
    except UsageError:
        pass
    else:
        raise AssertionError("unknown backend accepted")

    # failure_reason keeps the head line and the warnings' reasons.
    class W:
        def __init__(self, m: str):
            self.message = m
    reason = failure_reason(RuntimeError("No available kernel. Aborting execution."),
                            [W("Memory efficient kernel not used because: (Triggered internally at "
                               "/pytorch/aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:986.)"),
                             W("enable_gqa is not supported")])
    check(reason == "No available kernel. Aborting execution. [Memory efficient kernel not used because: "
          "| enable_gqa is not supported]", f"failure reason: {reason}")

    print("self-test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
