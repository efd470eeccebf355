#!/usr/bin/env python3
"""The LLaMA run's decode step under a CUDA graph, alone: llama_e2e.py's graphed decode timing without its
quality runs and eager timings, at several (batch, prompt) shapes, so that one process measures what a launch
change does to the model's step in seconds. The model is llama_e2e.py's (LLaMA-3.1-8B-shaped, random weights,
--layers decoder layers, bf16); per shape a prompt of random tokens is prefilled once (SDPA) and each
implementation's first decode step after it is captured (on a side stream, after two warm-up steps there, on
its own copy of the cache) and replayed in interleaved rounds (each round in the reverse order of the one
before), --replays replays a sample, the median of --rounds samples.

Implementations: evotune (the library's own combine launch), evotune_again (captured a second time: the
measurement's own spread), evotune_plain_combine ($EVOTUNE_COMBINE_LAUNCH=plain while its stream's kernels
load), and SDPA's default, cuDNN and flash backends. Run it once per build of libevotune_capi.so:

    EVOTUNE_CAPI_LIBRARY=build-device/runtime/libevotune_capi.so \\
        python lab/scripts/decode_graph_probe.py --out probe.json --shapes 2x2048,1x2048
"""

import argparse
import contextlib
import copy
import gc
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

# scripts/graph_step.py (llama_e2e.py's, in the product scripts)
from graph_step import (cache_tensors, capture_step, llama_config,  # noqa: E402
                        register_sdpa_graphable, replay_ms)


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        batch, _, prompt = item.partition("x")
        if not (batch.isdigit() and prompt.isdigit()) or int(batch) < 1 or int(prompt) < 1:
            raise argparse.ArgumentTypeError(f"bad shape {item!r}: BATCHxPROMPT, e.g. 2x2048")
        shapes.append((int(batch), int(prompt)))
    return shapes


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="JSON file written with every sample and the medians")
    p.add_argument("--shapes", type=parse_shapes, default=parse_shapes("2x2048"),
                   help="comma-separated BATCHxPROMPT (default 2x2048, the LLaMA run's)")
    p.add_argument("--layers", type=int, default=4, help="decoder layers (default 4)")
    p.add_argument("--rounds", type=int, default=12, help="interleaved samples per implementation (default 12)")
    p.add_argument("--replays", type=int, default=30, help="replays a sample times back to back (default 30)")
    p.add_argument("--label", default="", help="a name for this build, copied into the JSON")
    p.add_argument("--spread", type=int, default=0, metavar="N",
                   help="instead of the implementations above: evotune captured N times on N new streams "
                        "(evotune#i: a launcher each), N times on one shared stream (evotune_shared#i: one "
                        "launcher), and SDPA's cuDNN backend N times (sdpa_cudnn#i), for the spread between "
                        "captures of one implementation")
    args = p.parse_args()
    for name in ("layers", "rounds", "replays", "spread"):
        if getattr(args, name) < (0 if name == "spread" else 1):
            p.error(f"--{name} must be at least {0 if name == 'spread' else 1}")

    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if not torch.cuda.is_available():
        sys.exit("decode_graph_probe.py: no CUDA device")
    from transformers import LlamaForCausalLM

    import evotune_torch

    ok, why = evotune_torch.available()
    if not ok:
        sys.exit(f"decode_graph_probe.py: evotune_torch cannot run: {why}")
    evotune_torch.register_transformers("evotune")
    register_sdpa_graphable()  # as llama_e2e.py: SDPA under capture on the kernels its eager step runs

    config = llama_config(args.layers)
    with torch.device("cuda"):
        model = LlamaForCausalLM(config).to(torch.bfloat16).eval()
    init = torch.Generator(device="cuda").manual_seed(0)
    with torch.no_grad():
        for param in model.parameters():
            if param.dim() >= 2:
                param.normal_(0.0, config.initializer_range, generator=init)
    backends = {"sdpa_default": None, "sdpa_cudnn": SDPBackend.CUDNN_ATTENTION,
                "sdpa_flash": SDPBackend.FLASH_ATTENTION}
    names = ["evotune", "sdpa_default", "sdpa_cudnn", "sdpa_flash", "evotune_plain_combine", "evotune_again"]
    if args.spread:
        names = [f"{n}#{i}" for i in range(args.spread) for n in ("evotune", "evotune_shared", "sdpa_cudnn")]
    shared_stream = torch.cuda.Stream()

    def use(impl):
        if hasattr(model, "set_attn_implementation"):
            model.set_attn_implementation(impl)
        else:
            model.config._attn_implementation = impl

    @torch.no_grad()
    def capture(name, cache, token):
        use("evotune" if name.startswith("evotune") else "sdpa_graphable")
        backend = backends.get(name.partition("#")[0])
        with sdpa_kernel([backend]) if backend is not None else contextlib.nullcontext():
            cache = copy.deepcopy(cache)
            inputs = cache_tensors(cache)  # what the graph reads: kept alive with it
            stream = shared_stream if name.startswith("evotune_shared") else torch.cuda.Stream()
            graph, out = capture_step(model, token, cache, stream,
                                      plain_combine=name == "evotune_plain_combine")
        return graph, (inputs, cache, out)

    result = {"label": args.label, "library": str(evotune_torch.library_path()),
              "device": torch.cuda.get_device_name(), "layers": args.layers, "rounds": args.rounds,
              "replays": args.replays, "shapes": {}}
    for batch, prompt_tokens in args.shapes:
        g = torch.Generator(device="cuda").manual_seed(batch * 100003 + prompt_tokens)
        prompt = torch.randint(0, config.vocab_size, (batch, prompt_tokens), device="cuda", generator=g)
        with torch.no_grad():
            use("sdpa")
            out = model(prompt, use_cache=True, logits_to_keep=1)
        cache, token = out.past_key_values, out.logits[:, -1].argmax(dim=-1)[:, None]
        graphs = {name: capture(name, cache, token) for name in names}
        samples = {name: [] for name in names}
        gc.collect()
        gc.disable()
        for round_ in range(args.rounds):
            for name in (names if round_ % 2 == 0 else names[::-1]):
                samples[name].append(replay_ms(graphs[name][0], args.replays))
        gc.enable()
        medians = {name: statistics.median(v) for name, v in samples.items()}
        best = min((n for n in medians if n.startswith("sdpa")), key=medians.get)
        key = f"b{batch}x{prompt_tokens}"
        result["shapes"][key] = {
            "samples_ms": samples, "median_ms": medians, "sdpa_best": best,
            "speedup_over_sdpa_best": {n: medians[best] / medians[n] for n in names if n.startswith("evotune")}}
        log(f"{args.label} {key}: " + "; ".join(f"{n} {m:.4f}" for n, m in medians.items())
            + f"; over {best}: " + ", ".join(f"{n} {s:.4f}x"
                                              for n, s in result["shapes"][key]["speedup_over_sdpa_best"].items()))
        del graphs
        torch.cuda.empty_cache()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
