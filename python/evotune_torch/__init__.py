"""evotune's tuned attention kernels as a PyTorch op.

    import evotune_torch
    out = evotune_torch.attention(q, k, v, causal=True)   # q [b, hq, sq, d], k/v [b, hkv, skv, d]

The kernels are the ones of an exported table (a header written by `evotune export`, embedded in
libevotune_capi.so when it was built), loaded from their CUBINs with the CUDA driver alone: no NVRTC, no
compile at run time. A shape the table does not cover within its lookup contract raises NotCoveredError,
unless JIT is allowed (``jit=True`` or ``EVOTUNE_JIT=1``): then evotune's problem-aware default is compiled
with NVRTC, once per kind of shape.

Why ctypes over a C ABI and not a torch C++ extension: the library has no dependency on PyTorch's C++ ABI,
so one build serves every PyTorch version and the user needs no compiler; only device pointers, a stream
and ints cross the boundary. The op is registered with ``torch.library`` (``torch.ops.evotune.attention``)
with a fake implementation, so ``torch.compile`` traces around it.

The table kernel for a shape is one whose config evotune's rules admit for that shape on this device (an
entry whose packed tiles cannot hold the shape's GQA groups, say, is no match): no call runs outside its
proof. ``EVOTUNE_BOUNDED_WAITS=1`` (read when a stream's kernel is first loaded) compiles check builds with
NVRTC instead, whose barrier waits trap after 4 s: a call that would hang fails with a message.

The library is found at ``$EVOTUNE_CAPI_LIBRARY``, else in the repository's ``build/deploy/`` or
``build-device/deploy/``.
"""

from __future__ import annotations

import ctypes
import json
import math
import operator
import os
import threading
from pathlib import Path

import torch

__all__ = [
    "EvotuneError",
    "NotCoveredError",
    "attention",
    "available",
    "causality_alone",
    "library_path",
    "nvrtc_loaded",
    "plan",
    "register_transformers",
    "table",
]

# The C ABI's status codes (deploy/evotune_capi.h).
_OK, _INVALID_ARGUMENT, _NOT_COVERED, _NO_DEVICE, _FAILED = 0, 1, 2, 3, 4


class EvotuneError(RuntimeError):
    """evotune could not run: no library, no CUDA device, or a compile, load or launch failed."""


class NotCoveredError(EvotuneError):
    """The table has no kernel for this shape within its lookup contract, and JIT was not allowed."""


class _Shape(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in ("b", "hq", "hkv", "sq", "skv", "d", "causal", "bf16")]


class _Layout(ctypes.Structure):
    """evotune_attention_layout: each tensor's (batch, head, position) strides in elements."""
    _fields_ = [(name, ctypes.c_int64 * 3) for name in ("q", "k", "v", "o")]


_REPO = Path(__file__).resolve().parents[2]
_lock = threading.Lock()
_lib = None


def _candidates() -> list[Path]:
    env = os.environ.get("EVOTUNE_CAPI_LIBRARY")
    if env:
        return [Path(env)]
    return [_REPO / "build" / "deploy" / "libevotune_capi.so", _REPO / "build-device" / "deploy" / "libevotune_capi.so"]


def _load():
    global _lib
    if _lib is not None:  # every call after the first: no lock
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            if not path.is_file():
                tried.append(f"{path} (no such file)")
                continue
            try:
                lib = ctypes.CDLL(str(path))
            except OSError as e:
                tried.append(f"{path} ({e})")
                continue
            _declare(lib)
            lib.path = path
            _lib = lib
            return lib
        raise EvotuneError(
            "libevotune_capi.so not found: tried " + "; ".join(tried) +
            ". Build it (cmake --build --preset release --target evotune_capi) or set EVOTUNE_CAPI_LIBRARY.")


def _declare(lib) -> None:
    c_char_p, c_size_t, c_int = ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int
    lib.evotune_attention_forward.argtypes = [
        ctypes.POINTER(_Shape), ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64,
        ctypes.c_void_p, c_int, ctypes.c_float, c_int, c_char_p, c_size_t]
    lib.evotune_attention_forward.restype = c_int
    lib.evotune_attention_forward_strided.argtypes = [
        ctypes.POINTER(_Shape), ctypes.POINTER(_Layout), ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64,
        ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p, c_int, ctypes.c_float, c_int, c_char_p, c_size_t]
    lib.evotune_attention_forward_strided.restype = c_int
    lib.evotune_attention_plan.argtypes = [ctypes.POINTER(_Shape), c_char_p, c_int, c_int, c_char_p, c_size_t,
                                           c_char_p, c_size_t]
    lib.evotune_attention_plan.restype = c_int
    lib.evotune_table.argtypes = [c_char_p, c_size_t, c_char_p, c_size_t]
    lib.evotune_table.restype = c_int
    lib.evotune_nvrtc_loaded.argtypes = []
    lib.evotune_nvrtc_loaded.restype = c_int
    lib.evotune_version.argtypes = []
    lib.evotune_version.restype = c_char_p


