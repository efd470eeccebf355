#include "search/strategy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

#include "core/errors.h"

namespace evotune::search {
namespace {

// Configs already proposed, by their stable key.
class SeenSet {
 public:
  bool insert(const Config& c) { return keys_.insert(c.key()).second; }
  bool contains(const Config& c) const { return keys_.count(c.key()) > 0; }
  std::size_t size() const { return keys_.size(); }

 private:
  std::unordered_set<std::string> keys_;
};

class RandomStrategy : public Strategy {
 public:
  RandomStrategy(const SearchSpace& space, std::uint64_t seed) : space_(space), rng_(seed) {}
  std::string name() const override { return "random"; }
  std::vector<Config> propose(int max) override {
    std::vector<Config> out;
    // Give up after many repeats in a row: the valid space is (nearly) exhausted.
    int misses = 0;
    while (static_cast<int>(out.size()) < max && misses < 1000) {
      std::optional<Config> c = space_.sample(rng_);
      if (!c) break;
      if (seen_.insert(*c)) {
        out.push_back(std::move(*c));
        misses = 0;
      } else {
        ++misses;
      }
    }
    return out;
  }
  void observe(const std::vector<Observation>&) override {}

 private:
  const SearchSpace& space_;
  Rng rng_;
  SeenSet seen_;
};

class ExhaustiveStrategy : public Strategy {
 public:
  explicit ExhaustiveStrategy(const SearchSpace& space) {
    space.for_each_valid([&](const Config& c) {
      all_.push_back(c);
      return true;
    });
  }
  std::string name() const override { return "exhaustive"; }
  std::vector<Config> propose(int max) override {
    std::vector<Config> out;
    while (next_ < all_.size() && static_cast<int>(out.size()) < max) out.push_back(all_[next_++]);
    return out;
  }
  void observe(const std::vector<Observation>&) override {}

 private:
  std::vector<Config> all_;
  std::size_t next_ = 0;
};

// EvoEngineer-style population search over discrete parameters.
//  - Generation 0: historical seeds plus random valid configs.
//  - Parents: tournament selection among the elites (the best `population` valid configs seen).
//  - Offspring: a neighbour step of the best so far (exploitation), or uniform crossover of two parents
//    and/or mutation. Mutation steps numeric parameters to an adjacent value and resamples categorical
//    ones, biased by "insights": statistics of how each parameter value relates to speed.
//  - Repair: an invalid or already-proposed child is mutated again, then replaced by a random config.
//  - Elitism with a diversity guard: elites are distinct configs; after `stagnation` generations
//    without improvement, random immigrants take half the offspring slots.
class EvoStrategy : public Strategy {
 public:
  EvoStrategy(const SearchSpace& space, std::uint64_t seed, EvoOptions options, std::vector<Config> seeds)
      : space_(space), rng_(seed), options_(options), seeds_(std::move(seeds)) {}
  std::string name() const override { return "evo"; }
  int generation() const override { return generation_; }
  std::vector<Observation> elites() const override { return elites_; }

  std::vector<Config> propose(int max) override {
    std::vector<Config> out;
    if (generation_ == 0 && !initial_done_) {
      for (const Config& s : seeds_) {
        if (static_cast<int>(out.size()) < max && space_.valid(s) && seen_.insert(s)) out.push_back(s);
      }
      while (static_cast<int>(out.size()) < std::min(max, options_.initial + static_cast<int>(seeds_.size()))) {
        std::optional<Config> c = fresh_random();
        if (!c) break;
        out.push_back(std::move(*c));
      }
      initial_done_ = true;
      return out;
    }
    const int want = std::min(max, options_.offspring);
    const bool stagnant = generations_without_improvement_ >= options_.stagnation;
    for (int i = 0; i < want * 20 && static_cast<int>(out.size()) < want; ++i) {
      std::optional<Config> child;
      std::uniform_real_distribution<double> coin(0, 1);
      if (elites_.empty() || (stagnant && static_cast<int>(out.size()) < want / 2)) {
        child = fresh_random();
      } else if (coin(rng_) < options_.local_rate) {
        child = local_step(coin(rng_) < options_.local_elite_rate ? tournament() : elites_.front().config);
      } else {
        Config a = tournament();
        Config c = coin(rng_) < options_.crossover_rate ? crossover(a, tournament()) : a;
        child = mutate(c);
      }
      if (!child) child = fresh_random();
      if (child) out.push_back(std::move(*child));
    }
    ++generation_;
    return out;
  }

  void observe(const std::vector<Observation>& results) override {
    bool improved = false;
    for (const Observation& o : results) {
      history_.push_back(o);
      if (!o.valid) continue;
      if (elites_.empty() || o.time < elites_.front().time) improved = true;
      elites_.push_back(o);
    }
    std::sort(elites_.begin(), elites_.end(), [](const Observation& a, const Observation& b) { return a.time < b.time; });
    if (static_cast<int>(elites_.size()) > options_.population) elites_.resize(static_cast<std::size_t>(options_.population));
    generations_without_improvement_ = improved ? 0 : generations_without_improvement_ + 1;
    update_insights();
  }

