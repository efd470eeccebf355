"""Shared timing for the example kernels' baseline scripts (examples/kernels/*/baseline.py).

It times a PyTorch call the way evotune times a kernel (harness/timer.h; scripts/compare_sdpa.py does
the same for attention):
  * warm-up calls first;
  * every sample flushes L2 by reading a buffer twice the L2 size (L2 is left clean), then times the work
    between two CUDA events on the current stream;
  * before each sample a GPU spin (torch.cuda._sleep) keeps the GPU busy while Python queues the flush,
    the events and the work, so the sample measures GPU time rather than Python's launch overhead;
  * `batch` launches per sample (evotune passes its own kernel's batch as --batch, so both sides are timed
    one way); with batch 0 the script decides as evotune does: one launch when a call takes 20 us or more,
    else enough back-to-back launches (captured in a CUDA graph when possible) for about 200 us, at most
    1000. A sample is then its time divided by the batch; only its first launch sees a cold L2;
  * the median over `reps` samples (at least 30), in microseconds per call.

The last line a baseline script prints is one JSON object, {"median_us": ..., "what": ..., "max_abs_error": ...}
(docs/kernel-spec.md, "The baseline command").
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from typing import Callable

FALLBACK_L2_BYTES = 60 * 2**20  # the H200's L2, should the device not report its own
BATCH_BELOW_US = 20.0
BATCH_TARGET_US = 200.0
MAX_BATCH = 1000


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", type=int, default=0, help="CUDA device index (default 0)")
    parser.add_argument("--batch", type=int, default=0,
                        help="launches per timed sample; 0 (default) decides as evotune does")
    parser.add_argument("--reps", type=int, default=50, help="timed samples, at least 30 (default 50)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed calls first (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")


def check_common_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.batch < 0 or args.batch > MAX_BATCH:
        parser.error(f"--batch must be 0 to {MAX_BATCH}")
    if args.reps < 30:
        parser.error("--reps must be at least 30")
    if args.warmup < 1:
        parser.error("--warmup must be at least 1")
    if args.device < 0:
        parser.error("--device must be >= 0")


def import_torch(device: int):
    """torch with the device selected; exit 3 (as evotune's CLI) when there is no CUDA device."""
    try:
        import torch
    except ImportError:
        print("baseline: PyTorch is not installed", file=sys.stderr)
        sys.exit(3)
    if not torch.cuda.is_available() or device >= torch.cuda.device_count():
        print(f"baseline: no CUDA device {device}", file=sys.stderr)
        sys.exit(3)
    torch.cuda.set_device(device)
    return torch


class Timer:
    def __init__(self, torch, device: int):
        self.torch = torch
        props = torch.cuda.get_device_properties(device)
        l2 = getattr(props, "L2_cache_size", 0) or FALLBACK_L2_BYTES
        self.flush_buf = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        self.cycles_per_us = self._calibrate_spin()

    def flush(self) -> None:
        self.flush_buf.max()  # a read of 2x L2: evicts it and leaves it clean

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
        worst = 0.0
        for _ in range(trials):
            self.torch.cuda.synchronize()
            t0 = time.perf_counter()
            work()
            worst = max(worst, (time.perf_counter() - t0) * 1e6)
        self.torch.cuda.synchronize()
        return worst

    def one_call_us(self, fn: Callable[[], object]) -> float:
        """A rough per-call estimate (L2 flushed, median of 5) to choose the batch."""
        torch = self.torch
        times = []
        for _ in range(5):
            self.flush()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
        return statistics.median(times)

    def make_work(self, fn: Callable[[], object], batch: int) -> tuple[Callable[[], object], str]:
        """`batch` calls of fn as one no-argument callable: a CUDA graph when batch > 1 and capture works."""
        if batch == 1:
            return fn, "eager"
        torch = self.torch
        try:
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                fn()  # allocations made outside the capture
            torch.cuda.current_stream().wait_stream(stream)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(batch):
                    fn()
            torch.cuda.synchronize()
            return graph.replay, "graph"
        except Exception:
            torch.cuda.synchronize()

            def eager():
                for _ in range(batch):
                    fn()
            return eager, "eager (graph capture failed)"

    def median_us(self, fn: Callable[[], object], batch: int, reps: int, warmup: int) -> dict:
        torch = self.torch
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        if batch == 0:
            estimate = self.one_call_us(fn)
            batch = 1 if estimate >= BATCH_BELOW_US else min(MAX_BATCH, math.ceil(BATCH_TARGET_US / max(estimate, 0.5)))
        work, how = self.make_work(fn, batch)
        work()
        torch.cuda.synchronize()
        spin_us = min(2.0 * self.host_us(work) + 50.0, 100_000.0)
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
        torch.cuda.synchronize()
        for start, end in events:
            self.spin(spin_us)
            self.flush()
            start.record()
            work()
            end.record()
        torch.cuda.synchronize()
        samples = sorted(start.elapsed_time(end) * 1000.0 / batch for start, end in events)
        return {"median_us": statistics.median(samples), "min_us": samples[0], "batch": batch, "launch": how,
                "reps": reps}


def report(result: dict, what: str, max_abs_error: float, extra: dict | None = None) -> None:
    """Print the contract's JSON object as the last line of standard output."""
    obj = {"median_us": round(result["median_us"], 3), "what": what, "max_abs_error": max_abs_error}
    obj.update({k: result[k] for k in ("min_us", "batch", "launch", "reps")})
    if extra:
        obj.update(extra)
    print(json.dumps(obj))
