#!/usr/bin/env python3
"""The decode attention of the LLaMA run (b2 hq32 hkv8 sq1 d128 bf16) as a model's step runs it, per layer:
the KV cache appended by concatenation (transformers' DynamicCache), then attention on the new K and V, which
the concatenation just wrote, so they sit in L2 (17 MB a layer against 50 MB of L2). Four layers, each with
its own cache, captured into one CUDA graph per implementation and replayed (--replays a sample, median of
--samples); the concatenations alone are timed the same way and subtracted. Beside it, the attention call
alone with L2 flushed before each call (a 256 MiB write; CUDA-event median), the regime evotune's searches
time. A torch.profiler trace of one eager layer lists each implementation's kernels.

    EVOTUNE_CAPI_LIBRARY=build-device/runtime/libevotune_capi.so python lab/scripts/decode_step_probe.py --out DIR
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

import evotune_torch  # noqa: E402
from layout_timing import median_us  # noqa: E402  (CUDA-event median, L2 flushed before each call)

IMPLEMENTATIONS = {"evotune": None, "sdpa_default": None, "sdpa_cudnn": SDPBackend.CUDNN_ATTENTION,
                   "sdpa_flash": SDPBackend.FLASH_ATTENTION}


def attend(name, q, k, v):
    if name == "evotune":
        return evotune_torch.attention(q, k, v)
    if IMPLEMENTATIONS[name] is None:
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    with sdpa_kernel([IMPLEMENTATIONS[name]]):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--lengths", default="2049,2112,2176",
                   help="cache lengths after the append (default 2049,2112,2176)")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--replays", type=int, default=20)
    p.add_argument("--samples", type=int, default=15)
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("decode_step_probe.py: no CUDA device")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    b, hq, hkv, d = 2, 32, 8, 128
    g = torch.Generator(device="cuda").manual_seed(0)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    results = {"device": torch.cuda.get_device_name(), "shape": f"b{b} hq{hq} hkv{hkv} sq1 d{d} bf16",
               "layers": args.layers, "replays": args.replays, "samples": args.samples, "lengths": {}}
    lines = []
    for length in map(int, args.lengths.split(",")):
        layers = []
        for _ in range(args.layers):
            old = [torch.randn(b, hkv, length - 1, d, device="cuda", dtype=torch.bfloat16, generator=g)
                   for _ in "kv"]
            new = [torch.randn(b, hkv, 1, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in "kv"]
            q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16, generator=g)
            layers.append((q, old, new))

        def step(name):
            outs = []
            for q, old, new in layers:
                k, v = (torch.cat([o, n], dim=2) for o, n in zip(old, new))
                outs.append(attend(name, q, k, v) if name is not None else k)
            return outs

        graphs = {}
        for name in [None, *IMPLEMENTATIONS]:
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                step(name)
                step(name)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                kept = step(name)
            graphs[name] = (graph, kept)
        samples = {name: [] for name in graphs}
        for i in range(args.samples):
            for name in (list(graphs) if i % 2 == 0 else list(graphs)[::-1]):
                graph = graphs[name][0]
                graph.replay()
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(args.replays):
                    graph.replay()
                stop.record()
                stop.synchronize()
                samples[name].append(start.elapsed_time(stop) * 1000 / args.replays)
        cats = statistics.median(samples[None])
        per_layer = {name: (statistics.median(s) - cats) / args.layers for name, s in samples.items() if name}

        # The attention call alone, L2 flushed before each (cold), on the first layer's appended cache.
        q, old, new = layers[0]
        k, v = (torch.cat([o, n], dim=2) for o, n in zip(old, new))
        cold = {name: median_us(lambda name=name: attend(name, q, k, v), args.samples, flush)
                for name in IMPLEMENTATIONS}
        results["lengths"][length] = {"graph_us_per_step": {str(n): statistics.median(s)
                                                            for n, s in samples.items()},
                                      "attention_us_per_layer_in_the_step": per_layer,
                                      "attention_us_alone_l2_flushed": cold}
        lines.append(f"skv {length}: the step's concatenations {cats:.2f} us; attention per layer in the "
                     "graphed step (L2 holding the just-appended K, V): "
                     + "; ".join(f"{n} {t:.2f}" for n, t in per_layer.items())
                     + " us; alone, L2 flushed: " + "; ".join(f"{n} {t:.2f}" for n, t in cold.items())
                     + " us")
        print(lines[-1], flush=True)
        del graphs

    # The kernels each implementation launches for one layer (eager), with their GPU times.
    from torch.profiler import ProfilerActivity, profile

    q, old, new = layers[0]
    k, v = (torch.cat([o, n], dim=2) for o, n in zip(old, new))
    for name in IMPLEMENTATIONS:
        for _ in range(3):
            attend(name, q, k, v)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(10):
                attend(name, q, k, v)
            torch.cuda.synchronize()
        table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=12)
        (out / f"kernels_{name}.txt").write_text(table + "\n")
        lines.append(f"kernels of {name} (10 calls, L2 warm): see kernels_{name}.txt")
    (out / "summary.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "summary.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
