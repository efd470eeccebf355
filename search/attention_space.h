#pragma once
// The attention family's search space for one problem on one device (or target): its tunables, valid
// when the family's rules accept them against the device limits.
#include <fmt/format.h>

#include <string_view>

#include "runtime/errors.h"
#include "search/space.h"
#include "templates/attention/attention_family.h"

namespace evotune::search {

// default_space: what a search explores unless asked for more: valid configs less those the family
// excludes by default (attention::excluded_by_default: scalar where tensor cores exist, configs certain
// to spill). all: every valid config (the space of runs recorded before scopes existed).
enum class SpaceScope { default_space, all };

// "default" or "all"; throws UsageError for anything else.
inline SpaceScope parse_space_scope(std::string_view text) {
  if (text == "default") return SpaceScope::default_space;
  if (text == "all") return SpaceScope::all;
  throw UsageError(fmt::format("unknown space '{}' (default, or all)", text));
}
inline const char* space_scope_name(SpaceScope scope) { return scope == SpaceScope::all ? "all" : "default"; }

inline SearchSpace attention_search_space(const attention::Problem& problem, const DeviceLimits& limits,
                                          SpaceScope scope = SpaceScope::default_space) {
  return SearchSpace(
      attention::parameters(),
      [problem, limits, scope](const Config& c) {
        if (attention::invalid_reason(c, problem, limits)) return false;
        return scope == SpaceScope::all || !attention::excluded_by_default(c, problem, limits);
      },
      attention::conform);
}

}  // namespace evotune::search
