#!/usr/bin/env python3
"""Which GPU kernels an SDPA backend launches for a problem, with their launch geometry: the kernel's
name (cuDNN's generated names carry the tile shape), grid, block, registers per thread, shared memory and
duration, from torch.profiler's CUDA activity. What evotune's kernels are compared against, seen from inside.

    python3 lab/scripts/sdpa_kernels.py --problem b=16,hq=16,sq=1024,d=64,causal=1,dtype=fp16 [--backends cudnn,flash]

Problems and masking are scripts/compare_sdpa.py's (bottom-right causal, native GQA). Prints one JSON
object per (problem, backend, kernel).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))  # compare_sdpa.py
import compare_sdpa  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", action="append", required=True, help="evotune's problem format")
    parser.add_argument("--backends", default="cudnn,flash", help="comma-separated SDPA backends")
    opt = parser.parse_args()
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.profiler import ProfilerActivity, profile

    for text in opt.problem:
        p = compare_sdpa.parse_problem(text)
        q, k, v = compare_sdpa.make_inputs(torch, p, 0)
        call = compare_sdpa.make_sdpa_call(torch, p, q, k, v)
        for backend in opt.backends.split(","):
            with sdpa_kernel([getattr(SDPBackend, compare_sdpa.BACKENDS[backend])]):
                try:
                    call()
                    torch.cuda.synchronize()
                except RuntimeError as e:
                    print(json.dumps({"problem": text, "backend": backend, "error": str(e).splitlines()[0]}))
                    continue
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(3):
                        call()
                    torch.cuda.synchronize()
            seen = set()
            for event in prof.events():
                if event.device_type != torch.autograd.DeviceType.CUDA or event.name in seen:
                    continue
                seen.add(event.name)
                print(json.dumps({"problem": text, "backend": backend, "kernel": event.name,
                                  "us": round(event.device_time, 2)}))
            # The Kineto trace holds the launch geometry.
            trace = pathlib.Path(f"/tmp/sdpa_kernels_{backend}.json")
            prof.export_chrome_trace(str(trace))
            names = set()
            for e in json.loads(trace.read_text()).get("traceEvents", []):
                if e.get("cat") != "kernel" or e.get("name") in names:
                    continue
                names.add(e["name"])
                a = e.get("args", {})
                print(json.dumps({"problem": text, "backend": backend, "kernel": e["name"][:200],
                                  "grid": a.get("grid"), "block": a.get("block"),
                                  "registers": a.get("registers per thread"),
                                  "shared_bytes": a.get("shared memory"),
                                  "blocks_per_sm": a.get("blocks per SM"),
                                  "occupancy": a.get("est. achieved occupancy %"), "us": e.get("dur")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
