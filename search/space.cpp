#include "search/space.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>

namespace evotune::search {

SearchSpace::SearchSpace(std::vector<Parameter> parameters, Validity valid, Conform conform)
    : parameters_(std::move(parameters)), valid_(std::move(valid)), conform_(std::move(conform)) {}

SearchSpace::SearchSpace(std::vector<Parameter> parameters, std::vector<Config> members)
    : parameters_(std::move(parameters)), members_(std::move(members)) {
  auto keys = std::make_shared<std::unordered_set<std::string>>();
  for (const Config& c : members_) keys->insert(c.key());
  valid_ = [keys](const Config& c) { return keys->count(c.key()) > 0; };
  // The order the product's odometer visits them in, so exhaustive search proposes the same sequence as
  // an enumeration of the product filtered by membership would.
  auto indices = [this](const Config& c) {
    std::vector<int> out;
    for (std::size_t i = 0; i < parameters_.size(); ++i) out.push_back(value_index(i, c.at(parameters_[i].name)));
    return out;
  };
  std::vector<std::pair<std::vector<int>, std::size_t>> order;
  for (std::size_t i = 0; i < members_.size(); ++i) order.emplace_back(indices(members_[i]), i);
  std::sort(order.begin(), order.end());
  std::vector<Config> sorted;
  for (const auto& [index, i] : order) sorted.push_back(members_[i]);
  members_ = std::move(sorted);
  // Rejection sampling over a dense product is kept (it draws the same uniform distribution, and the
  // recorded spaces' seeds replay as they always have); a sparse one would mostly miss.
  sample_members_ = !members_.empty() && static_cast<double>(members_.size()) * 16 < product_size();
}

double SearchSpace::product_size() const {
  double size = 1;
  for (const Parameter& p : parameters_) size *= static_cast<double>(p.values.size());
  return size;
}

std::optional<Config> SearchSpace::sample(Rng& rng, int max_tries) const {
  if (sample_members_) {
    std::uniform_int_distribution<std::size_t> pick(0, members_.size() - 1);
    return members_[pick(rng)];
  }
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
  if (!members_.empty()) {
    for (const Config& c : members_) {
      if (!visit(c)) return;
    }
    return;
  }
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
