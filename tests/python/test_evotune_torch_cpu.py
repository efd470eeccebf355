"""The PyTorch op on a machine without a GPU (CI): the package imports, says why it cannot run, refuses bad
calls with clear exceptions before touching the library, and its library answers the lookup contract for the
committed H100 table without a GPU and without loading NVRTC.

    EVOTUNE_CAPI_LIBRARY=build/deploy/libevotune_capi.so python tests/python/test_evotune_torch_cpu.py
"""

import os
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import torch  # noqa: E402

import evotune_torch  # noqa: E402

H100, SM = "NVIDIA H100 80GB HBM3", 90


def plan(b, hq, hkv, sq, skv, d, causal, dtype=torch.bfloat16, jit=False, device=H100, sm=SM):
    return evotune_torch.plan(b, hq, hkv, sq, skv, d, causal, dtype, device_name=device, sm=sm, jit=jit)


class WithoutAGpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if torch.cuda.is_available():
            raise unittest.SkipTest("this machine has a GPU: tests/python/test_evotune_torch_gpu.py runs there")

    def test_available_says_why_not(self):
        ok, why = evotune_torch.available()
        self.assertFalse(ok)
        self.assertIn("no CUDA device", why)

    def test_cpu_tensors_are_refused(self):
        q = torch.zeros(1, 2, 8, 64, dtype=torch.float16)
        with self.assertRaisesRegex(ValueError, "needs CUDA tensors; q is on cpu"):
            evotune_torch.attention(q, q, q)

    def test_wrong_dtype_is_a_type_error(self):
        q = torch.zeros(1, 2, 8, 64, dtype=torch.float32)
        with self.assertRaisesRegex(TypeError, "float16 or bfloat16, got torch.float32"):
            evotune_torch.attention(q, q, q)
        h = torch.zeros(1, 2, 8, 64, dtype=torch.float16)
        with self.assertRaisesRegex(TypeError, "share a dtype"):
            evotune_torch.attention(h, h.bfloat16(), h)

    def test_bad_shapes_are_value_errors(self):
        q = torch.zeros(1, 6, 8, 64, dtype=torch.float16)
        kv = torch.zeros(1, 4, 8, 64, dtype=torch.float16)
        with self.assertRaisesRegex(ValueError, r"multiple of key/value heads \(4\)"):
            evotune_torch.attention(q, kv, kv)
        with self.assertRaisesRegex(ValueError, "4-D"):
            evotune_torch.attention(q[0], kv, kv)
        long_q = torch.zeros(1, 4, 16, 64, dtype=torch.float16)
        with self.assertRaisesRegex(ValueError, r"more queries \(16\) than keys \(8\)"):
            evotune_torch.attention(long_q, kv, kv)
        with self.assertRaisesRegex(ValueError, "same shape"):
            evotune_torch.attention(kv, kv, kv[:, :, :4])

    def test_plan_needs_a_device_or_its_name(self):
        with self.assertRaisesRegex(evotune_torch.EvotuneError, "pass device_name and sm"):
            evotune_torch.plan(1, 8, 8, 512, 512, 64)

    def test_the_library_loads_without_a_gpu_and_nvrtc_stays_unloaded(self):
        self.assertTrue(evotune_torch.library_path().is_file())
        self.assertFalse(evotune_torch.nvrtc_loaded())


