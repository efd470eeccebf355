#include "families/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/edit_distance.h"
#include "core/errors.h"
#include "families/attention/host/family.h"
#include "families/user_kernel/user_kernel_family.h"

namespace evotune::families {
namespace {

std::vector<FamilyInfo>& families() {
  // The built-in families, one line each.
  static std::vector<FamilyInfo> all = {
      {"attention", "attention forward: b,hq,hkv,sq,skv,d,causal,dtype (the default family)", make_attention_family},
  };
  return all;
}

}  // namespace

const std::vector<FamilyInfo>& registered() { return families(); }

void register_family(FamilyInfo info) {
  for (const FamilyInfo& f : families()) {
    if (f.name == info.name) throw std::logic_error(fmt::format("a family named {} is registered already", info.name));
  }
  families().push_back(std::move(info));
}

std::unique_ptr<harness::Family> open_family(std::string_view family_name, const std::string& kernel_spec) {
  if (!kernel_spec.empty()) {
    if (!family_name.empty() && family_name != "attention" && family_name != "user_kernel") {
      throw UsageError(fmt::format("--kernel {} is a user kernel; --family {} does not apply", kernel_spec, family_name));
    }
    return user_kernel::open_spec(kernel_spec);
  }
  const std::string name = family_name.empty() ? std::string("attention") : std::string(family_name);
  std::string nearest;
  std::size_t best = std::string::npos;
  for (const FamilyInfo& f : families()) {
    if (f.name == name) return f.make();
    const std::size_t d = edit_distance(name, f.name);
    if (d < best) best = d, nearest = f.name;
  }
  std::vector<std::string> names;
  for (const FamilyInfo& f : families()) names.push_back(f.name);
  throw UsageError(fmt::format("unknown family '{}'{} (known: {}; a kernel of yours: --kernel SPEC.toml)", name,
                               best <= 3 ? fmt::format(", did you mean '{}'?", nearest) : std::string(),
                               fmt::join(names, ", ")));
}

std::unique_ptr<harness::Family> open_recorded_family(std::string_view recorded_id, const std::string& kernel_spec) {
  constexpr std::string_view kUserKernel = "user_kernel:";
  if (recorded_id.substr(0, kUserKernel.size()) == kUserKernel) {
    if (kernel_spec.empty()) {
      throw UsageError(fmt::format("the run is a {} run and records no kernel spec", recorded_id));
    }
    std::unique_ptr<harness::Family> family = open_family("", kernel_spec);
    if (family->id() != recorded_id) {
      throw UsageError(fmt::format("the run is a {} run, but {} describes {}", recorded_id, kernel_spec, family->id()));
    }
    return family;
  }
  return open_family(recorded_id, "");
}

}  // namespace evotune::families
