#!/usr/bin/env python3
"""LLaMA end to end with evotune's attention (issue 14), on a GPU.

A LLaMA-3.1-8B-shaped model from transformers (hidden 4096, 32 query heads, 8 KV heads, head dim 128, RoPE
theta 500000, MLP 14336, vocab 128256; --layers decoder layers; random weights from --seed; nothing is
downloaded) in bf16, run three ways on the same weights and tokens:
  - evotune: the PyTorch op (python/evotune_torch) registered as the model's attention implementation;
  - SDPA: transformers' own "sdpa" implementation (PyTorch picks the backend; each of flash, cuDNN and
    memory-efficient is also timed on its own);
  - fp32: the same weights in fp32 with SDPA, to show how far bf16 itself moves the logits (the noise floor).
Prefill of --batch x --prompt random tokens, then --steps greedy decode steps with a KV cache. The decode
tokens are SDPA-bf16's greedy ones, fed to every run (teacher forcing), so each step compares like with like.

Writes OUT/summary.json (layers, prefill_ms_evotune, prefill_ms_sdpa, decode_ms_per_step_evotune,
decode_ms_per_step_sdpa, logits_rel_err, top1_agreement, and the figures behind them) and OUT/summary.txt.
Times: prefill, CUDA events around one model call, median of --reps; decode, the --steps forced steps timed
as one pipelined loop (events before the first and after the last), per step. Each implementation is timed
in --rounds interleaved rounds and its figure is the median of the rounds; SDPA's is its fastest backend,
each backend's kept beside it. Decode is also timed paired (summary.json's decode_paired): evotune and one
SDPA backend stepping in turn on their own caches, each step timed alone, so that drift in the host's speed
hits both sides of every pair; the median ratio of the pairs is reported (prefills likewise, in pairs of
neighbouring calls: prefill_paired). The eager step is bound by the host
(transformers' Python), so decode is timed a third way, as a serving engine runs it (decode_graphed): the
step at three positions captured into a CUDA graph per implementation and replayed, the GPU's work alone.
Top-1 agreement is also pooled over --quality-seeds further models (weights and prompt), beside the same
rate between SDPA's own backends, with 95% intervals (top1_agreement_pooled), and at the positions the fp32
run decides by more than bf16's rounding noise (top1_agreement_decided).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import gc
import json
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

# scripts/graph_step.py, beside this script
from graph_step import (cache_tensors, capture_step, llama_config,  # noqa: E402
                        register_sdpa_graphable, replay_ms)

# top1_agreement_decided: positions whose fp32 top-two logit gap exceeds this many times the rms logit error
# of bf16 SDPA against fp32 on the same model; set before this figure was computed on any run. Why 4: the
# gap's error is the difference of two logits' errors, about 1.4x one logit's were they independent, so a
# gap of 4x the noise is flipped only in the far tail of a correct bf16 run's error.
DECIDED_NOISE = 4.0


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--layers", type=int, default=4, help="decoder layers (default 4)")
    p.add_argument("--batch", type=int, default=2, help="sequences (default 2)")
    p.add_argument("--prompt", type=int, default=2048, help="prompt tokens per sequence (default 2048)")
    p.add_argument("--steps", type=int, default=128, help="decode steps (default 128)")
    p.add_argument("--reps", type=int, default=5, help="timed prefills per implementation (default 5)")
    p.add_argument("--rounds", type=int, default=15, help="interleaved timing rounds (default 15)")
    p.add_argument("--seed", type=int, default=0, help="weights and prompt seed (default 0)")
    p.add_argument("--quality-seeds", type=int, default=4,
                   help="further models (weights and prompt from seeds after --seed) whose top-1 agreements are "
                        "pooled with the first's, for agreement rates with 95%% intervals (quality only, not "
                        "timed; default 4, 0: none)")
    p.add_argument("--prefill-pairs", type=int, default=40,
                   help="paired prefills (evotune and one SDPA backend in turn) per backend (default 40)")
    p.add_argument("--graph-rounds", type=int, default=15,
                   help="interleaved rounds of CUDA-graph replays per decode position (default 15)")
    p.add_argument("--graph-replays", type=int, default=50,
                   help="replays a CUDA-graph sample times back to back (default 50)")
    p.add_argument("--plain-combine", action="store_true",
                   help="also capture evotune's decode step with its split-KV combine kernel launched after the "
                        "attention kernel, not as a programmatic dependent launch (evotune_plain_combine; "
                        "$EVOTUNE_COMBINE_LAUNCH=plain while its stream's kernels load)")
    p.add_argument("--profile", action="store_true",
                   help="also profile 20 decode steps of evotune and of SDPA flash (torch.profiler, CPU and CUDA "
                        "time per op) into OUT/profile_*.txt, and 20 replays of each implementation's graphed "
                        "last step (CUDA time per kernel) into OUT/profile_graphed_*.txt")
    args = p.parse_args()
    for name in ("layers", "batch", "prompt", "steps", "reps", "rounds", "prefill_pairs", "graph_rounds",
                 "graph_replays"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.quality_seeds < 0:
        p.error("--quality-seeds must be at least 0")
    return args


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def main():
    args = parse_args()
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if not torch.cuda.is_available():
        sys.exit("llama_e2e.py: no CUDA device: this script runs the model on a GPU")
    import transformers
    from transformers import AttentionInterface, LlamaForCausalLM

    import evotune_torch

    ok, why = evotune_torch.available()
    if not ok:
        sys.exit(f"llama_e2e.py: evotune_torch cannot run: {why}")
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)

    # evotune as an attention implementation, wrapped to count calls and the shapes they brought.
    evotune_fn = AttentionInterface._global_mapping[evotune_torch.register_transformers("evotune_raw")]
    shapes: dict[tuple, int] = {}
    counting = [True]  # off while timing, so the count costs evotune nothing there

    def counted(module, query, key, value, attention_mask, *a, **kw):
        if not counting[0]:
            return evotune_fn(module, query, key, value, attention_mask, *a, **kw)
        shape = (query.shape[0], query.shape[1], key.shape[1], query.shape[2], key.shape[2], query.shape[3],
                 bool(query.shape[2] > 1 and getattr(module, "is_causal", True)), query.dtype)
        shapes[shape] = shapes.get(shape, 0) + 1
        return evotune_fn(module, query, key, value, attention_mask, *a, **kw)

    AttentionInterface.register("evotune", counted)
    from transformers.masking_utils import AttentionMaskInterface

    AttentionMaskInterface.register("evotune", AttentionMaskInterface._global_mapping["evotune_raw"])
    register_sdpa_graphable()  # SDPA for the CUDA-graph timing, on the kernels its eager step runs

    config = llama_config(args.layers)
    log(f"building a {args.layers}-layer LLaMA-3.1-8B-shaped model (transformers {transformers.__version__}, "
        f"torch {torch.__version__}) on {torch.cuda.get_device_name(0)}")
    with torch.device("cuda"):
        model32 = LlamaForCausalLM(config).eval()

    @torch.no_grad()
    def draw_weights(seed, bf16_model=None):
        """The weights, explicitly and reproducibly: LLaMA's initializer (normal, std 0.02) for every matrix,
        ones for the RMSNorm scales, whatever the transformers version does for a model built in a device
        context; into the fp32 model, and rounded into the bf16 one if given."""
        init = torch.Generator(device="cuda").manual_seed(seed)
        for name, param in model32.named_parameters():
            if param.dim() >= 2:
                param.normal_(0.0, config.initializer_range, generator=init)
            else:
                param.fill_(1.0)
        if bf16_model is not None:
            for p16, p32 in zip(bf16_model.parameters(), model32.parameters()):
                p16.copy_(p32)

    draw_weights(args.seed)
    model = copy.deepcopy(model32).to(torch.bfloat16).eval()
    # RoPE's inverse frequencies stay fp32, as in a model loaded in bf16 (they are computed in fp32 at
    # construction, not cast); Module.to() would round them to bf16.
    for (name, rotary), (_, rotary32) in zip(model.named_modules(), model32.named_modules()):
        if type(rotary).__name__.endswith("RotaryEmbedding"):
            for buffer_name, buffer in rotary32.named_buffers(recurse=False):
                setattr(rotary, buffer_name, buffer.clone())
    params = sum(p.numel() for p in model.parameters())
    log(f"{params / 1e9:.2f} B parameters")

    def use(m, impl):
        if hasattr(m, "set_attn_implementation"):
            m.set_attn_implementation(impl)
        else:
            m.config._attn_implementation = impl

    def draw_prompt(seed):
        g = torch.Generator(device="cuda").manual_seed(seed + 1)
        return torch.randint(0, config.vocab_size, (args.batch, args.prompt), device="cuda", generator=g)

    prompt = draw_prompt(args.seed)

    @torch.no_grad()
    def generate(m, forced=None, prompt=prompt):
        """Prefill, then args.steps decode steps (forced tokens if given, else greedy). Returns the logits of
        the prompt's last position and of every step [steps + 1, batch, vocab] (fp32) and the tokens fed."""
        out = m(prompt, use_cache=True, logits_to_keep=1)
        logits = [out.logits[:, -1].float()]
        cache = out.past_key_values
        tokens = []
        for step in range(args.steps):
            token = forced[step] if forced is not None else logits[-1].argmax(dim=-1)
            tokens.append(token)
            out = m(token[:, None], past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            logits.append(out.logits[:, -1].float())
        return torch.stack(logits), tokens

    def five_ways(prompt):
        """SDPA-bf16's greedy run, then evotune, SDPA flash, SDPA cuDNN (two of SDPA's own backends against
        each other: how far one correct bf16 kernel moves this model's logits from another, the peers' floor
        for evotune's figures) and SDPA-fp32, all fed SDPA-bf16's tokens. Returns the logits by name and the
        tokens."""
        use(model, "sdpa")
        logits = {}
        logits["sdpa"], tokens = generate(model, prompt=prompt)
        use(model, "evotune")
        logits["evotune"], _ = generate(model, tokens, prompt=prompt)
        use(model, "sdpa")
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            logits["sdpa_flash"], _ = generate(model, tokens, prompt=prompt)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            logits["sdpa_cudnn"], _ = generate(model, tokens, prompt=prompt)
        use(model32, "sdpa")
        logits["fp32"], _ = generate(model32, tokens, prompt=prompt)
        return logits, tokens

    log("seed {}: SDPA bf16's greedy generation (its tokens fed to every other run), then evotune, SDPA flash, "
        "SDPA cuDNN, SDPA fp32".format(args.seed))
    runs, tokens = five_ways(prompt)
    sdpa_logits, evotune_logits, fp32_logits = runs["sdpa"], runs["evotune"], runs["fp32"]
    flash_logits, cudnn_logits = runs["sdpa_flash"], runs["sdpa_cudnn"]

    # Top-1 agreement pooled over more models: 258 positions move the rate by 0.004 a token, and the pairs
    # of SDPA's own backends disagree at a few of them, so one model cannot tell evotune's rate from theirs.
    pairs = [("evotune", "sdpa"), ("evotune", "sdpa_flash"), ("evotune", "sdpa_cudnn"), ("sdpa_flash", "sdpa_cudnn"),
             ("sdpa_flash", "sdpa"), ("sdpa_cudnn", "sdpa"), ("evotune", "fp32"), ("sdpa", "fp32"),
             ("sdpa_flash", "fp32"), ("sdpa_cudnn", "fp32")]
    agreements = {f"{a}_vs_{b}": [0, 0] for a, b in pairs}
    # The same, only at the positions the fp32 run decides clearly: its top two logits further apart than
    # DECIDED_NOISE times the rms logit error of bf16 SDPA against fp32 on that model (bf16's own rounding
    # noise). A flip there is not a near-tie tipped by rounding; a random-weight model's logits are nearly
    # flat, so most of its positions are near-ties that any two correct bf16 kernels split differently.
    decided_agreements = {f"{a}_vs_{b}": [0, 0] for a, b in pairs}
    decided_flips = []  # where a bf16 run's top-1 is not fp32's at a decided position
    # A continuous figure beside the counts: at every position, how far each bf16 run moves the gap between
    # fp32's top two tokens (its gap minus fp32's), as an rms over all positions and models. Flips are rare
    # events; this says whether one implementation's logits are less precise where the choice is made.
    gap_error = {name: [0.0, 0] for name in ("evotune", "sdpa", "sdpa_flash", "sdpa_cudnn")}

    def pool(runs, seed):
        per_seed = {}
        top2 = runs["fp32"].topk(2, dim=-1)
        fp32_gap = top2.values[..., 0] - top2.values[..., 1]
        noise = (runs["sdpa"] - runs["fp32"]).pow(2).mean().sqrt()
        decided = fp32_gap > DECIDED_NOISE * noise
        for a, b in pairs:
            same = (runs[a].argmax(dim=-1) == runs[b].argmax(dim=-1))
            for table, kept in ((agreements, same), (decided_agreements, same[decided])):
                entry = table[f"{a}_vs_{b}"]
                entry[0] += int(kept.sum().item())
                entry[1] += kept.numel()
            per_seed[f"{a}_vs_{b}"] = same.float().mean().item()
        for name, entry in gap_error.items():
            pair = runs[name].gather(-1, top2.indices)
            error = (pair[..., 0] - pair[..., 1]) - fp32_gap
            entry[0] += error.pow(2).sum().item()
            entry[1] += error.numel()
            flipped = decided & (runs[name].argmax(dim=-1) != top2.indices[..., 0])
            for step, sequence in flipped.nonzero().tolist():
                decided_flips.append({"run": name, "seed": seed, "step": step, "sequence": sequence,
                                      "fp32_gap_over_noise": (fp32_gap[step, sequence] / noise).item(),
                                      "gap_error_over_noise": (error[step, sequence] / noise).item()})
        per_seed["decided_positions"] = int(decided.sum().item())
        log(f"seed {seed} top-1 agreements: {json.dumps(per_seed)}")
        return per_seed

    quality_seeds = {args.seed: pool(runs, args.seed)}
    counting[0] = False  # the shapes served are the first model's
    for j in range(1, args.quality_seeds + 1):
        seed = args.seed + j
        draw_weights(seed, model)
        log(f"seed {seed}: another model (weights and prompt), the same five runs")
        quality_seeds[seed] = pool(five_ways(draw_prompt(seed))[0], seed)
    if args.quality_seeds:
        draw_weights(args.seed, model)  # the first model again, for the timings
    del model32, runs
    torch.cuda.empty_cache()

    def wilson(agree, n):
        """The 95% Wilson score interval of a rate of agree in n."""
        z = 1.959964
        p = agree / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return [centre - half, centre + half]

    top1_pooled = {name: {"agree": a, "positions": n, "rate": a / n, "interval95": wilson(a, n)}
                   for name, (a, n) in agreements.items()}
    top1_decided = {name: {"agree": a, "positions": n, "rate": a / n if n else None,
                           "interval95": wilson(a, n) if n else None}
                    for name, (a, n) in decided_agreements.items()}
    log(f"top-1 agreement at the positions fp32 decides by over {DECIDED_NOISE}x bf16's noise: "
        + "; ".join(f"{k} {v['agree']}/{v['positions']}" for k, v in top1_decided.items()))
    top2_gap_error_rms = {name: math.sqrt(total / n) for name, (total, n) in gap_error.items()}
    log(f"rms error of fp32's top-two gap: {json.dumps(top2_gap_error_rms)}; flips at decided positions: "
        f"{json.dumps(decided_flips)}")
    log(f"top-1 agreement pooled over {len(quality_seeds)} models: "
        + "; ".join(f"{k} {v['rate']:.4f}" for k, v in top1_pooled.items()))

    def rel_err(a, b):
        return ((a - b).norm() / b.norm()).item()

    def top1(a, b):
        return (a.argmax(dim=-1) == b.argmax(dim=-1)).float().mean().item()

    quality = {
        "logits_rel_err": rel_err(evotune_logits, sdpa_logits),
        "logits_rel_err_sdpa_vs_fp32": rel_err(sdpa_logits, fp32_logits),
        "logits_rel_err_evotune_vs_fp32": rel_err(evotune_logits, fp32_logits),
        "top1_agreement": top1(evotune_logits, sdpa_logits),
        "top1_agreement_sdpa_vs_fp32": top1(sdpa_logits, fp32_logits),
        "top1_agreement_evotune_vs_fp32": top1(evotune_logits, fp32_logits),
        "logits_rel_err_sdpa_flash_vs_cudnn": rel_err(flash_logits, cudnn_logits),
        "top1_agreement_sdpa_flash_vs_cudnn": top1(flash_logits, cudnn_logits),
        "positions_compared": int(evotune_logits.shape[0] * evotune_logits.shape[1]),
    }
    # Where evotune and SDPA pick different tokens, how close SDPA's own top two were (in logits), beside the
    # typical size of the logit differences between the two: a near-tie flipped by rounding, or not.
    top2 = sdpa_logits.topk(2, dim=-1).values
    margin = top2[..., 0] - top2[..., 1]
    disagree = evotune_logits.argmax(dim=-1) != sdpa_logits.argmax(dim=-1)
    quality["disagreements_max_sdpa_margin"] = margin[disagree].max().item() if disagree.any() else 0.0
    quality["median_sdpa_margin"] = margin.median().item()
    quality["logit_diff_rms"] = (evotune_logits - sdpa_logits).pow(2).mean().sqrt().item()
    log(json.dumps(quality))

    @torch.no_grad()
    def timed_prefill(m):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for rep in range(args.reps + 2):  # two warm-up calls
            torch.cuda.synchronize()
            start.record()
            out = m(prompt, use_cache=True, logits_to_keep=1)
            stop.record()
            stop.synchronize()
            del out
            if rep >= 2:
                samples.append(start.elapsed_time(stop))
        return statistics.median(samples)

    @torch.no_grad()
    def timed_decode(m):
        """Milliseconds per step over the forced decode steps after a fresh prefill, timed as a generation
        loop runs them: one event before the first step and one after the last, nothing synchronizing in
        between (the tokens are known, so no step waits for the previous one's argmax)."""
        out = m(prompt, use_cache=True, logits_to_keep=1)
        cache = out.past_key_values
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        for token in tokens:
            out = m(token[:, None], past_key_values=cache, use_cache=True)
            cache = out.past_key_values
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / len(tokens)

    timings = {}
    counting[0] = False
    backends = {"sdpa_default": None, "sdpa_flash": SDPBackend.FLASH_ATTENTION, "sdpa_cudnn": SDPBackend.CUDNN_ATTENTION,
                "sdpa_efficient": SDPBackend.EFFICIENT_ATTENTION}

    def backend_context(name):
        """SDPA restricted to the named implementation's backend; SDPA's own choice for sdpa_default (and no
        restriction for evotune's runs, which do not call SDPA)."""
        backend = backends.get(name)
        return sdpa_kernel([backend]) if backend is not None else contextlib.nullcontext()

    # Interleaved rounds, each in the reverse order of the one before (a drift in the host's speed then favours
    # no implementation), with Python's garbage collector run before each and held off within: a collection
    # inside a timed loop lands on whichever implementation it happens to.
    order = ["evotune", *backends]
    gc.collect()
    gc.disable()
    for round_ in range(args.rounds):
        for name in (order if round_ % 2 == 0 else order[::-1]):
            gc.collect()
            use(model, "evotune" if name == "evotune" else "sdpa")
            try:
                with backend_context(name):
                    prefill, decode = timed_prefill(model), timed_decode(model)
            except RuntimeError as e:  # a backend that cannot run these shapes
                timings.setdefault(name, {"error": str(e).splitlines()[0][:300]})
                continue
            entry = timings.setdefault(name, {"prefill_ms": [], "decode_ms_per_step": []})
            entry["prefill_ms"].append(prefill)
            entry["decode_ms_per_step"].append(decode)
            log(f"round {round_ + 1} {name}: prefill {prefill:.3f} ms, decode {decode:.4f} ms/step")
    best = {}
    for name, t in timings.items():
        if "error" not in t:
            best[name] = {"prefill_ms": statistics.median(t["prefill_ms"]),
                          "decode_ms_per_step": statistics.median(t["decode_ms_per_step"])}
    sdpa_names = [n for n in best if n != "evotune"]
    best_prefill = min(sdpa_names, key=lambda n: best[n]["prefill_ms"])
    best_decode = min(sdpa_names, key=lambda n: best[n]["decode_ms_per_step"])

    # Paired decode: evotune and one SDPA backend step by step in turn, each on its own KV cache (its own
    # copy of the model, same weights), each step timed alone (events around it, the GPU idle before it).
    # Drift in the host's speed, which moves whole rounds by 10-40% here, then hits both sides of every pair.
    model_sdpa = copy.deepcopy(model)
    use(model_sdpa, "sdpa")
    use(model, "evotune")
    paired = {}

    @torch.no_grad()
    def step_ms(m, token, cache, name):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        with backend_context(name):
            torch.cuda.synchronize()
            start.record()
            out = m(token[:, None], past_key_values=cache, use_cache=True)
            stop.record()
            stop.synchronize()
        return start.elapsed_time(stop), out.past_key_values

    def pair_figures(ours, theirs, what):
        """Medians of both sides' times and of their ratios (SDPA / evotune), and how many favour evotune."""
        ratios = [t / o for o, t in zip(ours, theirs)]
        return {"evotune_ms": statistics.median(ours), "sdpa_ms": statistics.median(theirs),
                "median_ratio_sdpa_over_evotune": statistics.median(ratios),
                f"evotune_faster_{what}": sum(r > 1 for r in ratios), what: len(ratios)}

    for name in ("sdpa_flash", "sdpa_cudnn", "sdpa_default"):
        with torch.no_grad():
            cache_evo = model(prompt, use_cache=True, logits_to_keep=1).past_key_values
            with backend_context(name):
                cache_sdpa = model_sdpa(prompt, use_cache=True, logits_to_keep=1).past_key_values
        ours, theirs = [], []
        for i, token in enumerate(tokens):
            a, cache_evo = step_ms(model, token, cache_evo, "evotune")
            b, cache_sdpa = step_ms(model_sdpa, token, cache_sdpa, name)
            if i >= 2:
                ours.append(a)
                theirs.append(b)
        paired[name] = pair_figures(ours, theirs, "steps")
        log(f"paired decode vs {name}: {json.dumps(paired[name])}")
        gc.collect()

    # Paired prefill: the same alternation for whole prefills (no state between them), in ABBA order. The
    # attention is a few percent of a prefill (the GEMMs and the LM head are the rest), so rounds of medians
    # leave its difference inside their spread; pairs of neighbouring calls cancel the drift between them.
    @torch.no_grad()
    def prefill_ms(m, name):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        with backend_context(name):
            torch.cuda.synchronize()
            start.record()
            m(prompt, use_cache=True, logits_to_keep=1)
            stop.record()
            stop.synchronize()
        return start.elapsed_time(stop)

    prefill_paired = {}
    for name in ("sdpa_cudnn", "sdpa_flash", "sdpa_default"):
        ours, theirs = [], []
        for i in range(args.prefill_pairs + 2):
            if i % 2 == 0:
                a, b = prefill_ms(model, "evotune"), prefill_ms(model_sdpa, name)
            else:
                b, a = prefill_ms(model_sdpa, name), prefill_ms(model, "evotune")
            if i >= 2:
                ours.append(a)
                theirs.append(b)
        prefill_paired[name] = pair_figures(ours, theirs, "pairs")
        log(f"paired prefill vs {name}: {json.dumps(prefill_paired[name])}")
        gc.collect()
    del model_sdpa
    torch.cuda.empty_cache()

    # Decode under CUDA graphs, as a serving engine runs it (one graph replay a step): no host time hides the
    # GPU's, so the step is the GPU's work alone, measured without the host's noise. At three of the forced
    # steps (the first, the middle, the last), each implementation's step is captured on a side stream
    # (after two warm-up steps there, which load its kernels and allocate their workspaces) and the graphs
    # are replayed in interleaved rounds. A replay recomputes that step from the same cache: DynamicCache
    # appends by concatenation, into new tensors, so the captured inputs stay as they were.
    @torch.no_grad()
    def capture_implementation(name, position):
        use(model, "evotune" if name.startswith("evotune") else "sdpa_graphable")
        with backend_context(name):
            cache = model(prompt, use_cache=True, logits_to_keep=1).past_key_values
            for token in tokens[:position]:
                cache = model(token[:, None], past_key_values=cache, use_cache=True).past_key_values
            token = tokens[position][:, None].clone()
            inputs = cache_tensors(cache)  # what the graph reads: kept alive with it
            graph, out = capture_step(model, token, cache, torch.cuda.Stream(),
                                      plain_combine=name == "evotune_plain_combine")
        return graph, out.logits[:, -1].float(), (inputs, cache, token, out)

    eager_logits = {"evotune": evotune_logits, "evotune_again": evotune_logits, "sdpa_default": sdpa_logits,
                    "sdpa_flash": flash_logits, "sdpa_cudnn": cudnn_logits,
                    "evotune_plain_combine": evotune_logits}
    graphed = {"positions": sorted({0, args.steps // 2, args.steps - 1}), "rounds": args.graph_rounds,
               "replays_per_sample": args.graph_replays, "ms_per_step": {}, "errors": {}, "logits_max_abs_diff_vs_eager": {}}
    # evotune_again, evotune captured a second time: the two differ only by the measurement's own spread.
    graph_names = ["evotune", "sdpa_default", "sdpa_flash", "sdpa_cudnn", "evotune_again"]
    if args.plain_combine:
        graph_names.append("evotune_plain_combine")
    for position in graphed["positions"]:
        graphs = {}
        for name in graph_names:
            if name in graphed["errors"]:
                continue
            try:
                graphs[name] = capture_implementation(name, position)
            except (RuntimeError, ValueError) as e:  # an implementation that cannot be captured
                graphed["errors"][name] = str(e).splitlines()[0][:300]
                log(f"decode under a CUDA graph, {name}: {graphed['errors'][name]}")
                continue
            diff = (graphs[name][1] - eager_logits[name][position + 1]).abs().max().item()
            graphed["logits_max_abs_diff_vs_eager"].setdefault(name, []).append(diff)
        samples = {name: [] for name in graphs}
        for round_ in range(args.graph_rounds):
            for name in (list(graphs) if round_ % 2 == 0 else list(graphs)[::-1]):
                samples[name].append(replay_ms(graphs[name][0], args.graph_replays))
        for name, values in samples.items():
            graphed["ms_per_step"].setdefault(name, []).append(statistics.median(values))
        log(f"decode step {position} under CUDA graphs, ms: "
            + "; ".join(f"{n} {statistics.median(v):.4f}" for n, v in samples.items()))
        if args.profile and position == graphed["positions"][-1]:
            from torch.profiler import ProfilerActivity, profile

            for name, (graph, *_) in graphs.items():
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(20):
                        graph.replay()
                    torch.cuda.synchronize()
                table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=30, max_name_column_width=90)
                (out_dir / f"profile_graphed_{name}.txt").write_text(
                    f"# 20 replays of the graphed decode step {position}, {name}\n{table}\n")
                # The timeline (every kernel's start and duration), for the gaps between kernels that the
                # per-kernel table cannot show: lab/scripts/trace_gaps.py reads it.
                prof.export_chrome_trace(str(out_dir / f"trace_graphed_{name}.json"))
        del graphs, samples
        torch.cuda.empty_cache()
    gc.enable()
    # Per step: the mean over the positions (a step's work grows linearly with the cache).
    graphed["mean_ms_per_step"] = {n: statistics.fmean(v) for n, v in graphed["ms_per_step"].items()
                                   if len(v) == len(graphed["positions"])}
    graphed_sdpa = [n for n in graphed["mean_ms_per_step"] if n.startswith("sdpa")]
    if {"evotune", "evotune_again"} <= graphed["mean_ms_per_step"].keys():
        graphed["control_evotune_twice_ratio"] = (graphed["mean_ms_per_step"]["evotune_again"]
                                                  / graphed["mean_ms_per_step"]["evotune"])
    if "evotune" in graphed["mean_ms_per_step"] and graphed_sdpa:
        best_graphed = min(graphed_sdpa, key=lambda n: graphed["mean_ms_per_step"][n])
        graphed["sdpa_best"] = best_graphed
        graphed["speedup_over_sdpa_best"] = (graphed["mean_ms_per_step"][best_graphed]
                                             / graphed["mean_ms_per_step"]["evotune"])
    log(f"decode under CUDA graphs: {json.dumps(graphed)}")

    if args.profile:
        from torch.profiler import ProfilerActivity, profile

        for name in ("evotune", "sdpa_flash"):
            use(model, "evotune" if name == "evotune" else "sdpa")
            with torch.no_grad():
                out = model(prompt, use_cache=True, logits_to_keep=1)
                cache = out.past_key_values
                torch.cuda.synchronize()
                with backend_context(name):
                    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                        for token in tokens[:20]:
                            out = model(token[:, None], past_key_values=cache, use_cache=True)
                            cache = out.past_key_values
                        torch.cuda.synchronize()
            table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=40)
            (out_dir / f"profile_{name}.txt").write_text(table + "\n")
            log(f"profile of 20 decode steps, {name}: {out_dir / f'profile_{name}.txt'}")

    served = []
    props = torch.cuda.get_device_properties(0)
    for (b, hq, hkv, sq, skv, d, causal, dtype), calls in sorted(shapes.items(), key=lambda kv: (kv[0][3], kv[0][4])):
        p = evotune_torch.plan(b, hq, hkv, sq, skv, d, causal, dtype)
        served.append({"problem": f"b={b},hq={hq},hkv={hkv},sq={sq},skv={skv},d={d},causal={int(causal)}",
                       "calls": calls, "source": p["source"], "match": p["match"], "entry_problem": p["entry_problem"]})
    summary = {
        "layers": args.layers,
        "batch": args.batch,
        "prompt_tokens": args.prompt,
        "decode_steps": args.steps,
        "device": props.name,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "prefill_ms_evotune": best["evotune"]["prefill_ms"],
        "prefill_ms_sdpa": best[best_prefill]["prefill_ms"],
        "prefill_sdpa_backend": best_prefill,
        "decode_ms_per_step_evotune": best["evotune"]["decode_ms_per_step"],
        "decode_ms_per_step_sdpa": best[best_decode]["decode_ms_per_step"],
        "decode_sdpa_backend": best_decode,
        **quality,
        "timings": timings,
        "decode_paired": paired,
        "decode_graphed": graphed,
        "prefill_paired": prefill_paired,
        "top1_agreement_pooled": {"seeds": list(quality_seeds), **top1_pooled},
        "top1_agreement_decided": {"seeds": list(quality_seeds), "noise_multiple": DECIDED_NOISE, **top1_decided,
                                   "flips": decided_flips},
        "top2_gap_error_rms": top2_gap_error_rms,
        "top1_agreement_per_seed": quality_seeds,
        "attention_calls": {"evotune": sum(shapes.values()), "distinct_shapes": len(shapes),
                            "not_from_the_table": sum(s["calls"] for s in served if s["source"] != "table")},
        "shapes_served": served[:3] + (served[-3:] if len(served) > 3 else []),
        "nvrtc_loaded": evotune_torch.nvrtc_loaded(),
    }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = [
        f"{args.layers}-layer LLaMA-3.1-8B-shaped model, bf16, {props.name}; prefill {args.batch}x{args.prompt}, "
        f"{args.steps} decode steps (SDPA-bf16's greedy tokens fed to every run)",
        f"logits relative error, evotune vs SDPA: {quality['logits_rel_err']:.4g} (bf16 SDPA vs fp32: "
        f"{quality['logits_rel_err_sdpa_vs_fp32']:.4g}; evotune vs fp32: {quality['logits_rel_err_evotune_vs_fp32']:.4g})",
        f"top-1 agreement, evotune vs SDPA: {quality['top1_agreement']:.4f} over {quality['positions_compared']} "
        f"positions (SDPA vs fp32: {quality['top1_agreement_sdpa_vs_fp32']:.4f}; SDPA flash vs cuDNN: "
        f"{quality['top1_agreement_sdpa_flash_vs_cudnn']:.4f}, logits {quality['logits_rel_err_sdpa_flash_vs_cudnn']:.4g} "
        f"apart)",
        f"disagreements: SDPA's top-1 margin at most {quality['disagreements_max_sdpa_margin']:.4g} there (median "
        f"margin {quality['median_sdpa_margin']:.4g}; rms logit difference evotune vs SDPA "
        f"{quality['logit_diff_rms']:.4g})",
        f"prefill: evotune {summary['prefill_ms_evotune']:.3f} ms, SDPA's best ({best_prefill}) "
        f"{summary['prefill_ms_sdpa']:.3f} ms: {summary['prefill_ms_sdpa'] / summary['prefill_ms_evotune']:.3f}x",
        f"decode: evotune {summary['decode_ms_per_step_evotune']:.4f} ms/step, SDPA's best ({best_decode}) "
        f"{summary['decode_ms_per_step_sdpa']:.4f} ms/step: "
        f"{summary['decode_ms_per_step_sdpa'] / summary['decode_ms_per_step_evotune']:.3f}x",
        "paired decode steps (evotune and SDPA in turn, each step alone): " + "; ".join(
            f"vs {n} {v['evotune_ms']:.4f} / {v['sdpa_ms']:.4f} ms, SDPA/evotune median ratio "
            f"{v['median_ratio_sdpa_over_evotune']:.3f}, evotune faster in {v['evotune_faster_steps']} of {v['steps']}"
            for n, v in paired.items()),
        "paired prefills (evotune and SDPA in turn): " + "; ".join(
            f"vs {n} {v['evotune_ms']:.3f} / {v['sdpa_ms']:.3f} ms, SDPA/evotune median ratio "
            f"{v['median_ratio_sdpa_over_evotune']:.4f}, evotune faster in {v['evotune_faster_pairs']} of {v['pairs']}"
            for n, v in prefill_paired.items()),
        "decode under CUDA graphs (ms per step, mean over steps " + ", ".join(map(str, graphed["positions"]))
        + "): " + "; ".join(f"{n} {v:.4f}" for n, v in graphed["mean_ms_per_step"].items())
        + (f"; {graphed['speedup_over_sdpa_best']:.4f}x SDPA's best ({graphed['sdpa_best']})"
           if "sdpa_best" in graphed else "")
        + (f"; control, evotune captured twice: {graphed['control_evotune_twice_ratio']:.4f}"
           if "control_evotune_twice_ratio" in graphed else "")
        + (f"; not captured: {graphed['errors']}" if graphed["errors"] else ""),
        f"top-1 agreement pooled over {len(quality_seeds)} models (95% interval): " + "; ".join(
            f"{n} {v['rate']:.4f} ({v['interval95'][0]:.4f}-{v['interval95'][1]:.4f}, {v['positions']})"
            for n, v in top1_pooled.items()),
        f"top-1 agreement at the positions fp32 decides (top two over {DECIDED_NOISE:g}x bf16 SDPA's rms logit "
        "error apart): " + "; ".join(f"{n} {v['agree']}/{v['positions']}" for n, v in top1_decided.items())
        + "; flips there (fp32's gap / noise): " + (", ".join(
            f"{f['run']} seed {f['seed']} step {f['step']} ({f['fp32_gap_over_noise']:.2f})" for f in decided_flips)
            or "none"),
        "rms error of fp32's top-two logit gap, over all positions: " + "; ".join(
            f"{n} {v:.4f}" for n, v in top2_gap_error_rms.items()),
        "per implementation (median of the rounds), prefill / decode per step: " + "; ".join(
            f"{n} {v['prefill_ms']:.3f} / {v['decode_ms_per_step']:.4f} ms" for n, v in best.items()),
        f"evotune attention calls: {summary['attention_calls']}; NVRTC loaded: {summary['nvrtc_loaded']}",
    ]
    (out_dir / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
