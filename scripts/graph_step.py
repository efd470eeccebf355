"""What llama_e2e.py and lab/scripts/decode_graph_probe.py share, so that both run the same model and capture and time
its decode step the same way: the LLaMA-3.1-8B-shaped configuration, SDPA registered to run under a CUDA
graph on the kernels it runs eagerly, a decode step captured into a graph, and a graph's replays timed."""

import copy
import os

import torch


def llama_config(layers):
    """LLaMA-3.1-8B's shape (hidden 4096, 32 query heads, 8 KV heads, head dim 128, RoPE) with `layers`
    decoder layers."""
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=128256, hidden_size=4096, intermediate_size=14336,
                       num_hidden_layers=layers, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                       max_position_embeddings=8192, rope_theta=500000.0, rms_norm_eps=1e-5,
                       tie_word_embeddings=False)


def register_sdpa_graphable():
    """Registers "sdpa_graphable" with transformers: its SDPA, with the mask decided from the arguments as
    transformers decides it outside a capture (no mask for a decode step or a prefill without padding). Under
    capture transformers spells out every mask, which sends a decode step to a masked kernel (or none: flash
    takes no mask) and would time SDPA on other kernels than its eager step runs."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, causal_mask_function, sdpa_mask

    import evotune_torch

    def sdpa_graphable_mask(*args, **kwargs):
        if (not args and evotune_torch.causality_alone(kwargs, causal_mask_function)
                and (kwargs["q_length"] == 1 or kwargs["q_offset"] == 0)):
            return None
        return sdpa_mask(*args, **kwargs)

    AttentionInterface.register("sdpa_graphable", AttentionInterface._global_mapping["sdpa"])
    AttentionMaskInterface.register("sdpa_graphable", sdpa_graphable_mask)


def cache_tensors(cache):
    """The key and value tensors a transformers KV cache holds now (what a step captured on it reads)."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        return [t for layer in layers for t in (layer.keys, layer.values)]
    return [*cache.key_cache, *cache.value_cache]


def capture_step(model, token, cache, stream, plain_combine=False):
    """Captures model(token, past_key_values=cache) into a CUDA graph on `stream`, after two warm-up steps
    there on copies of the cache: they load the stream's kernels and allocate their workspaces, which a
    capture may not do (evotune's kernels and workspaces are per stream; its split combine's launch is decided
    then: plain_combine sets $EVOTUNE_COMBINE_LAUNCH=plain while they run). The capture appends to `cache`
    (DynamicCache concatenates into new tensors, so what the graph reads stays as it was: keep the cache's
    tensors from before the call, cache_tensors(cache), alive with the graph). Replays once. Returns
    (graph, the step's output)."""
    stream.wait_stream(torch.cuda.current_stream())
    if plain_combine:
        os.environ["EVOTUNE_COMBINE_LAUNCH"] = "plain"
    try:
        with torch.cuda.stream(stream):
            for _ in range(2):
                model(token, past_key_values=copy.deepcopy(cache), use_cache=True)
    finally:
        if plain_combine:
            del os.environ["EVOTUNE_COMBINE_LAUNCH"]
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        out = model(token, past_key_values=cache, use_cache=True)
    graph.replay()
    torch.cuda.synchronize()
    return graph, out


def replay_ms(graph, replays):
    """Milliseconds per replay over `replays` replays back to back (CUDA events around them)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(replays):
        graph.replay()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / replays
