"""The PyTorch op on a GPU (the H100 the committed table was tuned on): against SDPA and an fp32 reference on
prefill, causal, GQA, KV-cache and decode shapes of both dtypes; on the caller's stream; under torch.compile;
as a transformers attention implementation in a LLaMA-shaped layer; and with NVRTC never loaded until a shape
the table does not cover is run with JIT allowed.

    EVOTUNE_CAPI_LIBRARY=build-device/deploy/libevotune_capi.so python tests/python/test_evotune_torch_gpu.py -v
"""

import copy
import importlib.util
import math
import sys
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import evotune_torch  # noqa: E402

# (name, b, hq, hkv, sq, skv, d, causal, dtype): each within the table's lookup contract.
CASES = [
    ("prefill fp16 d128", 2, 16, 16, 4096, 4096, 128, False, torch.float16),
    ("causal GQA bf16 d128, tails", 2, 32, 8, 1000, 1000, 128, True, torch.bfloat16),
    ("causal GQA bf16 d128 (LLaMA prefill)", 2, 32, 8, 2048, 2048, 128, True, torch.bfloat16),
    ("prefill bf16 d64", 4, 16, 16, 2048, 2048, 64, False, torch.bfloat16),
    ("causal GQA fp16 d64", 2, 32, 8, 2048, 2048, 64, True, torch.float16),
    ("KV-cache prefill bf16 (sq < skv)", 2, 32, 8, 512, 2048, 128, True, torch.bfloat16),
    ("decode bf16, first step", 2, 32, 8, 1, 2049, 128, True, torch.bfloat16),
    ("decode bf16, last step", 2, 32, 8, 1, 2176, 128, False, torch.bfloat16),
    ("decode fp16, tail length", 16, 32, 8, 1, 4000, 128, False, torch.float16),
]


def inputs(b, hq, hkv, sq, skv, d, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype, generator=g)
    k = torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype, generator=g)
    v = torch.randn(b, hkv, skv, d, device="cuda", dtype=dtype, generator=g)
    return q, k, v


def lower_right_mask(sq, skv):
    # Query i (of the last sq positions) sees keys 0 .. i + skv - sq.
    return torch.arange(skv, device="cuda")[None, :] <= torch.arange(sq, device="cuda")[:, None] + (skv - sq)


def sdpa(q, k, v, causal):
    """PyTorch's SDPA with GQA; bottom-right causal through an explicit mask when sq < skv (is_causal is
    top-left aligned)."""
    sq, skv = q.shape[2], k.shape[2]
    if causal and sq > 1 and sq < skv:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=lower_right_mask(sq, skv), enable_gqa=True)
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal and sq > 1, enable_gqa=True)


def reference(q, k, v, causal):
    """fp32 math, one head group at a time (bounded memory)."""
    group = q.shape[1] // k.shape[1]
    k = k.float().repeat_interleave(group, dim=1)
    v = v.float().repeat_interleave(group, dim=1)
    out = torch.empty(q.shape, dtype=torch.float32, device="cuda")
    scale = 1.0 / math.sqrt(q.shape[-1])
    mask = lower_right_mask(q.shape[2], k.shape[2]) if causal else None
    for h in range(0, q.shape[1], 8):
        s = torch.matmul(q[:, h:h + 8].float(), k[:, h:h + 8].transpose(-1, -2)) * scale
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        out[:, h:h + 8] = torch.matmul(torch.softmax(s, dim=-1), v[:, h:h + 8])
    return out


def check(test, name, q, k, v, causal, out):
    ref = reference(q, k, v, causal)
    ours = (out.float() - ref).abs().max().item()
    theirs = (sdpa(q, k, v, causal).float() - ref).abs().max().item()
    mantissa = 7 if q.dtype == torch.bfloat16 else 10
    floor = math.ldexp(0.25, math.frexp(ref.abs().max().item())[1] - 1 - mantissa)
    tolerance = 2 * theirs + floor
    print(f"  {name}: max abs error {ours:.3g} vs SDPA's {theirs:.3g} (tolerance {tolerance:.3g})")
    test.assertTrue(torch.isfinite(out).all().item(), f"{name}: non-finite outputs")
    test.assertLessEqual(ours, tolerance, name)


