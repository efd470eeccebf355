#ifndef EVOTUNE_CAPI_H
#define EVOTUNE_CAPI_H
/* evotune's C ABI: the kernels of one exported table (a header written by `evotune export`, chosen when
 * the library is built: CMake's EVOTUNE_TUNED_HEADER), callable from any language. The PyTorch op
 * (python/evotune_torch) calls it through ctypes.
 *
 * Why a plain C ABI rather than a torch C++ extension: a C ABI has no dependency on PyTorch's C++ ABI, so one
 * build of libevotune_capi.so serves every PyTorch version and needs no compiler on the user's machine;
 * the only thing that crosses it is raw device pointers, a stream and ints.
 *
 * Every function is safe to call on a machine with no GPU and no NVRTC: the driver is opened on the first
 * launch, NVRTC only when a call allows JIT and the table does not cover the shape. Functions return one of
 * the EVOTUNE_* codes and write a NUL-terminated message (truncated to fit) into `error` when it is not
 * null. Thread-safe. */
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define EVOTUNE_CAPI __attribute__((visibility("default")))
#else
#define EVOTUNE_CAPI
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
  EVOTUNE_OK = 0,
  EVOTUNE_INVALID_ARGUMENT = 1, /* malformed shape, null pointer, buffer too small */
  EVOTUNE_NOT_COVERED = 2,      /* no table entry within the lookup contract, and JIT was not allowed */
  EVOTUNE_NO_DEVICE = 3,        /* no CUDA driver, no such device */
  EVOTUNE_FAILED = 4            /* a compile, module load or launch failed */
};

/* One attention forward problem: Q and O [b, hq, sq, d], K and V [b, hkv, skv, d] (dense BHSD, or as an
 * evotune_attention_layout gives them), all fp16 or all bf16. hq a multiple of hkv, sq <= skv; causal is
 * aligned bottom-right (query i sees keys 0 .. i + skv - sq), so a single query (sq = 1) with causal set is
 * the same problem as without. */
typedef struct evotune_attention_shape {
  int b, hq, hkv, sq, skv, d;
  int causal;
  int bf16; /* 0: fp16 */
} evotune_attention_shape;

/* Enqueues attention on `stream` (a CUstream / cudaStream_t of device `device`'s primary context, the one
 * the CUDA runtime and PyTorch use; null: the legacy default stream) and returns. `lse` (0: not written) is
 * fp32 [b, hq, sq], the natural-log log-sum-exp of the scaled scores. softmax_scale 0 means 1/sqrt(d).
 * The kernel is the table's entry for the shape (see evotune_attention_plan) whose config evotune's rules
 * admit for this shape on this device, loaded from its embedded
 * CUBIN on first use and kept. With no entry: allow_jit nonzero compiles the problem-aware default with
 * NVRTC (loaded then, not before) and keeps it; allow_jit 0 returns EVOTUNE_NOT_COVERED. Kernels and
 * their workspaces are per stream: a call may be captured into a CUDA graph once the same shape (or one
 * needing no larger workspace) ran on that stream; a first call during capture returns EVOTUNE_FAILED.
 * $EVOTUNE_COMBINE_LAUNCH=plain, read when a stream's kernel is loaded (its first call), launches a split-KV
 * combine kernel after the attention kernel instead of as a programmatic dependent launch (sm_90+).
 * $EVOTUNE_BOUNDED_WAITS=1, read likewise, compiles check builds with NVRTC instead (table configs too): a
 * barrier wait that nothing completes within 4 s traps with a message, so the call fails instead of hanging. */
EVOTUNE_CAPI int evotune_attention_forward(const evotune_attention_shape* shape, uint64_t q, uint64_t k, uint64_t v,
                              uint64_t o, uint64_t lse, void* stream, int device, float softmax_scale,
                              int allow_jit, char* error, size_t error_size);

/* Where the rows of Q, K, V and O are, in elements, each as {batch, head, position} strides: row (batch,
 * head, position) of a tensor starts at batch * s[0] + head * s[1] + position * s[2], and its d elements are
 * contiguous. Every stride a positive multiple of 8 elements (16 bytes), the position stride below 2^23,
 * every pointer 16-byte aligned (else EVOTUNE_INVALID_ARGUMENT); the stride of an extent of 1 is never used.
 * Dense BHSD is {h*s*d, s*d, d}; the BSHD memory a model's projection gives, viewed as [b, h, s, d], is
 * {s*h*d, d, h*d}. */
typedef struct evotune_attention_layout {
  int64_t q[3], k[3], v[3], o[3];
} evotune_attention_layout;

/* evotune_attention_forward on tensors laid out at `layout` (null: dense BHSD, the same call), read and
 * written in place: no copy to or from a dense layout. The LSE stays dense [b, hq, sq]. */
EVOTUNE_CAPI int evotune_attention_forward_strided(const evotune_attention_shape* shape,
                                                   const evotune_attention_layout* layout, uint64_t q, uint64_t k,
                                                   uint64_t v, uint64_t o, uint64_t lse, void* stream, int device,
                                                   float softmax_scale, int allow_jit, char* error,
                                                   size_t error_size);

/* What evotune_attention_forward would run for `shape` on a GPU named `device_name` (the driver's name) of
 * compute capability `sm` (e.g. 90), without touching a GPU: a JSON object written into `json`:
 *   {"source": "table" | "jit_default" | "none", "match": "exact" | "same_family" | "nearest_problem" |
 *    "none", "distance": <number or null>, "entry": <index into evotune_table's entries or null>,
 *    "entry_problem": "<b=..,hq=..,...>" or null, "config": "<config text>" or null}
 * "jit_default" is reported when allow_jit is nonzero and no entry qualifies; its config is null here (the
 * default depends on the device's limits, known at launch). */
EVOTUNE_CAPI int evotune_attention_plan(const evotune_attention_shape* shape, const char* device_name, int sm, int allow_jit,
                           char* json, size_t json_size, char* error, size_t error_size);

/* The table the library was built with, as a JSON object:
 *   {"evotune_version": "...", "max_distance": <the lookup contract's cutoff>, "entries": [{"device": ...,
 *    "sm": 90, "target": "sm_90a", "problem": "b=..,...", "decode": false, "config": "...",
 *    "kernel": "<mangled name>", "cubin_bytes": n, "median_us": x, "library_us": y, "reverified": true}]} */
EVOTUNE_CAPI int evotune_table(char* json, size_t json_size, char* error, size_t error_size);

/* 1 when NVRTC's library is loaded in this process (by a JIT compile), else 0. */
EVOTUNE_CAPI int evotune_nvrtc_loaded(void);

/* evotune's version, e.g. "0.1.0". */
EVOTUNE_CAPI const char* evotune_version(void);

#ifdef __cplusplus
}
#endif

#endif /* EVOTUNE_CAPI_H */
