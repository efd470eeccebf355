// The worker pool's dispatch with a prepare stage (search/worker_pool.h), on the CPU: replay workers stand
// in for GPU workers, a test prepare function for the compile processes. Prepared configs go to workers as
// their preparations finish, rejected ones are recorded without a worker, configs of a batch proposed
// ahead are evaluated early while the current batch still compiles, and each batch comes back in proposal
// order with exactly what in-process evaluation gives.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "search/coordinator.h"
#include "search/prepare_ahead.h"
#include "search/strategy.h"
#include "search/t4.h"
#include "search/worker_pool.h"
#include "search/worker_protocol.h"
#include "tests/test_support.h"

using namespace evotune;
using namespace evotune::search;

TEST(WorkerPool, DispatchesAsPreparationsFinishAndKeepsProposalOrder) {
  const std::string t4 = (evotune::testing::t4_dir() / "convolution_milo_A4000_T4.json.gz").string();
  const T4Space recorded = T4Space::load(t4);
  auto strategy = make_random(recorded.space(), 11);
  std::vector<std::vector<Config>> batches;
  for (int i = 0; i < 3; ++i) batches.push_back(strategy->propose(8));
  std::map<std::string, int> batch_of;
  for (int i = 0; i < 3; ++i) {
    for (const Config& c : batches[static_cast<std::size_t>(i)]) batch_of[c.key()] = i;
  }
  std::vector<WorkerCommand> commands;
  for (const char* device : {"0", "1"}) {
    commands.push_back({evotune::testing::evotune_binary(), {"worker", "--device", device, "--replay", t4}});
  }
  // Batch 0's first config is a straggler: while it compiles, the workers finish the rest of batch 0 and
  // would wait, so they start on batch 1 early. It must outlast the workers' start and their work on
  // everything else ready, however slow the machine: so that is timed first (two fresh workers evaluating
  // batches 0 and 1), and the straggler takes several times as long, 1.5 s at least.
  double workers_seconds = 0;
  {
    const auto start = std::chrono::steady_clock::now();
    WorkerPool timed(commands, std::chrono::seconds(120));
    timed.evaluate_batch(batches[0]);
    timed.evaluate_batch(batches[1]);
    workers_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const auto straggler = std::chrono::milliseconds(std::max(1500, static_cast<int>(4000 * workers_seconds)));
  std::printf("the workers took %.2f s: the straggler %lld ms\n", workers_seconds, static_cast<long long>(straggler.count()));
  // Every fourth config of each batch is rejected (compile error), every fifth spills.
  std::map<std::string, int> index_in_batch;
  for (const auto& b : batches) {
    for (std::size_t i = 0; i < b.size(); ++i) index_in_batch[b[i].key()] = static_cast<int>(i);
  }
  auto prepare = [&](const Config& c) -> runtime::Preparation {
    const int batch = batch_of.at(c.key()), index = index_in_batch.at(c.key());
    std::this_thread::sleep_for(batch == 0 && index == 0 ? straggler : std::chrono::milliseconds(20));
    if (index % 4 == 3) {
      return runtime::Rejection{runtime::Rejection::Kind::compile_error, "error: " + c.key(), 0.75, true, std::nullopt};
    }
    runtime::PreparedKernel k;
    k.cache_key = "cache-" + c.key();
    k.kernel_name = "kernel";
    k.resources.registers = 40 + index;
    k.compile_seconds = 1.5;
    k.compiled_now = true;
    if (index % 5 == 4) {
      k.resources.spill_store_bytes = 64;
      return runtime::Rejection{runtime::Rejection::Kind::resources, "register spills", 1.5, true, k};
    }
    return k;
  };
  PrepareAhead ahead(prepare, 4);
  WorkerPool pool(std::move(commands), std::chrono::seconds(120));  // a limit only against a hang
  pool.set_preparer(&ahead);
  ReplayEvaluator direct(recorded);
  // As the coordinator does with lookahead 2.
  std::vector<std::vector<evidence::TrialRecord>> results;
  pool.prefetch(batches[0]);
  pool.prefetch(batches[1]);
  results.push_back(pool.evaluate_batch(batches[0]));
  pool.prefetch(batches[2]);
  results.push_back(pool.evaluate_batch(batches[1]));
  results.push_back(pool.evaluate_batch(batches[2]));
  for (std::size_t b = 0; b < batches.size(); ++b) {
    ASSERT_EQ(results[b].size(), batches[b].size());
    for (std::size_t i = 0; i < batches[b].size(); ++i) {
      const Config& c = batches[b][i];
      const evidence::TrialRecord& t = results[b][i];
      if (i % 4 == 3) {
        EXPECT_EQ(t.status, core::TrialStatus::compile_error);
        EXPECT_EQ(t.error, "error: " + c.key()) << "the rejection's reason, not a worker's answer";
        EXPECT_DOUBLE_EQ(t.compile_seconds, 0.75);
        EXPECT_TRUE(t.resources_json.empty());
      } else if (i % 5 == 4) {
        EXPECT_EQ(t.status, core::TrialStatus::invalid);
        EXPECT_NE(t.resources_json.find("\"spill_store_bytes\":64"), std::string::npos) << t.resources_json;
      } else {
        const evidence::TrialRecord expected = direct.evaluate(c);
        EXPECT_EQ(t.status, expected.status) << b << "/" << i;
        EXPECT_EQ(t.median_us, expected.median_us) << b << "/" << i;
        EXPECT_DOUBLE_EQ(t.compile_seconds, 1.5) << "the prepare stage's compile time";
        EXPECT_NE(t.resources_json.find(fmt::format("\"registers\":{}", 40 + i)), std::string::npos) << t.resources_json;
      }
    }
  }
  const WorkerTimeline& timeline = pool.timeline();
  EXPECT_GT(timeline.early, 0) << "batch 1 must have started while batch 0 compiled";
  EXPECT_GT(timeline.waiting_for_prepare, 0.0);
  EXPECT_GT(timeline.in_flight, 0.0);
  EXPECT_EQ(pool.restarts(), 0);
}

// The worker protocol carries the confirmation's batch both ways: the retime reply says how many launches
// each sample timed, and the baselines request asks for the same; a request without one (0) keeps the
// line older workers read.
TEST(WorkerProtocol, CarriesTheComparisonsBatch) {
  RetimeReply reply;
  reply.medians_us = {{1.0, 2.0}, {3.0}};
  reply.batch = 11;
  const RetimeReply back = parse_retime_reply(to_line(reply));
  EXPECT_EQ(back.batch, 11);
  EXPECT_EQ(back.medians_us, reply.medians_us);
  EXPECT_EQ(parse_retime_reply(R"({"retime":[[1.0]]})").batch, 1);  // a reply without one: single launches

  EXPECT_EQ(to_line(WorkerRequest{BaselinesRequest{}}), R"({"baselines":true})");
  EXPECT_EQ(std::get<BaselinesRequest>(parse_worker_request(R"({"baselines":true})")).batch, 0);
  const WorkerRequest asked = parse_worker_request(to_line(WorkerRequest{BaselinesRequest{7}}));
  EXPECT_EQ(std::get<BaselinesRequest>(asked).batch, 7);

  // A trial request carries the search's batch once it is known, and the reply the batch the trial used.
  EvaluateRequest evaluate;
  evaluate.config_key = "block_m=64";
  EXPECT_EQ(to_line(WorkerRequest{evaluate}).find("batch"), std::string::npos);
  evaluate.batch = 12;
  EXPECT_EQ(std::get<EvaluateRequest>(parse_worker_request(to_line(WorkerRequest{evaluate}))).batch, 12);
  RetimeRequest retime;
  retime.batch = 5;
  EXPECT_EQ(std::get<RetimeRequest>(parse_worker_request(to_line(WorkerRequest{retime}))).batch, 5);
  EvaluateReply trial;
  trial.trial.status = core::TrialStatus::ok;
  trial.batch = 9;
  EXPECT_EQ(parse_evaluate_reply(to_line(trial)).batch, 9);
}