 private:
  std::optional<Config> fresh_random() {
    for (int i = 0; i < 1000; ++i) {
      std::optional<Config> c = space_.sample(rng_);
      if (!c) return std::nullopt;
      if (seen_.insert(*c)) return c;
    }
    return std::nullopt;
  }

  Config tournament() {
    std::uniform_int_distribution<std::size_t> pick(0, elites_.size() - 1);
    std::size_t best = pick(rng_);
    for (int i = 1; i < options_.tournament; ++i) best = std::min(best, pick(rng_));  // elites are sorted
    return elites_[best].config;
  }

  Config crossover(const Config& a, const Config& b) {
    Config child = a;
    std::bernoulli_distribution take_b(0.5);
    for (const Parameter& p : space_.parameters()) {
      if (take_b(rng_)) child.set(p.name, b.at(p.name));
    }
    return child;
  }

  // The insight score of value index j of parameter i: how much faster than average the valid configs
  // with that value were (mean of best-relative speed), shrunk toward neutral when seen rarely.
  double insight(std::size_t i, int j) const {
    auto it = insights_.find({i, j});
    if (it == insights_.end()) return 1.0;
    return it->second;
  }

  void update_insights() {
    insights_.clear();
    if (elites_.empty()) return;
    const double best = elites_.front().time;
    std::map<std::pair<std::size_t, int>, std::pair<double, int>> sums;
    for (const Observation& o : history_) {
      const double score = o.valid ? best / o.time : 0.0;  // 1 for the best, toward 0 for slow or invalid
      for (std::size_t i = 0; i < space_.parameters().size(); ++i) {
        auto& s = sums[{i, space_.value_index(i, o.config.at(space_.parameters()[i].name))}];
        s.first += score;
        s.second += 1;
      }
    }
    double mean = 0;
    for (const Observation& o : history_) mean += o.valid ? best / o.time : 0.0;
    mean /= static_cast<double>(history_.size());
    for (const auto& [key, s] : sums) {
      const double prior = 2.0;  // pseudo-observations at the mean
      const double shrunk = (s.first + prior * mean) / (s.second + prior);
      insights_[key] = std::pow(shrunk / std::max(mean, 1e-9), options_.insight_weight);
    }
  }

  // Chooses a value index for parameter i: numeric steps to a neighbour, categorical resamples; both
  // weighted by insight scores.
  int mutate_value(std::size_t i, int current) {
    const Parameter& p = space_.parameters()[i];
    std::vector<int> candidates;
    if (p.categorical()) {
      for (int j = 0; j < static_cast<int>(p.values.size()); ++j) {
        if (j != current) candidates.push_back(j);
      }
    } else {
      if (current > 0) candidates.push_back(current - 1);
      if (current + 1 < static_cast<int>(p.values.size())) candidates.push_back(current + 1);
      // Occasionally a longer jump, so that a numeric parameter is not confined to small steps.
      std::uniform_int_distribution<int> any(0, static_cast<int>(p.values.size()) - 1);
      if (p.values.size() > 3 && std::bernoulli_distribution(options_.jump_rate)(rng_)) candidates.push_back(any(rng_));
    }
    if (candidates.empty()) return current;
    std::vector<double> weights;
    for (int j : candidates) weights.push_back(insight(i, j));
    std::discrete_distribution<std::size_t> choose(weights.begin(), weights.end());
    return candidates[choose(rng_)];
  }

  std::optional<Config> mutate(const Config& parent) {
    const auto& params = space_.parameters();
    for (int attempt = 0; attempt < 20; ++attempt) {
      Config child = parent;
      std::bernoulli_distribution flip(options_.mutation_rate);
      bool changed = false;
      for (std::size_t i = 0; i < params.size(); ++i) {
        if (params[i].values.size() < 2 || !flip(rng_)) continue;
        int j = mutate_value(i, space_.value_index(i, child.at(params[i].name)));
        child.set(params[i].name, params[i].values[static_cast<std::size_t>(j)]);
        changed = true;
      }
      if (!changed) {  // at least one parameter changes
        std::vector<std::size_t> mutable_params;
        for (std::size_t i = 0; i < params.size(); ++i) {
          if (params[i].values.size() > 1) mutable_params.push_back(i);
        }
        if (mutable_params.empty()) return std::nullopt;
        std::size_t i = mutable_params[std::uniform_int_distribution<std::size_t>(0, mutable_params.size() - 1)(rng_)];
        int j = mutate_value(i, space_.value_index(i, child.at(params[i].name)));
        child.set(params[i].name, params[i].values[static_cast<std::size_t>(j)]);
      }
      child = space_.conform(child);
      if (space_.valid(child) && seen_.insert(child)) return child;
    }
    return std::nullopt;
  }

