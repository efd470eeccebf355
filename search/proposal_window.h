#pragma once
// The order in which a search asks its strategy and tells it results, with proposals running ahead of
// observations by a fixed number of batches (the lookahead).
//
// With lookahead 1 the strategy proposes batch k only after it has observed batch k-1: nothing can be
// compiled before the previous batch's results are in, so the GPU waits for the first compile of every
// batch. With lookahead L, batch k+L-1 is proposed before batch k is observed, so its configs compile
// while batch k is checked and timed; the strategy then works from results one batch (L-1 batches) old.
//
// The interleaving of propose() and observe() depends only on L and on the results, never on timing,
// so a search replayed from its recorded trials (resume) asks for exactly the same configs.
#include <deque>
#include <optional>
#include <vector>

#include "search/strategy.h"

namespace evotune::search {

struct ProposedBatch {
  std::vector<Config> configs;
  int generation = 0;  // the strategy's generation counter right after proposing it
};

class ProposalWindow {
 public:
  // lookahead >= 1: how many batches are proposed and not yet observed, at most.
  ProposalWindow(Strategy& strategy, int lookahead);

  // Fills the window (each propose() asks for at most `max_per_batch` configs) and hands out its oldest
  // batch; nullopt when the strategy has nothing left to propose and no batch is waiting.
  std::optional<ProposedBatch> next(int max_per_batch);
  // Batches proposed behind the one next() handed out, oldest first: what to prepare (compile) ahead.
  const std::deque<ProposedBatch>& ahead() const { return waiting_; }
  int lookahead() const { return lookahead_; }

 private:
  Strategy& strategy_;
  int lookahead_;
  bool exhausted_ = false;
  std::deque<ProposedBatch> waiting_;
};

}  // namespace evotune::search