def _raise_for(status: int, message: str) -> None:
    if status == _OK:
        return
    if status == _INVALID_ARGUMENT:
        raise ValueError(f"evotune_torch: {message}")
    if status == _NOT_COVERED:
        raise NotCoveredError(f"evotune_torch: {message} (pass jit=True or set EVOTUNE_JIT=1)")
    raise EvotuneError(f"evotune_torch: {message}")


def _json_call(fn, *args) -> dict:
    size = 1 << 16
    while True:
        out, err = ctypes.create_string_buffer(size), ctypes.create_string_buffer(1024)
        status = fn(*args, out, size, err, len(err))
        message = err.value.decode(errors="replace")
        if status == _INVALID_ARGUMENT and "needs a buffer of" in message:
            size = int(message.rsplit(" ", 2)[-2]) + 1
            continue
        _raise_for(status, message)
        return json.loads(out.value.decode())


def library_path() -> Path:
    """The libevotune_capi.so this package uses (loading it if needed)."""
    return _load().path


def available() -> tuple[bool, str]:
    """Whether attention() can run here, and if not, why."""
    try:
        _load()
    except EvotuneError as e:
        return False, str(e)
    if not torch.cuda.is_available():
        return False, "no CUDA device is available to PyTorch"
    return True, ""


def table() -> dict:
    """The table the library was built with: {"evotune_version", "max_distance", "entries": [...]}."""
    lib = _load()
    return _json_call(lib.evotune_table)


def nvrtc_loaded() -> bool:
    """True once a JIT compile has loaded NVRTC into this process; table kernels never do."""
    return bool(_load().evotune_nvrtc_loaded())


_C_INT_MAX = 2**31 - 1


def _size(name: str, value) -> int:
    """A size for the C struct: an integer from 1 to 2^31-1 (ctypes would wrap a larger one silently)."""
    if isinstance(value, bool):
        raise TypeError(f"evotune_torch: {name} must be an integer, got a bool")
    try:
        size = operator.index(value)
    except TypeError:
        raise TypeError(f"evotune_torch: {name} must be an integer, got {type(value).__name__}") from None
    if not 1 <= size <= _C_INT_MAX:
        raise ValueError(f"evotune_torch: {name}={size} is outside 1..{_C_INT_MAX}")
    return size


def _shape(b, hq, hkv, sq, skv, d, causal, bf16) -> _Shape:
    sizes = [_size(name, value) for name, value in (("b", b), ("hq", hq), ("hkv", hkv), ("sq", sq), ("skv", skv),
                                                    ("d", d))]
    return _Shape(*sizes, int(bool(causal)), int(bool(bf16)))


def plan(b: int, hq: int, hkv: int, sq: int, skv: int, d: int, causal: bool = False, dtype=torch.float16,
         device_name: str | None = None, sm: int | None = None, jit: bool = False) -> dict:
    """What attention() would run for this shape: {"source": "table" | "jit_default" | "none", "match",
    "distance", "entry", "entry_problem", "config"}. Without device_name and sm, those of CUDA device 0."""
    if device_name is not None and not isinstance(device_name, str):
        raise TypeError(f"evotune_torch.plan: device_name must be a str, got {type(device_name).__name__}")
    if sm is not None and (isinstance(sm, bool) or not isinstance(sm, int)):
        raise TypeError(f"evotune_torch.plan: sm must be an int (e.g. 90), got {type(sm).__name__}")
    if sm is not None and not 1 <= sm <= _C_INT_MAX:
        raise ValueError(f"evotune_torch.plan: sm={sm} is outside 1..{_C_INT_MAX}")
    if device_name is None or sm is None:
        if not torch.cuda.is_available():
            raise EvotuneError("evotune_torch.plan: no CUDA device; pass device_name and sm (e.g. 90)")
        props = torch.cuda.get_device_properties(0)
        device_name = device_name or props.name
        sm = sm if sm is not None else props.major * 10 + props.minor
    if dtype not in (torch.float16, torch.bfloat16):
        raise TypeError(f"evotune_torch.plan: dtype must be torch.float16 or torch.bfloat16, got {dtype}")
    lib = _load()
    shape = _shape(b, hq, hkv, sq, skv, d, causal, dtype == torch.bfloat16)
    return _json_call(lib.evotune_attention_plan, ctypes.byref(shape), device_name.encode(), int(sm), int(jit))


