#include "families/attention/host/attention_verification.h"

#include <algorithm>

namespace evotune::harness {

std::vector<attention::Problem> verification_problems(const attention::Problem& problem) {
  attention::Problem tail = problem;
  tail.b = 1;
  tail.sq = problem.sq > 96 ? problem.sq - 37 : std::max(1, problem.sq - 3);
  tail.skv = std::max(tail.sq, problem.skv > 96 ? problem.skv - 19 : problem.skv - 1);
  return {problem, tail};
}

}  // namespace evotune::harness
