#pragma once
// Search strategies behind one ask/tell interface: a strategy proposes configs and is told their
// results; it never compiles or runs anything (pyATF / Kernel Tuner style). Every strategy proposes
// only valid configs it has not proposed before.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "search/space.h"

namespace evotune::search {

struct Observation {
  Config config;
  bool valid = false;  // compiled, correct and timed
  double time = 0;     // lower is better; meaningful only when valid
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // Up to `max` new configs to evaluate next; empty when the strategy has nothing left to propose.
  virtual std::vector<Config> propose(int max) = 0;
  virtual void observe(const std::vector<Observation>& results) = 0;
  // Generation counter for the evolution log (0 for strategies without generations).
  virtual int generation() const { return 0; }
  // The population a strategy keeps (best first); empty for strategies without one.
  virtual std::vector<Observation> elites() const { return {}; }
};

// Tuning knobs of the evolutionary strategy; the defaults were chosen by replay on the T4 spaces in
// tests/data/t4 (see README: "Choosing the evo defaults").
struct EvoOptions {
  int population = 10;          // mu: elites kept
  int initial = 14;             // random configs in generation 0 (besides historical seeds)
  int offspring = 6;            // lambda: configs proposed per generation
  int tournament = 3;           // contestants per parent selection
  double crossover_rate = 0.5;  // offspring made by uniform crossover (then mutated), else mutation only
  double mutation_rate = 0.3;   // per-parameter mutation probability (at least one parameter mutates)
  double local_rate = 0.4;      // offspring made as one neighbour step of the best config so far
  double insight_weight = 2.0;  // how strongly value statistics bias mutation (0: uniform)
  int stagnation = 6;           // generations without improvement before random immigrants enter
  double jump_rate = 0.2;       // numeric mutation: chance of a jump to any value instead of a step
  double local_elite_rate = 0.5;  // local steps around a tournament-chosen elite instead of the best
};

std::unique_ptr<Strategy> make_random(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space);
// seeds: historical solutions (best configs of similar earlier runs) placed in the first generation.
std::unique_ptr<Strategy> make_evo(const SearchSpace& space, std::uint64_t seed, EvoOptions options = {},
                                   std::vector<Config> seeds = {});
// "random", "exhaustive" or "evo"; throws UsageError for anything else.
std::unique_ptr<Strategy> make_strategy(const std::string& name, const SearchSpace& space, std::uint64_t seed,
                                        std::vector<Config> seeds = {}, const EvoOptions& evo = {});

// Parses "population=12,local_rate=0.5,..." over the defaults; throws UsageError naming a bad key/value:
// counts (population, initial, offspring, tournament, stagnation) are whole numbers from 1 to 100000, the
// rates are from 0 to 1, insight_weight from 0 to 100; nan and inf are refused, and so is a key given twice.
EvoOptions parse_evo_options(std::string_view text);

}  // namespace evotune::search
