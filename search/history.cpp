#include "search/history.h"

#include <algorithm>
#include <cmath>
#include <set>


namespace evotune::search {

std::vector<HistoricalSeed> historical_seeds(const evidence::Store& store, const harness::Family& family,
                                             const harness::FamilyProblem& problem, const std::string& device,
                                             const SearchSpace& space, int max) {
  std::vector<HistoricalSeed> candidates;
  std::vector<double> times;
  for (const evidence::Store::RunBest& r : store.best_of_each_run(family.id())) {
    harness::FamilyProblem earlier;
    try {
      earlier = family.parse_problem(r.problem);
    } catch (const std::exception&) {
      continue;  // a problem this version no longer reads: not a seed
    }
    HistoricalSeed s;
    // A run recorded before a tunable existed ran it at its default value; a config naming a tunable this
    // family does not have stays invalid.
    s.config = family.complete_recorded(Config::from_key(r.best.config_key));
    s.run_id = r.run_id;
    s.problem = r.problem;
    s.device = r.device;
    s.distance = family.distance(problem, earlier) + (r.device == device ? 0.0 : 4.0);
    candidates.push_back(std::move(s));
    times.push_back(r.best.median_us.value_or(0));
  }
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    if (candidates[x].distance != candidates[y].distance) return candidates[x].distance < candidates[y].distance;
    return times[x] < times[y];
  });
  std::vector<HistoricalSeed> out;
  std::set<std::string> taken;
  for (std::size_t i : order) {
    if (static_cast<int>(out.size()) >= max) break;
    const HistoricalSeed& s = candidates[i];
    bool valid = false;
    try {
      valid = space.valid(s.config);
    } catch (const std::exception&) {  // a config of another version's tunables
    }
    if (!valid || !taken.insert(s.config.key()).second) continue;
    out.push_back(s);
  }
  return out;
}

}  // namespace evotune::search
