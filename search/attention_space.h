#pragma once
// The attention family's search space for one problem on one device (or target): its tunables, valid
// when the family's rules accept them against the device limits.
#include "search/space.h"
#include "templates/attention/attention_family.h"

namespace evotune::search {

inline SearchSpace attention_search_space(const attention::Problem& problem, const DeviceLimits& limits) {
  return SearchSpace(attention::parameters(), [problem, limits](const Config& c) {
    return !attention::invalid_reason(c, problem, limits).has_value();
  });
}

}  // namespace evotune::search
