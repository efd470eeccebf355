#pragma once
// Historical solutions for an attention search: the best config of every earlier attention run in the
// evidence database, nearest problem (and same device) first, as seeds for evo's first generation.
//
// "Near" is a distance between problems: the log2 ratios of the sizes that change the tiling trade-offs
// (batch x heads, query and key lengths), plus fixed penalties for what changes the kernel itself (head
// dim, dtype, causal masking, the GQA group) and for another device. The same problem on the same
// device is 0. A seed the new space rejects (a d=64 tile that does not fit d=128, say) is skipped.
#include <string>
#include <vector>

#include "evidence/store.h"
#include "search/space.h"
#include "templates/attention/problem.h"

namespace evotune::search {

double problem_distance(const attention::Problem& a, const attention::Problem& b);

struct HistoricalSeed {
  Config config;
  std::int64_t run_id = 0;
  std::string problem, device;
  double distance = 0;
};

// At most `max` distinct configs valid in `space`, nearest first (ties: the faster run's best first).
std::vector<HistoricalSeed> attention_historical_seeds(const evidence::Store& store, const attention::Problem& problem,
                                                       const std::string& device, const SearchSpace& space, int max);

}  // namespace evotune::search