  // An unseen neighbour of `center`, chosen by insight weight.
  std::optional<Config> local_step(const Config& center) {
    std::vector<Config> candidates;
    std::vector<double> weights;
    for (Config& n : space_.neighbours(center)) {
      if (seen_.contains(n)) continue;
      double w = 1.0;
      for (std::size_t i = 0; i < space_.parameters().size(); ++i) {
        const std::string& name = space_.parameters()[i].name;
        if (n.at(name) != center.at(name)) w = insight(i, space_.value_index(i, n.at(name)));
      }
      candidates.push_back(std::move(n));
      weights.push_back(w);
    }
    if (candidates.empty()) return mutate(center);
    std::discrete_distribution<std::size_t> choose(weights.begin(), weights.end());
    Config chosen = candidates[choose(rng_)];
    seen_.insert(chosen);
    return chosen;
  }

  const SearchSpace& space_;
  Rng rng_;
  EvoOptions options_;
  std::vector<Config> seeds_;
  SeenSet seen_;
  std::vector<Observation> elites_;   // sorted, fastest first
  std::vector<Observation> history_;  // every observation
  std::map<std::pair<std::size_t, int>, double> insights_;
  int generation_ = 0;
  bool initial_done_ = false;
  int generations_without_improvement_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_random(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<RandomStrategy>(space, seed);
}
std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space) { return std::make_unique<ExhaustiveStrategy>(space); }
std::unique_ptr<Strategy> make_evo(const SearchSpace& space, std::uint64_t seed, EvoOptions options,
                                   std::vector<Config> seeds) {
  return std::make_unique<EvoStrategy>(space, seed, options, std::move(seeds));
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const SearchSpace& space, std::uint64_t seed,
                                        std::vector<Config> seeds, const EvoOptions& evo) {
  if (name == "random") return make_random(space, seed);
  if (name == "exhaustive") return make_exhaustive(space);
  if (name == "evo") return make_evo(space, seed, evo, std::move(seeds));
  throw UsageError(fmt::format("unknown strategy '{}' (random, exhaustive, evo)", name));
}

}  // namespace evotune::search

namespace evotune::search {

EvoOptions parse_evo_options(std::string_view text) {
  EvoOptions o;
  // Counts are whole numbers from 1 to 100000 (a generation of more configs than any space evotune searches
  // holds); rates are probabilities; the insight weight is an exponent-like strength up to 100. Anything
  // else, nan and inf included, is refused rather than cast or clamped.
  constexpr double kMaxCount = 100000, kMaxInsightWeight = 100;
  std::set<std::string> seen;
  for (const auto& [key, value] : split_assignments(text, "evo option")) {
    // Last-wins would hide a typo in a long list (offspring=8,...,offspring=16), as for problem keys.
    if (!seen.insert(key).second) throw UsageError(fmt::format("evo option '{}' given twice", key));
    double v = 0;
    try {
      std::size_t used = 0;
      v = std::stod(value, &used);
      if (used != value.size() || !std::isfinite(v)) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("bad evo option value {}={}: expected a finite number", key, value));
    }
    auto count = [&](int& field) {
      if (v != std::floor(v) || v < 1 || v > kMaxCount) {
        throw UsageError(fmt::format("bad evo option value {}={}: expected a whole number from 1 to {}", key, value,
                                     kMaxCount));
      }
      field = static_cast<int>(v);
    };
    auto rate = [&](double& field) {
      if (v < 0 || v > 1) throw UsageError(fmt::format("bad evo option value {}={}: expected a rate from 0 to 1", key, value));
      field = v;
    };
    if (key == "population") count(o.population);
    else if (key == "initial") count(o.initial);
    else if (key == "offspring") count(o.offspring);
    else if (key == "tournament") count(o.tournament);
    else if (key == "stagnation") count(o.stagnation);
    else if (key == "crossover_rate") rate(o.crossover_rate);
    else if (key == "mutation_rate") rate(o.mutation_rate);
    else if (key == "local_rate") rate(o.local_rate);
    else if (key == "jump_rate") rate(o.jump_rate);
    else if (key == "local_elite_rate") rate(o.local_elite_rate);
    else if (key == "insight_weight") {
      if (v < 0 || v > kMaxInsightWeight) {
        throw UsageError(fmt::format("bad evo option value {}={}: expected a weight from 0 to {}", key, value,
                                     kMaxInsightWeight));
      }
      o.insight_weight = v;
    } else {
      throw UsageError(fmt::format("unknown evo option '{}'", key));
    }
  }
  return o;
}

}  // namespace evotune::search
