#pragma once
// The attention problems an exported config is re-verified on (harness/verification.h): the exact problem
// and a tail shape of it (odd lengths, so no dimension is a multiple of a tile; bottom-right causal with
// sq != skv).
#include <vector>

#include "families/attention/host/problem.h"

namespace evotune::harness {

// The exact problem and its tail shape: batch 1, same heads and head dim, query and key lengths cut by
// odd amounts (4096 -> 4059 queries, 4077 keys), so tiles are partial and causal masks are offset.
std::vector<attention::Problem> verification_problems(const attention::Problem& problem);

}  // namespace evotune::harness