class AgainstSdpa(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ok, why = evotune_torch.available()
        if not ok:
            raise unittest.SkipTest(why)

    def test_every_case_matches_sdpa_within_its_own_error(self):
        for i, (name, b, hq, hkv, sq, skv, d, causal, dtype) in enumerate(CASES):
            with self.subTest(name):
                p = evotune_torch.plan(b, hq, hkv, sq, skv, d, causal, dtype)
                print(f"{name}: {p['match']} ({p['distance']}) of {p['entry_problem']}")
                self.assertEqual(p["source"], "table", name)
                q, k, v = inputs(b, hq, hkv, sq, skv, d, dtype, seed=100 + i)
                check(self, name, q, k, v, causal, evotune_torch.attention(q, k, v, causal=causal))

    def test_lse_and_a_scale(self):
        q, k, v = inputs(2, 32, 8, 1000, 1000, 128, torch.bfloat16, seed=7)
        evotune_torch.attention(q, k, v, causal=True)  # the default scale first: the kernel is then cached
        out, lse = evotune_torch.attention(q, k, v, causal=True, scale=0.05, return_lse=True)
        expected = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True, scale=0.05,
                                                  enable_gqa=True)
        self.assertLess((out.float() - expected).abs().max().item(), 0.05)
        s = torch.matmul(q.float(), k.float().repeat_interleave(4, dim=1).transpose(-1, -2)) * 0.05
        s = s.masked_fill(~lower_right_mask(1000, 1000), float("-inf"))
        self.assertLess((lse - torch.logsumexp(s, dim=-1)).abs().max().item(), 1e-2)

    def test_strided_tensors_are_read_and_written_in_place(self):
        # Every case's kernel (both mainloops, both O stores, split-KV with its combine) on BHSD views of BSHD
        # memory, as a model's projections give, and on K/V slices of a longer preallocated cache: the same
        # bits as on dense copies, and the output in Q's memory order.
        for i, (name, b, hq, hkv, sq, skv, d, causal, dtype) in enumerate(CASES):
            with self.subTest(name):
                q, k, v = inputs(b, hq, hkv, sq, skv, d, dtype, seed=200 + i)
                expected = evotune_torch.attention(q, k, v, causal=causal)
                bshd = [t.transpose(1, 2).contiguous().transpose(1, 2) for t in (q, k, v)]
                if sq > 1:
                    self.assertFalse(bshd[0].is_contiguous())
                out = evotune_torch.attention(*bshd, causal=causal)
                self.assertEqual(out.stride(), bshd[0].stride(), name)
                self.assertTrue(torch.equal(out, expected), name)
                cache_k = torch.zeros(b, hkv, skv + 24, d, device="cuda", dtype=dtype)
                cache_v = torch.zeros_like(cache_k)
                cache_k[:, :, :skv] = k
                cache_v[:, :, :skv] = v
                self.assertTrue(torch.equal(
                    evotune_torch.attention(q, cache_k[:, :, :skv], cache_v[:, :, :skv], causal=causal), expected),
                    name)

    def test_layouts_the_kernels_cannot_take_are_copied(self):
        q, k, v = inputs(2, 32, 8, 1000, 1000, 128, torch.bfloat16, seed=8)
        expected = evotune_torch.attention(q, k, v, causal=True)
        head_dim_strided = q.transpose(2, 3).contiguous().transpose(2, 3)  # columns not contiguous
        wide = torch.zeros(2, 32, 1000, 132, device="cuda", dtype=torch.bfloat16)
        wide[..., :128] = q
        odd_rows = wide[..., :128]  # rows 132 elements apart: not a multiple of 8
        unaligned = torch.zeros(2 * 32 * 1000 * 128 + 4, device="cuda", dtype=torch.bfloat16)[4:].view(q.shape)
        unaligned.copy_(q)  # 8 bytes past a 16-byte boundary
        for name, qq in (("head dim strided", head_dim_strided), ("rows 132 apart", odd_rows),
                         ("unaligned", unaligned)):
            with self.subTest(name):
                self.assertTrue(torch.equal(evotune_torch.attention(qq, k, v, causal=True), expected), name)

    def test_it_runs_on_the_current_stream(self):
        q, k, v = inputs(2, 32, 8, 2048, 2048, 128, torch.bfloat16, seed=9)
        expected = evotune_torch.attention(q, k, v, causal=True)
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            # The first call on a stream creates that stream's launcher, whose workspace allocation (cuMemAlloc)
            # synchronizes the device: warm it up before the timing-sensitive part, as the README says.
            evotune_torch.attention(q, k, v, causal=True)
            side.synchronize()
            # ~1 s of busy-wait on the side stream, before the op: the host must queue the op and ask before
            # it ends, which tens of ms did not leave room for on a loaded host (issue 48).
            torch.cuda._sleep(2_000_000_000)
            out = evotune_torch.attention(q, k, v, causal=True)
            done = torch.cuda.Event()
            done.record(side)
        self.assertFalse(done.query(), "the op did not queue behind the side stream's work")
        side.synchronize()
        self.assertTrue(torch.equal(out, expected))

    def test_torch_compile_traces_around_it(self):
        q, k, v = inputs(2, 32, 8, 1, 2112, 128, torch.bfloat16, seed=10)

        def block(q, k, v):
            return evotune_torch.attention(q * 0.5, k, v, causal=False) + 1

        compiled = torch.compile(block, fullgraph=True)
        self.assertTrue(torch.allclose(compiled(q, k, v), block(q, k, v), atol=1e-2))
        # The traced graph holds the registered op, not a graph break around Python.
        from torch._dynamo.testing import CompileCounterWithBackend

        counter = CompileCounterWithBackend("aot_eager")
        torch.compile(block, fullgraph=True, backend=counter)(q, k, v)
        ops = [str(n.target) for g in counter.graphs for n in g.graph.nodes if n.op == "call_function"]
        self.assertTrue(any("evotune.attention" in op for op in ops), ops)

    def test_cuda_graph_capture_and_replay(self):
        # A decode step (split-KV and its combine) and the LLaMA prefill (the dynamic scheduler's counters),
        # captured on a stream after a warm-up call there: replays compute on whatever the captured buffers
        # hold, bit for bit as eager calls do, also after the stream's launcher grew its workspace for a
        # larger shape (the graph keeps the one it was captured with).
        cases = [("decode", 2, 32, 8, 1, 2112, 128, False, torch.bfloat16, 4),
                 ("LLaMA prefill", 2, 32, 8, 2048, 2048, 128, True, torch.bfloat16, 3)]
        for i, (name, b, hq, hkv, sq, skv, d, causal, dtype, larger_b) in enumerate(cases):
            with self.subTest(name):
                entry = evotune_torch.plan(b, hq, hkv, sq, skv, d, causal, dtype)["entry_problem"]
                self.assertEqual(entry, evotune_torch.plan(larger_b, hq, hkv, sq, skv, d, causal, dtype)
                                 ["entry_problem"], "the larger shape must run on the same kernel (launcher)")
                q, k, v = inputs(b, hq, hkv, sq, skv, d, dtype, seed=300 + i)
                stream = torch.cuda.Stream()
                with torch.cuda.stream(stream):
                    evotune_torch.attention(q, k, v, causal=causal)  # loads the kernel and its workspace
                stream.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph, stream=stream):
                    out = evotune_torch.attention(q, k, v, causal=causal)
                for seed in (400 + i, 500 + i):
                    fresh = inputs(b, hq, hkv, sq, skv, d, dtype, seed=seed)
                    for buffer, value in zip((q, k, v), fresh):
                        buffer.copy_(value)
                    graph.replay()
                    torch.cuda.synchronize()
                    self.assertTrue(torch.equal(out, evotune_torch.attention(*fresh, causal=causal)), name)
                    with torch.cuda.stream(stream):  # a decode's split workspace grows with the batch
                        larger = inputs(larger_b, hq, hkv, sq, skv, d, dtype, seed=seed + 50)
                        check(self, f"{name}, b={larger_b} eager after the capture", *larger, causal,
                              evotune_torch.attention(*larger, causal=causal))
                    stream.synchronize()

    def test_a_first_call_during_capture_is_refused_clearly(self):
        q, k, v = inputs(2, 32, 8, 1, 2112, 128, torch.bfloat16, seed=12)
        graph = torch.cuda.CUDAGraph()
        with self.assertRaisesRegex(evotune_torch.EvotuneError,
                                    "call it once on this stream before capturing"):
            with torch.cuda.graph(graph, stream=torch.cuda.Stream()):  # a stream the op has not run on
                evotune_torch.attention(q, k, v)

    def test_gradients_are_refused(self):
        q, k, v = inputs(1, 8, 8, 16, 16, 64, torch.float16, seed=14)
        with self.assertRaisesRegex(ValueError, "forward only"):
            evotune_torch.attention(q.requires_grad_(), k, v)

    def test_wrong_device_index_and_cpu_mix_are_refused(self):
        q, k, v = inputs(1, 8, 8, 16, 16, 64, torch.float16, seed=11)
        with self.assertRaisesRegex(ValueError, "needs CUDA tensors; k is on cpu"):
            evotune_torch.attention(q, k.cpu(), v)


