#pragma once
// A search space over a family's parameters: ordered integer domains plus a validity rule. Valid configs
// are sampled uniformly without enumerating the space (rejection sampling over the product), and a
// config's neighbours are one-parameter moves: adjacent values for numeric parameters, any other value for
// categorical ones.
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <vector>

#include "core/config.h"

namespace evotune::search {

using Rng = std::mt19937_64;

class SearchSpace {
 public:
  using Validity = std::function<bool(const Config&)>;
  // Sets the tunables a config's other choices fix (Family::conform); identity when not given.
  using Conform = std::function<Config(const Config&)>;

  SearchSpace(std::vector<Parameter> parameters, Validity valid, Conform conform = nullptr);
  // A space whose valid configs are exactly `members` (a recorded space: what the file holds), which may be
  // a tiny part of the product of the domains. Enumeration walks the members, never the product; sampling
  // picks among them when rejection sampling over the product would mostly miss (see sample()).
  SearchSpace(std::vector<Parameter> parameters, std::vector<Config> members);

  const std::vector<Parameter>& parameters() const { return parameters_; }
  bool valid(const Config& config) const { return valid_(config); }
  // Every config the space proposes (sample, neighbours, a strategy's mutations) goes through here before
  // the validity check: a change of one tunable then carries the tunables it fixes with it.
  Config conform(const Config& config) const { return conform_ ? conform_(config) : config; }
  // Product of the domain sizes (valid configs are a subset).
  double product_size() const;

  // A uniformly random valid config; nullopt when none was found in max_tries draws. A space of members
  // holding less than 1/16 of its product draws one of them directly (one draw, not product/size).
  std::optional<Config> sample(Rng& rng, int max_tries = 100000) const;
  // Every valid config that differs from `config` in exactly one parameter, by one step (numeric) or to
  // any other value (categorical).
  std::vector<Config> neighbours(const Config& config) const;
  // Every valid config in lexicographic order of domain indices (for exhaustive search; enumerates).
  void for_each_valid(const std::function<bool(const Config&)>& visit) const;
  // Index of a config's value in parameter i's domain.
  int value_index(std::size_t i, int value) const;

 private:
  std::vector<Parameter> parameters_;
  Validity valid_;
  Conform conform_;
  std::vector<Config> members_;  // in lexicographic order of domain indices; empty: not a space of members
  bool sample_members_ = false;
};

}  // namespace evotune::search
