#!/usr/bin/env bash
# CUDA graphs (740c12f) and the LLaMA run with decode also timed under CUDA graphs and top-1 pooled over five
# models (877d0a4), with the C++ GPU tests, the example (no NVRTC) and the op's GPU tests.
# Predictions, written before the call:
#   gpu_tests: 21 of 21 pass, the new GpuAttention.LauncherLaunchesCanBeCapturedIntoGraphs among them
#   torch_tests: 13 of 13 pass (two new: capture and replay bit for bit, a cold capture refused)
#   example: every covered problem passes with no libnvrtc mapped, the uncovered one exits 2
#   llama, decode under CUDA graphs: every implementation captures; a step takes 1.3-1.7 ms (eager: 3.2-6 ms);
#     evotune's replayed logits equal its eager ones (max abs diff 0); evotune 1.002-1.03x SDPA's best
#     (the attention is a few percent of the step's GPU time, and evotune's decode call is the faster one)
#   llama, top-1 pooled over five models (1290 positions): every bf16 pair at 0.97-0.99; evotune vs SDPA
#     inside the 95% interval of SDPA flash vs cuDNN (no bf16 pair's interval entirely at or above 0.99)
#   llama, eager: prefill within 1% of SDPA's best; decode within 2% of SDPA's best by round medians
# Needs a full build pack. ~7 minutes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 590 scripts/gpu_production.sh build-device "$OUT" machine example gpu_tests torch_tests llama | tail -60
