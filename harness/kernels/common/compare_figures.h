#pragma once
// What the GPU comparison of an output with its fp32 reference reduces to (common/compare.cuh): a few
// numbers instead of the whole tensor, so only these cross to the host. Shared by the host (C++) and
// the kernels (NVRTC): fixed-size fields only, so both compilers lay the struct out identically.

struct CompareFigures {
  double max_abs_diff;             // max |out - ref| over the finite outputs
  double sum_sq_diff;              // sum of (out - ref)^2 over the finite outputs
  double sum_sq_ref;               // sum of ref^2 over the same elements
  double max_abs_ref;              // max |ref| over every element
  unsigned long long non_finite;  // outputs that are NaN or +-inf (unwritten, poisoned, overflowed)
};
