// One gate before every launch (issue 48): the exported header's lookup serves an entry only to problems
// for which evotune's own rules admit its config. Checked on the table the build embeds (the one the C ABI,
// the PyTorch op and the example run), over random problems inside each entry's lookup contract: GQA groups
// of 1 to 16 (3, 5, 6, 7 and 11 among them), odd lengths, both dtypes, decode and prefill.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "families/attention/host/attention_family.h"
#include "runtime/device_limits.h"
#include EVOTUNE_TUNED_HEADER_PATH  // the table the example and libevotune_capi are built with

namespace lookup_contract {  // named: a unity build puts this file in one translation unit with others

namespace attention = evotune::attention;
namespace tuned = evotune_tuned;

attention::Problem problem_of(const tuned::AttentionProblem& p) {
  attention::Problem out;
  out.b = p.b;
  out.hq = p.hq;
  out.hkv = p.hkv;
  out.sq = p.sq;
  out.skv = p.skv;
  out.d = p.d;
  out.causal = p.causal;
  out.dtype = p.bf16 ? attention::DType::bf16 : attention::DType::fp16;
  return out;
}

// The problem as `entry`'s kernel runs it: causality is the kernel's for a single query (it sees every key
// either way), else whether the problem is masked.
attention::Problem launched(const tuned::TunedAttention& entry, const tuned::AttentionProblem& asked) {
  attention::Problem p = problem_of(asked);
  p.causal = asked.sq == 1 ? entry.problem.causal : tuned::masked(asked);
  return p;
}

evotune::DeviceLimits limits_of(const tuned::TunedAttention& entry) {
  return evotune::DeviceLimits::for_target(evotune::runtime::Target::parse(entry.target[0] ? entry.target : "sm_90a"));
}

// A random problem near `entry`'s (batch x heads and lengths within a factor 2^1.5 either way), of GQA
// group `group`, either dtype and causality. Not always of the entry's kind or within its distance:
// draws_inside() keeps those that are.
tuned::AttentionProblem near(const tuned::AttentionProblem& e, std::mt19937_64& rng, int group) {
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto scaled = [&](int x) { return std::max(1, static_cast<int>(x * std::exp2(uniform(-1.5, 1.5)))); };
  tuned::AttentionProblem p{};
  p.hkv = std::uniform_int_distribution<int>(1, 8)(rng);
  p.hq = group * p.hkv;
  p.b = std::max(1, scaled(e.b * e.hq) / p.hq);
  p.skv = scaled(e.skv) | 1;  // odd lengths: tails everywhere
  p.sq = e.sq <= tuned::kDecodeMaxQueries ? std::uniform_int_distribution<int>(1, tuned::kDecodeMaxQueries)(rng)
                                          : std::min(p.skv, scaled(e.sq) | 1);
  p.d = e.d;
  p.causal = std::uniform_int_distribution<int>(0, 3)(rng) != 0 ? e.causal : !e.causal;
  p.bf16 = std::uniform_int_distribution<int>(0, 3)(rng) != 0 ? e.bf16 : !e.bf16;
  return p;
}

bool inside_contract(const tuned::TunedAttention& e, const tuned::AttentionProblem& p) {
  return tuned::same_kind(e.problem, p) && tuned::problem_distance(e.problem, p) <= tuned::kMaxDistance;
}

// Whatever the lookup serves passes the family's rules, for problems around every entry.
TEST(LookupContract, WhatTheLookupServesPassesTheRules) {
  std::mt19937_64 rng(48);
  for (const tuned::TunedAttention& e : tuned::kEntries) {
    int inside = 0, served = 0, refused = 0;
    std::set<int> groups;
    for (int draw = 0; inside < 300 && draw < 100000; ++draw) {
      const tuned::AttentionProblem p = near(e.problem, rng, 1 + draw % 16);  // every group 1 to 16 in turn
      if (!inside_contract(e, p)) continue;
      ++inside;
      groups.insert(p.hq / p.hkv);
      const tuned::Lookup found = tuned::lookup(e.device, e.sm, p);
      if (found.entry == nullptr) {
        ++refused;
        continue;
      }
      ++served;
      const evotune::Config config = attention::parse_config(found.entry->config);
      const attention::Problem run = launched(*found.entry, p);
      EXPECT_EQ(attention::invalid_reason(config, run, limits_of(*found.entry)), std::nullopt)
          << "served " << found.entry->config << " for " << run.to_string();
    }
    EXPECT_EQ(inside, 300) << e.config;
    EXPECT_EQ(groups.size(), 16u) << "not every GQA group from 1 to 16 was drawn around " << e.config;
    EXPECT_GT(served, 0) << "no problem around " << e.config << " was served (" << refused << " refused)";
  }
}

// runs() is the rules, not a guess at them: for problems of an entry's kind it holds exactly when
// invalid_reason finds nothing (so no entry is refused where its config would run, either).
TEST(LookupContract, TheHeadersRequirementsAreExactlyTheRules) {
  std::mt19937_64 rng(4848);
  for (const tuned::TunedAttention& e : tuned::kEntries) {
    const evotune::Config config = attention::parse_config(e.config);
    int checked = 0, runs = 0;
    for (int draw = 0; checked < 400 && draw < 100000; ++draw) {
      const tuned::AttentionProblem p = near(e.problem, rng, 1 + draw % 16);
      if (!tuned::same_kind(e.problem, p)) continue;
      if (p.sq > 1 && e.problem.causal != tuned::masked(p)) continue;  // a kernel of the other causality
      ++checked;
      const bool admitted = !attention::invalid_reason(config, launched(e, p), limits_of(e));
      EXPECT_EQ(tuned::runs(e, p), admitted) << e.config << " on " << launched(e, p).to_string();
      runs += admitted;
    }
    EXPECT_EQ(checked, 400) << e.config;
    EXPECT_GT(runs, 0) << e.config;
  }
}

// What each entry carries is what the family derives from its config.
TEST(LookupContract, EachEntryCarriesTheFamilysRequirementsOfItsConfig) {
  for (const tuned::TunedAttention& e : tuned::kEntries) {
    const attention::ProblemRequirements r =
        attention::problem_requirements(attention::parse_config(e.config), e.problem.d, limits_of(e));
    EXPECT_EQ(e.needs.group_divides, r.group_divides) << e.config;
    EXPECT_EQ(e.needs.min_group, r.min_group) << e.config;
    EXPECT_EQ(e.needs.min_skv, r.min_skv) << e.config;
    EXPECT_EQ(e.needs.max_skv, r.max_skv) << e.config;
    EXPECT_EQ(e.needs.max_rows, r.max_rows) << e.config;
  }
}

// The problem that hung the PyTorch op on an H200 (issue 48): groups of 7 query heads near the entry whose
// wgmma config packs groups into 128-row tiles. The lookup serves another entry or none, never that one.
TEST(LookupContract, GroupsOfSevenAreNotServedATileOfOneHundredTwentyEight) {
  const tuned::AttentionProblem hung{1, 28, 4, 3000, 3000, 128, true, true};
  for (const char* device : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    const tuned::Lookup found = tuned::lookup(device, 90, hung);
    if (found.entry == nullptr) continue;
    const attention::Problem run = launched(*found.entry, hung);
    EXPECT_EQ(attention::invalid_reason(attention::parse_config(found.entry->config), run, limits_of(*found.entry)),
              std::nullopt)
        << found.entry->config;
  }
  // The same problem with groups of 8 is still served the packed entry: the gate refuses only what fails.
  const tuned::AttentionProblem fits{1, 32, 4, 3000, 3000, 128, true, true};
  EXPECT_NE(tuned::lookup("NVIDIA H100 80GB HBM3", 90, fits).entry, nullptr);
}

// A program that includes only the header may pass anything: a malformed problem matches nothing (and
// divides by no zero).
TEST(LookupContract, MalformedProblemsMatchNothing) {
  const tuned::TunedAttention& e = tuned::kEntries[0];
  tuned::AttentionProblem p = e.problem;
  for (auto broken : {+[](tuned::AttentionProblem& q) { q.hkv = 0; }, +[](tuned::AttentionProblem& q) { q.b = 0; },
                      +[](tuned::AttentionProblem& q) { q.sq = -1; }, +[](tuned::AttentionProblem& q) { q.hq += 1; },
                      +[](tuned::AttentionProblem& q) { q.sq = q.skv + 1; }}) {
    tuned::AttentionProblem q = p;
    broken(q);
    EXPECT_EQ(tuned::lookup(e.device, e.sm, q).entry, nullptr);
  }
  EXPECT_EQ(tuned::lookup(nullptr, e.sm, p).entry, nullptr);
  EXPECT_NE(tuned::lookup(e.device, e.sm, p).entry, nullptr);  // and the entry's own problem is its own
}

}  // namespace lookup_contract
