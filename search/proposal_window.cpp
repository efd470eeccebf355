#include "search/proposal_window.h"

#include <stdexcept>

namespace evotune::search {

ProposalWindow::ProposalWindow(Strategy& strategy, int lookahead) : strategy_(strategy), lookahead_(lookahead) {
  if (lookahead < 1) throw std::invalid_argument("lookahead must be at least 1");
}

std::optional<ProposedBatch> ProposalWindow::next(int max_per_batch) {
  // The batch handed out last time is the one being observed now; the window holds it plus the waiting
  // ones, so refill up to `lookahead` batches in all, counting the one about to be handed out.
  while (!exhausted_ && static_cast<int>(waiting_.size()) < lookahead_) {
    ProposedBatch batch;
    batch.configs = strategy_.propose(max_per_batch);
    batch.generation = strategy_.generation();
    if (batch.configs.empty()) {
      exhausted_ = true;
      break;
    }
    waiting_.push_back(std::move(batch));
  }
  if (waiting_.empty()) return std::nullopt;
  ProposedBatch out = std::move(waiting_.front());
  waiting_.pop_front();
  return out;
}

}  // namespace evotune::search
