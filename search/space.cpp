#include "search/space.h"

#include <algorithm>

namespace evotune::search {

SearchSpace::SearchSpace(std::vector<Parameter> parameters, Validity valid, Conform conform)
    : parameters_(std::move(parameters)), valid_(std::move(valid)), conform_(std::move(conform)) {}

double SearchSpace::product_size() const {
  double size = 1;
  for (const Parameter& p : parameters_) size *= static_cast<double>(p.values.size());
  return size;
}

std::optional<Config> SearchSpace::sample(Rng& rng, int max_tries) const {
  for (int attempt = 0; attempt < max_tries; ++attempt) {
    Config c;
    for (const Parameter& p : parameters_) {
      std::uniform_int_distribution<std::size_t> pick(0, p.values.size() - 1);
      c.set(p.name, p.values[pick(rng)]);
    }
    c = conform(c);
    if (valid_(c)) return c;
  }
  return std::nullopt;
}

int SearchSpace::value_index(std::size_t i, int value) const {
  const auto& values = parameters_[i].values;
  return static_cast<int>(std::find(values.begin(), values.end(), value) - values.begin());
}

std::vector<Config> SearchSpace::neighbours(const Config& config) const {
  std::vector<Config> out;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const Parameter& p = parameters_[i];
    const int current = value_index(i, config.at(p.name));
    std::vector<int> candidates;
    if (p.categorical()) {
      for (std::size_t j = 0; j < p.values.size(); ++j) {
        if (static_cast<int>(j) != current) candidates.push_back(static_cast<int>(j));
      }
    } else {
      if (current > 0) candidates.push_back(current - 1);
      if (current + 1 < static_cast<int>(p.values.size())) candidates.push_back(current + 1);
    }
    for (int j : candidates) {
      Config n = config;
      n.set(p.name, p.values[static_cast<std::size_t>(j)]);
      n = conform(n);
      if (n != config && valid_(n) && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
    }
  }
  return out;
}

void SearchSpace::for_each_valid(const std::function<bool(const Config&)>& visit) const {
  std::vector<std::size_t> index(parameters_.size(), 0);
  for (;;) {
    Config c;
    for (std::size_t i = 0; i < parameters_.size(); ++i) c.set(parameters_[i].name, parameters_[i].values[index[i]]);
    if (valid_(c) && !visit(c)) return;
    // Odometer increment, last parameter fastest.
    std::size_t i = parameters_.size();
    while (i > 0) {
      --i;
      if (++index[i] < parameters_[i].values.size()) break;
      index[i] = 0;
      if (i == 0) return;
    }
    if (parameters_.empty()) return;
  }
}

}  // namespace evotune::search