def _jit_default() -> bool:
    return os.environ.get("EVOTUNE_JIT", "0") == "1"


_DTYPES = (torch.float16, torch.bfloat16)


def _check(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    # The common case in as few steps as possible: a decode step calls this once per layer, on the host's
    # critical path. Anything else goes to _explain, which raises with the reason.
    try:
        ok = (q.dtype in _DTYPES and k.dtype is q.dtype and v.dtype is q.dtype and q.dim() == 4 and k.dim() == 4
              and k.shape == v.shape and q.is_cuda and q.device == k.device == v.device)
    except AttributeError:
        ok = False
    if ok:
        b, hq, sq, d = q.shape
        bk, hkv, skv, dk = k.shape
        if bk == b and dk == d and hkv != 0 and hq % hkv == 0 and sq <= skv:
            return
    _explain(q, k, v)


def _explain(q, k, v) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"evotune_torch.attention: {name} must be a torch.Tensor, got {type(t).__name__}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dtype not in _DTYPES:
            raise TypeError(f"evotune_torch.attention: {name} must be float16 or bfloat16, got {t.dtype}")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"evotune_torch.attention: q, k, v must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 4:
            raise ValueError(f"evotune_torch.attention: {name} must be 4-D [batch, heads, seq, head_dim] (BHSD), "
                             f"got shape {tuple(t.shape)}")
    b, hq, sq, d = q.shape
    if k.shape != v.shape:
        raise ValueError(f"evotune_torch.attention: k and v must have the same shape, got {tuple(k.shape)} and "
                         f"{tuple(v.shape)}")
    bk, hkv, skv, dk = k.shape
    if bk != b or dk != d:
        raise ValueError(f"evotune_torch.attention: k/v {tuple(k.shape)} do not match q {tuple(q.shape)} in batch "
                         "or head_dim")
    if hkv == 0 or hq % hkv != 0:
        raise ValueError(f"evotune_torch.attention: query heads ({hq}) must be a multiple of key/value heads ({hkv})")
    if sq > skv:
        raise ValueError(f"evotune_torch.attention: more queries ({sq}) than keys ({skv}); for a KV cache sq <= skv")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.device.type != "cuda":
            raise ValueError(f"evotune_torch.attention needs CUDA tensors; {name} is on {t.device}")
    if not (q.device == k.device == v.device):
        raise ValueError(f"evotune_torch.attention: q, k, v are on different devices: {q.device}, {k.device}, {v.device}")
    raise AssertionError(f"evotune_torch.attention: no check failed for {q}, {k}, {v}")  # _check's twin


def _in_place(t: torch.Tensor) -> bool:
    """Whether the kernels can read (or write) t where it is: rows of head_dim contiguous elements, the other
    strides positive multiples of 8 elements (16 bytes) wherever the extent is above 1 (an expand()ed
    dimension is copied), the position stride below 2^23
    elements, a 16-byte aligned pointer. A BSHD tensor viewed as BHSD (what a model's projection and RoPE give)
    qualifies."""
    s, n = t.stride(), t.shape
    return (s[3] == 1 and t.data_ptr() % 16 == 0 and (n[0] == 1 or (s[0] > 0 and s[0] % 8 == 0))
            and (n[1] == 1 or (s[1] > 0 and s[1] % 8 == 0)) and (n[2] == 1 or (0 < s[2] < 1 << 23 and s[2] % 8 == 0)))


_local = threading.local()

# The current stream's handle without building a torch.cuda.Stream object per call (PyTorch's own fast path;
# the public API where it is absent).
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
    lambda index: torch.cuda.current_stream(index).cuda_stream)


def _error_buffer():
    """A per-thread message buffer for the C calls (allocated once, not per call)."""
    buffer = getattr(_local, "error", None)
    if buffer is None:
        buffer = _local.error = ctypes.create_string_buffer(1024)
    return buffer


_shapes: dict = {}


def _shape_of(b, hq, hkv, sq, skv, d, causal, bf16) -> _Shape:
    """The C struct of a shape, built once per shape (a decode step's layers share one)."""
    key = (b, hq, hkv, sq, skv, d, causal, bf16)
    shape = _shapes.get(key)
    if shape is None:
        if len(_shapes) >= 4096:
            _shapes.clear()
        shape = _shapes[key] = _shape(*key)
    return shape


