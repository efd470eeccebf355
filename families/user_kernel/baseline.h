#pragma once
// A spec's [baseline]: the library kernel to beat, timed by the user's own program (docs/kernel-spec.md,
// "The baseline command"), run from the spec's directory with the problem's sizes substituted. Its last
// line of standard output is one JSON object: {"median_us": 123.4}, optionally "max_abs_error", "what",
// "p10_us", "p90_us".
#include <cstdint>
#include <string>
#include <vector>

#include "families/user_kernel/spec.h"
#include "harness/family.h"

namespace evotune::user_kernel {

// The command's words for a problem on a device: {device}, {batch} and the sizes substituted.
std::vector<std::string> baseline_command(const Spec& spec, const std::vector<std::int64_t>& sizes, int device, int batch);

// The record of a command's standard output (its last non-empty line), with TFLOP/s and GB/s from the
// spec's metrics (0: none). Throws std::runtime_error with a one-line reason for output it cannot read.
evidence::BaselineRecord baseline_record(const SpecBaseline& baseline, const std::string& output, double flops,
                                         double bytes);

// Runs the command (a child process, killed at the spec's timeout); `unavailable` says why there is no
// record.
harness::Family::LibraryBaselines run_baseline(const Spec& spec, const std::vector<std::int64_t>& sizes, int device,
                                               int batch, double flops, double bytes);

}  // namespace evotune::user_kernel
