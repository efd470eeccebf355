#pragma once
// Kernel arguments of the attention family, shared by the host (C++) and the kernels (NVRTC): only
// fixed-size scalars and pointers, so both compilers lay the struct out identically.

struct AttentionParams {
  const void* q;  // [b, hq, sq, d]   fp16 or bf16, contiguous (BHSD)
  const void* k;  // [b, hkv, skv, d]
  const void* v;  // [b, hkv, skv, d]
  void* o;        // [b, hq, sq, d]
  float* lse;     // [b, hq, sq] natural-log log-sum-exp of the scaled scores, or null
  unsigned long long* cta_cycles;  // clock64 cycles per CTA (kernels built with EVOTUNE_CTA_CLOCK), or null
  int b, hq, hkv, sq, skv;
  float softmax_scale;  // multiplies Q.K before the softmax; usually 1/sqrt(d)
};