def _dense(t: torch.Tensor) -> torch.Tensor:
    """A dense BHSD copy in a fresh (aligned) allocation; contiguous() would keep a misaligned tensor as it is."""
    return t.clone(memory_format=torch.contiguous_format)


def _forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float, jit: bool,
             with_lse: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
    """q, k, v as the caller gave them: read in place where the kernels can (_in_place), else copied dense.
    The output is empty_like(q), in q's memory order (the register_fake's too): for the BSHD Q of a model, a
    BSHD output, whose transpose back to [b, s, h, d] is then free. Written for the host's time: a decode step
    calls it once per layer."""
    lib = _lib if _lib is not None else _load()
    b, hq, sq, d = q.shape
    hkv, skv = k.shape[1], k.shape[2]
    out = torch.empty_like(q)
    lse = torch.empty((b, hq, sq), dtype=torch.float32, device=q.device) if with_lse else None
    if out.numel() == 0:
        return out, lse
    shape = _shape_of(b, hq, hkv, sq, skv, d, causal, q.dtype is torch.bfloat16)
    device = q.get_device()
    stream = _raw_stream(device)
    err = _error_buffer()
    lse_pointer = lse.data_ptr() if lse is not None else 0
    pointers = (q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr())
    if (not (pointers[0] | pointers[1] | pointers[2] | pointers[3]) & 15 and q.is_contiguous() and k.is_contiguous()
            and v.is_contiguous() and out.is_contiguous()):
        status = lib.evotune_attention_forward(shape, *pointers, lse_pointer, stream, device, scale, jit, err, 1024)
    else:
        q, k, v = (t if _in_place(t) else _dense(t) for t in (q, k, v))
        result = out if _in_place(out) else torch.empty((b, hq, sq, d), dtype=q.dtype, device=q.device)
        layout = _Layout(*((ctypes.c_int64 * 3)(*t.stride()[:3]) for t in (q, k, v, result)))
        status = lib.evotune_attention_forward_strided(
            shape, ctypes.byref(layout), q.data_ptr(), k.data_ptr(), v.data_ptr(), result.data_ptr(), lse_pointer,
            stream, device, scale, jit, err, 1024)
        if status == _OK and result is not out:
            out.copy_(result)
    if status != _OK:
        _raise_for(status, err.value.decode(errors="replace"))
    return out, lse


@torch.library.custom_op("evotune::attention", mutates_args=(), device_types="cuda")
def _attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float,
                  jit: bool) -> torch.Tensor:
    return _forward(q, k, v, causal, scale, jit, with_lse=False)[0]


@_attention_op.register_fake
def _(q, k, v, causal, scale, jit):
    return torch.empty_like(q)


@torch.library.custom_op("evotune::attention_lse", mutates_args=(), device_types="cuda")
def _attention_lse_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float,
                      jit: bool) -> tuple[torch.Tensor, torch.Tensor]:
    return _forward(q, k, v, causal, scale, jit, with_lse=True)


@_attention_lse_op.register_fake
def _(q, k, v, causal, scale, jit):
    return torch.empty_like(q), q.new_empty((q.shape[0], q.shape[1], q.shape[2]), dtype=torch.float32)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False, scale: float | None = None,
              jit: bool | None = None, return_lse: bool = False):
    """Attention forward, softmax(q k^T * scale) v, on PyTorch's current stream.

    q: [b, hq, sq, d]; k, v: [b, hkv, skv, d] (BHSD), float16 or bfloat16, CUDA, hq a multiple of hkv (GQA/MQA),
    sq <= skv (a KV cache: the queries are the last sq positions). causal masks bottom-right aligned (query i
    sees keys 0 .. i + skv - sq), as a KV cache needs. scale defaults to 1/sqrt(d). Strided inputs whose rows
    (head_dim elements) are contiguous and 16-byte aligned, such as the BSHD views a model's projections give,
    are read in place; others are copied dense first. The output has q's memory order. jit: allow an NVRTC
    compile of evotune's default for a shape the table does not cover (default: $EVOTUNE_JIT == "1").
    return_lse: also return the fp32 log-sum-exp [b, hq, sq] of the scaled scores.

    CUDA graphs: a call can be captured (torch.cuda.graph) once a call of the same shape ran on the capturing
    stream (the kernel is loaded, and its workspace allocated, per stream on its first call there; a first
    call during capture raises EvotuneError). Warm up on the stream you capture on: torch.cuda.graph(g,
    stream=s) after a call under torch.cuda.stream(s).

    Raises TypeError (dtype), ValueError (layout, shapes, device), NotCoveredError (no table kernel, JIT off),
    EvotuneError (no library or device, a failed load or launch).
    """
    _check(q, k, v)
    if (q.requires_grad or k.requires_grad or v.requires_grad) and torch.is_grad_enabled():
        raise ValueError("evotune_torch.attention is forward only (inference): call it under torch.no_grad() or "
                         "with inputs that do not require grad")
    if scale is None:
        scale = 0.0
    else:
        scale = float(scale)
        if not math.isfinite(scale):
            raise ValueError(f"evotune_torch.attention: scale must be finite, got {scale}")
    jit = _jit_default() if jit is None else bool(jit)
    if torch.compiler.is_compiling():  # traced: the registered op, which torch.compile sees through its fake
        if return_lse:
            return torch.ops.evotune.attention_lse(q, k, v, bool(causal), scale, jit)
        return torch.ops.evotune.attention(q, k, v, bool(causal), scale, jit)
    # Eager: straight to the kernel. Through the op dispatcher the result is the same, with its dispatch
    # added to every call, which a host-bound decode step (one call per layer) pays in full.
    out, lse = _forward(q, k, v, bool(causal), scale, jit, with_lse=return_lse)
    return (out, lse) if return_lse else out