class Transformers(unittest.TestCase):
    """register_transformers on a one-layer LLaMA-shaped model (32 query and 8 KV heads, head dim 128, random
    weights): a prefill, a prefill that extends the KV cache (sq < skv, whose causal mask transformers spells
    out for SDPA), and decode steps, each call on a table kernel; evotune's logits no farther from an fp32
    run's than SDPA's are."""

    @classmethod
    def setUpClass(cls):
        ok, why = evotune_torch.available()
        if not ok:
            raise unittest.SkipTest(why)
        if importlib.util.find_spec("transformers") is None:
            raise unittest.SkipTest("transformers is not installed")

    def test_a_llama_layer_on_evotune(self):
        from transformers import LlamaConfig, LlamaForCausalLM

        name = evotune_torch.register_transformers()
        config = LlamaConfig(vocab_size=1024, hidden_size=4096, intermediate_size=1024, num_hidden_layers=1,
                             num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                             max_position_embeddings=4096, rope_theta=500000.0)
        with torch.device("cuda"):
            model32 = LlamaForCausalLM(config).eval()
        g = torch.Generator(device="cuda").manual_seed(15)
        with torch.no_grad():  # explicit weights: transformers may leave a model built on a device uninitialised
            for p in model32.parameters():
                if p.dim() >= 2:
                    p.normal_(0.0, 0.02, generator=g)
                else:
                    p.fill_(1.0)
        model = copy.deepcopy(model32).to(torch.bfloat16)
        for rotary, rotary32 in zip(model.modules(), model32.modules()):  # RoPE frequencies stay fp32
            if type(rotary).__name__.endswith("RotaryEmbedding"):
                for buffer_name, buffer in rotary32.named_buffers(recurse=False):
                    setattr(rotary, buffer_name, buffer.clone())
        ids = torch.randint(0, config.vocab_size, (2, 2048), device="cuda", generator=g)

        @torch.no_grad()
        def logits(m, impl):
            """Prefill 1536 tokens, extend the cache by 512 (sq 512, skv 2048), then 4 decode steps."""
            if hasattr(m, "set_attn_implementation"):
                m.set_attn_implementation(impl)
            else:
                m.config._attn_implementation = impl
            out = m(ids[:, :1536], use_cache=True)
            result = [out.logits]
            out = m(ids[:, 1536:], past_key_values=out.past_key_values, use_cache=True)
            result.append(out.logits)
            for step in range(4):
                out = m(ids[:, step:step + 1], past_key_values=out.past_key_values, use_cache=True)
                result.append(out.logits)
            return torch.cat(result, dim=1).float()

        fp32 = logits(model32, "sdpa")
        sdpa_logits = logits(model, "sdpa")
        with mock.patch.object(evotune_torch, "attention", wraps=evotune_torch.attention) as op:
            ours = logits(model, name)
        calls = [(c.args[0].shape[2], c.args[1].shape[2], c.kwargs["causal"]) for c in op.call_args_list]
        self.assertEqual(calls, [(1536, 1536, True), (512, 2048, True)] + [(1, 2049 + i, False) for i in range(4)])

        def rel(a, b):
            return ((a - b).norm() / b.norm()).item()

        print(f"  LLaMA layer: logits vs fp32, evotune {rel(ours, fp32):.4g}, SDPA {rel(sdpa_logits, fp32):.4g}; "
              f"evotune vs SDPA {rel(ours, sdpa_logits):.4g}")
        self.assertTrue(torch.isfinite(ours).all().item())
        self.assertLessEqual(rel(ours, fp32), 1.2 * rel(sdpa_logits, fp32) + 1e-3)
        # A decode step captured into a CUDA graph: transformers spells out every mask under capture (it
        # cannot look at a padding mask there), and the registered mask function sees from its arguments that
        # none is needed, without a sync. The replay gives the eager step's logits (bit for bit but for the
        # GEMMs, which may pick other algorithms on the capture stream).
        with torch.no_grad():
            cache = model(ids[:, :1536], use_cache=True).past_key_values
            token = ids[:, 1536:1537].clone()
            eager = model(token, past_key_values=copy.deepcopy(cache), use_cache=True).logits.float()
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):  # loads the kernel and allocates its workspace for this stream
                model(token, past_key_values=copy.deepcopy(cache), use_cache=True)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                captured = model(token, past_key_values=cache, use_cache=True)
            graph.replay()
            torch.cuda.synchronize()
            replayed = captured.logits.float()
        print(f"  LLaMA decode step under a CUDA graph: logits {rel(replayed, eager):.3g} from the eager "
              f"step's (bit-identical: {torch.equal(replayed, eager)})")
        self.assertLessEqual(rel(replayed, eager), 1e-2)
        # Padding needs a mask evotune cannot apply: refused, not ignored.
        padding = torch.ones(2, 64, dtype=torch.long, device="cuda")
        padding[0, :3] = 0
        with self.assertRaisesRegex(ValueError, "causality alone does not describe"):
            with torch.no_grad():
                model(ids[:, :64], attention_mask=padding)