class TheCommittedTable(unittest.TestCase):
    """The table libevotune_capi.so embeds (examples/tuned_attention.h): seven H100 searches."""

    def test_seven_h100_entries_each_with_a_cubin(self):
        t = evotune_torch.table()
        self.assertEqual(t["max_distance"], 3.0)
        self.assertEqual(t["decode_max_queries"], 16)
        problems = sorted(e["problem"] for e in t["entries"])
        self.assertEqual(len(problems), 7)
        self.assertIn("b=2,hq=32,hkv=8,sq=2048,skv=2048,d=128,causal=1,dtype=bf16", problems)
        self.assertIn("b=2,hq=32,hkv=8,sq=1,skv=2112,d=128,causal=0,dtype=bf16", problems)
        for e in t["entries"]:
            self.assertEqual((e["device"], e["sm"], e["target"]), (H100, SM, "sm_90a"))
            self.assertGreater(e["cubin_bytes"], 10000)
            self.assertTrue(e["kernel"].startswith("_Z"), e["kernel"])
            self.assertEqual(e["decode"], ",sq=1," in e["problem"])

    def test_the_lookup_contract(self):
        # The exact problem.
        p = plan(2, 32, 8, 2048, 2048, 128, True)
        self.assertEqual((p["source"], p["match"], p["distance"]), ("table", "exact", 0.0))
        # The same problem on a sibling GPU of the family.
        self.assertEqual(plan(2, 32, 8, 2048, 2048, 128, True, device="NVIDIA H100 PCIe")["match"], "same_family")
        # A KV-cache prefill near the LLaMA prefill: 2 away (a quarter of the queries).
        p = plan(2, 32, 8, 512, 2048, 128, True)
        self.assertEqual((p["match"], p["distance"]), ("nearest_problem", 2.0))
        self.assertEqual(p["entry_problem"], "b=2,hq=32,hkv=8,sq=2048,skv=2048,d=128,causal=1,dtype=bf16")
        # Every decode step of the LLaMA run finds the decode entry; causal or not, one query is unmasked.
        for skv in (2049, 2112, 2176):
            for causal in (False, True):
                p = plan(2, 32, 8, 1, skv, 128, causal)
                self.assertEqual(p["entry_problem"], "b=2,hq=32,hkv=8,sq=1,skv=2112,d=128,causal=0,dtype=bf16")
        # Decode and prefill never stand in for each other: 17 queries is prefill, and no prefill entry is near.
        self.assertEqual(plan(2, 32, 8, 17, 2112, 128, False)["source"], "none")
        # Another dtype, head dim, masking or family: none.
        self.assertEqual(plan(2, 32, 8, 2048, 2048, 128, True, dtype=torch.float16)["source"], "none")
        self.assertEqual(plan(2, 32, 8, 2048, 2048, 64, True, dtype=torch.bfloat16)["source"], "none")
        self.assertEqual(plan(2, 32, 8, 2048, 2048, 128, False)["source"], "none")
        self.assertEqual(plan(2, 32, 8, 2048, 2048, 128, True, device="NVIDIA A100-SXM4-80GB", sm=80)["source"],
                         "none")
        # Beyond the distance: 16x fewer queries and keys.
        self.assertEqual(plan(2, 32, 8, 128, 128, 128, True)["source"], "none")
        # With JIT allowed, an uncovered shape runs the problem-aware default.
        p = plan(4, 8, 8, 1, 1000, 64, False, dtype=torch.float16, jit=True)
        self.assertEqual((p["source"], p["entry"], p["config"]), ("jit_default", None, None))

    def test_a_malformed_shape_is_a_value_error(self):
        with self.assertRaisesRegex(ValueError, "multiple"):
            plan(1, 6, 4, 8, 8, 64, False)
        with self.assertRaisesRegex(ValueError, "d"):
            plan(1, 4, 4, 8, 8, 96, False)

    def test_sizes_beyond_a_c_int_are_value_errors_naming_the_field(self):
        # 2^32 + 2 would reach the library as 2 through ctypes' c_int.
        for field, args in (("b", (2**32 + 2, 32, 8, 2048, 2048, 128)), ("hq", (2, 2**31, 8, 2048, 2048, 128)),
                            ("hkv", (2, 32, 0, 2048, 2048, 128)), ("sq", (2, 32, 8, -2048, 2048, 128)),
                            ("skv", (2, 32, 8, 2048, 2**63, 128)), ("d", (2, 32, 8, 2048, 2048, 2**32 + 128))):
            with self.assertRaisesRegex(ValueError, rf"\b{field}=-?\d+ is outside 1\.\.2147483647"):
                plan(*args, True)
        self.assertEqual(plan(2, 32, 8, 2048, 2048, 128, True)["match"], "exact")
        with self.assertRaisesRegex(TypeError, "b must be an integer, got float"):
            plan(2.5, 32, 8, 2048, 2048, 128, True)

    def test_device_name_and_sm_of_the_wrong_type_are_type_errors(self):
        with self.assertRaisesRegex(TypeError, "device_name must be a str, got int"):
            plan(2, 32, 8, 2048, 2048, 128, True, device=5)
        with self.assertRaisesRegex(TypeError, "sm must be an int"):
            plan(2, 32, 8, 2048, 2048, 128, True, sm="90")
        with self.assertRaisesRegex(TypeError, "sm must be an int"):
            plan(2, 32, 8, 2048, 2048, 128, True, sm=9.0)
        with self.assertRaisesRegex(ValueError, r"sm=4294967386 is outside"):
            plan(2, 32, 8, 2048, 2048, 128, True, sm=2**32 + 90)

    def test_asking_never_loads_nvrtc(self):
        plan(4, 8, 8, 1, 1000, 64, False, dtype=torch.float16, jit=True)
        evotune_torch.table()
        self.assertFalse(evotune_torch.nvrtc_loaded())