def causality_alone(mask_arguments: dict, causal_mask_function) -> bool:
    """Whether transformers' mask arguments (the keywords its mask interface is called with) describe
    causality alone, aligned bottom-right as evotune's causal is: no padding mask, transformers' plain causal
    mask function (causal_mask_function, passed in so this needs no transformers import), no local window, a
    skip transformers allows (it forbids one for a compileable cache's decode), and the queries the last
    q_length of all kv_length positions. Decided from the arguments alone: no tensor is read, so no host
    sync, and it holds under CUDA graph capture, where transformers spells out every mask because it cannot
    look at a padding mask there (here there is none)."""
    a = mask_arguments
    sizes = (a.get("q_offset", 0), a.get("q_length"), a.get("kv_length"), a.get("kv_offset", 0))
    if not all(type(n) is int for n in sizes):  # a static cache's offset is a tensor: not decided here
        return False
    q_offset, q_length, kv_length, kv_offset = sizes
    return (a.get("attention_mask") is None
            and a.get("mask_function", causal_mask_function) is causal_mask_function
            and a.get("local_size") is None and a.get("allow_is_causal_skip", True) is True
            and kv_offset == 0 and q_offset + q_length == kv_length)


def register_transformers(name: str = "evotune", jit: bool | None = None) -> str:
    """Registers evotune as an attention implementation of Hugging Face transformers, under `name`: load or
    configure a model with attn_implementation=name (or set model.config._attn_implementation = name).

    evotune runs causal attention (aligned bottom-right, as a KV cache needs) or full attention, nothing else.
    The mask function registered with it gives no mask when causality alone describes the attention: a
    prefill of equal-length sequences, a decode step, and a prefill that extends a KV cache (sq < skv). Any
    other mask (padding, a sliding window, packed sequences) reaches the attention function, which raises
    ValueError rather than ignore it. Returns the name.
    """
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, causal_mask_function, sdpa_mask

    def evotune_mask(*args, **kwargs):
        if not args and causality_alone(kwargs, causal_mask_function):
            return None
        mask = sdpa_mask(*args, **kwargs)
        if mask is None or mask.dtype != torch.bool or torch.compiler.is_compiling():
            return mask
        # Arguments causality_alone cannot vouch for (a padding mask that may be all ones, another calling
        # convention): the mask itself, compared with the causal one. One comparison per model call, on the
        # host (a sync), and only where SDPA would have needed a mask.
        sq, skv = mask.shape[-2:]
        causal = torch.ones(sq, skv, dtype=torch.bool, device=mask.device).tril(skv - sq)
        return None if torch.equal(mask, causal.expand_as(mask)) else mask

    def evotune_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, is_causal=None,
                          **kwargs):
        if attention_mask is not None:
            raise ValueError("evotune attention: a mask that causality alone does not describe (padding, a sliding "
                             "window, packed sequences) is not supported; evotune runs causal or full attention")
        if dropout:
            raise ValueError("evotune attention: dropout is not supported (inference only)")
        causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
        out = attention(query, key, value, causal=bool(causal) and query.shape[2] > 1, scale=scaling, jit=jit)
        return out.transpose(1, 2).contiguous(), None

    AttentionInterface.register(name, evotune_attention)
    AttentionMaskInterface.register(name, evotune_mask)
    return name
