#pragma once
// A family's search space for one problem on one device (or target): its tunables, valid when the
// family's rules accept them against the device limits.
#include <fmt/format.h>

#include <string_view>

#include "core/errors.h"
#include "search/space.h"
#include "harness/family.h"

namespace evotune::search {

// default_space: what a search explores unless asked for more: valid configs less those the family
// excludes by default (Family::excluded_by_default: known not to pay). all: every valid config (the space
// of runs recorded before scopes existed).
enum class SpaceScope { default_space, all };

// "default" or "all"; throws UsageError for anything else.
inline SpaceScope parse_space_scope(std::string_view text) {
  if (text == "default") return SpaceScope::default_space;
  if (text == "all") return SpaceScope::all;
  throw UsageError(fmt::format("unknown space '{}' (default, or all)", text));
}
inline const char* space_scope_name(SpaceScope scope) { return scope == SpaceScope::all ? "all" : "default"; }

// `family` must outlive the space.
inline SearchSpace family_search_space(const harness::Family& family, const harness::FamilyProblem& problem,
                                       const DeviceLimits& limits, SpaceScope scope = SpaceScope::default_space) {
  return SearchSpace(
      family.parameters(),
      [&family, problem, limits, scope](const Config& c) {
        if (family.invalid_reason(c, problem, limits)) return false;
        return scope == SpaceScope::all || !family.excluded_by_default(c, problem, limits);
      },
      [&family](const Config& c) { return family.conform(c); });
}

}  // namespace evotune::search