class Registration(unittest.TestCase):
    def test_the_op_is_registered_with_torch_library(self):
        self.assertTrue(hasattr(torch.ops.evotune, "attention"))
        self.assertTrue(hasattr(torch.ops.evotune, "attention_lse"))

    def test_the_fake_implementation_gives_the_output_shape(self):
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode():
            q = torch.empty(2, 32, 7, 128, dtype=torch.bfloat16, device="cuda")
            kv = torch.empty(2, 8, 300, 128, dtype=torch.bfloat16, device="cuda")
            out = torch.ops.evotune.attention(q, kv, kv, True, 0.0, False)
            o, lse = torch.ops.evotune.attention_lse(q, kv, kv, True, 0.0, False)
        self.assertEqual((tuple(out.shape), out.dtype), ((2, 32, 7, 128), torch.bfloat16))
        self.assertEqual((tuple(lse.shape), lse.dtype), ((2, 32, 7), torch.float32))


class Layouts(unittest.TestCase):
    """Which tensors the op hands to the kernels where they are (CPU tensors stand in: only strides, extents and
    the pointer's alignment matter), and that the fake output keeps Q's memory order as the real one does."""

    def test_bshd_views_and_cache_slices_are_read_in_place(self):
        q = torch.empty(2, 2048, 32, 128, dtype=torch.bfloat16).transpose(1, 2)  # a model's projection
        self.assertFalse(q.is_contiguous())
        self.assertTrue(evotune_torch._in_place(q))
        self.assertTrue(evotune_torch._in_place(torch.empty(2, 32, 2048, 128, dtype=torch.float16)))
        cache = torch.empty(2, 8, 4096, 128, dtype=torch.bfloat16)
        self.assertTrue(evotune_torch._in_place(cache[:, :, :2049]))
        decode_q = torch.empty(2, 1, 32, 128, dtype=torch.bfloat16).transpose(1, 2)
        self.assertTrue(evotune_torch._in_place(decode_q))

    def test_layouts_the_kernels_cannot_take_are_copied(self):
        q = torch.empty(2, 32, 64, 128, dtype=torch.float16)
        self.assertFalse(evotune_torch._in_place(q.transpose(2, 3).contiguous().transpose(2, 3)))  # columns strided
        self.assertFalse(evotune_torch._in_place(torch.empty(2, 32, 64, 132, dtype=torch.float16)[..., :128]))
        flat = torch.arange(2 * 32 * 64 * 128 + 4, dtype=torch.float32).to(torch.float16)
        misaligned = flat[4:].view(2, 32, 64, 128)  # 8 bytes past a 16-byte boundary
        self.assertTrue(misaligned.is_contiguous())
        self.assertFalse(evotune_torch._in_place(misaligned))
        copy = evotune_torch._dense(misaligned)
        self.assertTrue(copy.is_contiguous() and copy.data_ptr() % 16 == 0 and torch.equal(copy, misaligned))
        # A broadcast (expand()ed) head dimension: stride 0, copied.
        self.assertFalse(evotune_torch._in_place(torch.empty(2, 1, 64, 128, dtype=torch.float16).expand(2, 8, 64, 128)))
        # A position stride of 2^23 elements or more: beyond the kernels' 32-bit row offsets.
        huge = torch.empty((1 << 23) + 128, dtype=torch.float16).as_strided((1, 1, 2, 128), (0, 0, 1 << 23, 1))
        self.assertFalse(evotune_torch._in_place(huge))

    def test_the_fake_output_keeps_the_memory_order_of_q(self):
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode():
            q = torch.empty(2, 2048, 32, 128, dtype=torch.bfloat16, device="cuda").transpose(1, 2)
            kv = torch.empty(2, 8, 2048, 128, dtype=torch.bfloat16, device="cuda")
            out = torch.ops.evotune.attention(q, kv, kv, True, 0.0, False)
        self.assertEqual(out.stride(), q.stride())