class OpFuzz(unittest.TestCase):
    """The first shapes of the committed fuzz list (tests/data/op_fuzz_shapes.json; shape 0 is the problem that
    hung the op before the lookup asked evotune's rules), each call in a worker process under a watchdog:
    none hangs, crashes or errs, every output within tolerance. scripts/op_fuzz.py runs all of them."""

    @classmethod
    def setUpClass(cls):
        ok, why = evotune_torch.available()
        if not ok:
            raise unittest.SkipTest(why)

    def test_random_shapes_under_a_watchdog(self):
        import json
        import subprocess
        import tempfile
        root = Path(__file__).resolve().parents[2]
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run(
                [sys.executable, str(root / "scripts" / "op_fuzz.py"), "run", str(root / "tests" / "data" /
                 "op_fuzz_shapes.json"), "--out", out, "--first", "24", "--workers", "4", "--stall", "120"],
                capture_output=True, text=True, timeout=900)
            summary = json.loads((Path(out) / "summary.json").read_text())
        print(result.stdout[-2000:])
        self.assertEqual(summary["shapes"], 24, result.stdout[-2000:])
        self.assertEqual((summary["hangs"], summary["crashes"], summary["errors"], summary["mismatches"]),
                         (0, 0, 0, 0), result.stdout[-2000:])


