"""A transformers model's decode step captured into a CUDA graph, and replays of a graph timed: what
llama_e2e.py and decode_graph_probe.py share, so that both capture and time the step the same way."""

import copy
import os

import torch


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