class TransformersMasks(unittest.TestCase):
    """causality_alone decides from transformers' mask arguments alone (no tensor read) when a mask is
    causality alone, aligned bottom-right: then evotune needs none, also under CUDA graph capture."""

    @staticmethod
    def causal(batch, head, q, kv):  # stands in for transformers.masking_utils.causal_mask_function
        return kv <= q

    def arguments(self, **changes):
        a = {"batch_size": 2, "q_length": 1, "kv_length": 2049, "q_offset": 2048, "kv_offset": 0,
             "mask_function": self.causal, "attention_mask": None, "allow_is_causal_skip": True}
        a.update(changes)
        return a

    def test_causality_alone(self):
        for name, a in (("a decode step", self.arguments()),
                        ("a prefill", self.arguments(q_length=2048, kv_length=2048, q_offset=0)),
                        ("a prefill extending a cache",
                         self.arguments(q_length=512, kv_length=2048, q_offset=1536))):
            with self.subTest(name):
                self.assertTrue(evotune_torch.causality_alone(a, self.causal))

    def test_anything_else_is_left_to_the_mask(self):
        for name, a in (
                ("a padding mask", self.arguments(attention_mask=torch.ones(2, 2049, dtype=torch.bool))),
                ("another mask function", self.arguments(mask_function=lambda b, h, q, kv: kv <= q)),
                ("a sliding window", self.arguments(local_size=1024)),
                ("a skip transformers forbids", self.arguments(allow_is_causal_skip=False)),
                ("a static cache longer than the queries reach", self.arguments(kv_length=4096)),
                ("a static cache's offset tensor", self.arguments(q_offset=torch.tensor(2048))),
                ("a sliding cache's offset", self.arguments(kv_offset=8)),
                ("no sizes", {"mask_function": self.causal})):
            with self.subTest(name):
                self.assertFalse(evotune_torch.causality_alone(a, self.causal))


class WithoutTheLibrary(unittest.TestCase):
    def test_a_missing_library_is_a_clear_error(self):
        import subprocess

        code = ("import sys; sys.path.insert(0, sys.argv[1]); import evotune_torch\n"
                "try:\n    evotune_torch.table()\nexcept evotune_torch.EvotuneError as e:\n    print(e)\n")
        env = dict(os.environ, EVOTUNE_CAPI_LIBRARY="/nonexistent/libevotune_capi.so")
        r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parents[2] / "python")],
                           env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("libevotune_capi.so not found: tried /nonexistent/libevotune_capi.so (no such file)", r.stdout)


if __name__ == "__main__":
    unittest.main()