class ZzNvrtcOnlyForJit(unittest.TestCase):
    """Runs last (unittest sorts classes by name): nothing before it may load NVRTC."""

    @classmethod
    def setUpClass(cls):
        ok, why = evotune_torch.available()
        if not ok:
            raise unittest.SkipTest(why)

    def test_table_kernels_never_load_nvrtc_and_jit_does(self):
        q, k, v = inputs(2, 32, 8, 1, 2100, 128, torch.bfloat16, seed=12)
        evotune_torch.attention(q, k, v)
        torch.cuda.synchronize()
        # evotune's own loader has not opened NVRTC. (/proc/self/maps cannot tell here: PyTorch maps its own
        # NVRTC for cuDNN's runtime-compiled engines and torch.compile; the C++ example checks the maps in a
        # process without PyTorch.)
        self.assertFalse(evotune_torch.nvrtc_loaded())
        # d64 decode: no entry of that kind.
        q, k, v = inputs(4, 8, 8, 1, 1000, 64, torch.float16, seed=13)
        with self.assertRaisesRegex(evotune_torch.NotCoveredError, "no tuned kernel for b=4,hq=8,hkv=8,sq=1"):
            evotune_torch.attention(q, k, v, jit=False)
        self.assertFalse(evotune_torch.nvrtc_loaded())
        check(self, "uncovered d64 decode, JIT", q, k, v, False, evotune_torch.attention(q, k, v, jit=True))
        self.assertTrue(evotune_torch.nvrtc_loaded())

    def test_uncovered_head_dim_256_by_jit(self):
        # The table holds no d=256 entry: with JIT the problem-aware default runs (wgmma prefill, causal GQA
        # with sq < skv, mma_sync decode), and without it the shape is refused. (Named to run after
        # test_table_kernels_never_load_nvrtc_and_jit_does, which needs NVRTC not yet loaded: unittest runs a
        # class's tests in name order.)
        for i, (name, b, hq, hkv, sq, skv, causal, dtype) in enumerate((
                ("d256 prefill causal GQA bf16", 2, 16, 8, 1024, 1024, True, torch.bfloat16),
                ("d256 chunk sq < skv fp16", 1, 8, 4, 300, 1333, True, torch.float16),
                ("d256 decode bf16", 4, 16, 8, 1, 3000, False, torch.bfloat16))):
            with self.subTest(name):
                q, k, v = inputs(b, hq, hkv, sq, skv, 256, dtype, seed=300 + i)
                with self.assertRaises(evotune_torch.NotCoveredError):
                    evotune_torch.attention(q, k, v, causal=causal, jit=False)
                check(self, name, q, k, v, causal, evotune_torch.attention(q, k, v, causal=causal, jit=True))


if __name__ == "__main__":
    unittest.main()
