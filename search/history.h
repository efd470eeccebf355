#pragma once
// Historical solutions for a search: the best config of every earlier run of the same family in the
// evidence database, nearest problem (and same device) first, as seeds for evo's first generation.
//
// "Near" is the family's distance between problems plus a fixed penalty for another device. The same
// problem on the same device is 0. A seed the new space rejects (a tile that does not fit the new
// problem, say) is skipped.
#include <string>
#include <vector>

#include "evidence/store.h"
#include "search/space.h"
#include "harness/family.h"

namespace evotune::search {

struct HistoricalSeed {
  Config config;
  std::int64_t run_id = 0;
  std::string problem, device;
  double distance = 0;
};

// At most `max` distinct configs valid in `space`, nearest first (ties: the faster run's best first).
std::vector<HistoricalSeed> historical_seeds(const evidence::Store& store, const harness::Family& family,
                                             const harness::FamilyProblem& problem, const std::string& device,
                                             const SearchSpace& space, int max);

}  // namespace evotune::search
