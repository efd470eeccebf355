#pragma once
// How a trial records a config that the prepare stage rejected. The runtime judges a config in its own
// terms (runtime::Rejection::Kind) and also serves code that has no trials (the launcher, the C ABI); the
// trial vocabulary (core::TrialStatus) belongs to the layers that record trials, so the mapping lives here.
#include "core/trial_status.h"
#include "runtime/prepare.h"

namespace evotune::harness {

// invalid (the family's rules, or the resource report), compile_error, compile_timeout.
inline core::TrialStatus trial_status(const runtime::Rejection& rejection) {
  switch (rejection.kind) {
    case runtime::Rejection::Kind::compile_error:
      return core::TrialStatus::compile_error;
    case runtime::Rejection::Kind::compile_timeout:
      return core::TrialStatus::compile_timeout;
    case runtime::Rejection::Kind::rule:
    case runtime::Rejection::Kind::resources:
      break;
  }
  return core::TrialStatus::invalid;
}

}  // namespace evotune::harness
