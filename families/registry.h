#pragma once
// The families evotune knows, by id. Built-in families are listed once in families/registry.cpp (one line
// each); a user's kernel is a family read from its spec file (families/user_kernel). Tests may add their own.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/family.h"

namespace evotune::families {

struct FamilyInfo {
  std::string name;  // --family's value
  std::string description;
  std::function<std::unique_ptr<harness::Family>()> make;
};

// Every registered family, built-ins first, in registration order.
const std::vector<FamilyInfo>& registered();
// Adds a family (tests' toy families); a second family of the same name throws std::logic_error.
void register_family(FamilyInfo info);

// The family a command names: --kernel SPEC opens a user's kernel (family "user_kernel"), else --family
// NAME a registered one. Throws UsageError for an unknown name (with the nearest known one), a spec that
// does not read, or both given with a family other than user_kernel.
std::unique_ptr<harness::Family> open_family(std::string_view family_name, const std::string& kernel_spec);

// The family of a recorded run (runs.family): "attention", or "user_kernel:<name>" with the spec's path
// from the run's options. Throws UsageError naming what is missing.
std::unique_ptr<harness::Family> open_recorded_family(std::string_view recorded_id, const std::string& kernel_spec);

}  // namespace evotune::families
