// evotune worker: the child process that evaluates configs for a search (see search/worker_pool.h); the
// protocol is search/worker_protocol.h. A GPU worker (--problem, of --family or --kernel) loads kernels the
// coordinator prepared and never compiles a config; a replay worker (--replay) answers from a recorded
// space. It exits when stdin closes.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "cli/cli_common.h"
#include "core/errors.h"
#include "families/registry.h"
#include "harness/gpu_evaluator.h"
#include "search/coordinator.h"
#include "search/worker_protocol.h"

namespace evotune::cli {

void add_worker_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("worker", "Evaluate configs sent by a search on stdin (started by evotune search)");
  struct Options {
    int device = 0;
    std::string replay, problem, family, kernel;  // family: empty for the registry's default
    int abort_at = 0, hang_at = 0, delay_ms = 0;
    int repetitions = 30;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--device", opt->device, "GPU ordinal")->check(WholeNumber(0, 1023));
  cmd->add_option("--replay", opt->replay,
                  "answer from a recorded space (T4 file; no default: give --replay or --problem)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--problem", opt->problem,
                  "evaluate prepared kernels of the family for this problem on the GPU (no default: give --replay or "
                  "--problem)");
  cmd->add_option("--family", opt->family, "the problem's family (default attention)");
  cmd->add_option("--kernel", opt->kernel, "the problem's kernel spec (a user-kernel family; default: none, --family's)");
  cmd->add_option("--reps", opt->repetitions, "timed repetitions per config")->check(WholeNumber(3, 100000));
  // Test only: abort (SIGABRT), or hang forever, on the Nth request, so the coordinator's crash and
  // timeout handling can be tested without a faulty kernel.
  cmd->add_option("--test-abort-at", opt->abort_at)->group("");
  cmd->add_option("--test-hang-at", opt->hang_at)->group("");
  // Test only: each replayed evaluation takes N ms (evotune search --test-replay-delay-ms).
  cmd->add_option("--test-delay-ms", opt->delay_ms)->group("")->check(CLI::Range(0, 60000));
  cmd->callback([opt, &globals] {
    if (opt->replay.empty() == opt->problem.empty()) throw UsageError("worker: give exactly one of --replay and --problem");
    std::unique_ptr<search::T4Space> recorded;
    std::unique_ptr<search::ReplayEvaluator> replay;
    std::unique_ptr<CompilerStack> stack;
    std::unique_ptr<runtime::CubinCache> kernels;
    std::unique_ptr<harness::Family> family;
    std::unique_ptr<harness::GpuEvaluator> gpu;
    if (!opt->replay.empty()) {
      recorded = std::make_unique<search::T4Space>(search::T4Space::load(opt->replay));
      replay = std::make_unique<search::ReplayEvaluator>(*recorded);
      replay->set_delay_ms(opt->delay_ms);
    } else {
      if (globals.no_cache) throw UsageError("worker: a GPU worker loads prepared kernels from the cubin cache");
      stack = std::make_unique<CompilerStack>(globals);
      kernels = std::make_unique<runtime::CubinCache>(cache_dir(globals));
      family = families::open_family(opt->family, opt->kernel);
      gpu = std::make_unique<harness::GpuEvaluator>(*family, family->parse_problem(opt->problem), opt->device, *kernels,
                                                    stack->compiler(), opt->repetitions);
    }
    int count = 0;
    for (std::string line; std::getline(std::cin, line);) {
      ++count;
      if (count == opt->abort_at) std::abort();
      if (count == opt->hang_at) {
        for (;;) pause();
      }
      const search::WorkerRequest request = search::parse_worker_request(line);
      if (const auto* baselines = std::get_if<search::BaselinesRequest>(&request)) {
        std::cout << search::baselines_reply_line(gpu ? gpu->measure_baselines(baselines->batch)
                                                      : std::vector<evidence::BaselineRecord>{})
                  << std::endl;
        continue;
      }
      if (const auto* retime = std::get_if<search::RetimeRequest>(&request)) {
        if (!gpu) throw UsageError("worker: only a GPU worker re-times kernels");
        const auto start = std::chrono::steady_clock::now();
        std::vector<harness::GpuEvaluator::Kernel> kernels;
        for (const search::EvaluateRequest& k : retime->kernels) {
          kernels.push_back({Config::from_key(k.config_key), k.cache_key, k.kernel_name});
        }
        search::RetimeReply reply;
        gpu->set_batch(retime->batch);
        const harness::GpuEvaluator::Retimed retimed = gpu->retime(kernels, retime->rounds, retime->reps);
        reply.medians_us = retimed.medians_us;
        reply.batch = retimed.batch;
        reply.busy_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cout << search::to_line(reply) << std::endl;
        continue;
      }
      const auto& evaluate = std::get<search::EvaluateRequest>(request);
      const Config config = Config::from_key(evaluate.config_key);
      search::EvaluateReply reply;
      const auto start = std::chrono::steady_clock::now();
      if (gpu) {
        if (evaluate.cache_key.empty()) throw UsageError("worker: a GPU worker needs prepared kernels (cache_key)");
        gpu->set_best_us(evaluate.best_us);
        gpu->set_batch(evaluate.batch);
        reply.trial = gpu->evaluate(config, evaluate.cache_key, evaluate.kernel_name);
        reply.batch = gpu->last_batch();
        reply.restart = gpu->needs_restart();
      } else {
        reply.trial = replay->evaluate(config);
      }
      reply.busy_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::cout << search::to_line(reply) << std::endl;
      if (reply.restart) break;  // the pool starts a fresh worker
    }
    if (gpu) {  // on stderr, which the search shares: where this worker's time went
      const auto& p = gpu->phases();
      fmt::print(stderr,
                 "worker (device {}): {} trials: loading kernels {:.1f} s, checking {:.1f} s, timing {:.1f} s ({} timed "
                 "in full, {} raced)\n",
                 opt->device, p.trials, p.load_seconds, p.check_seconds, p.timing_seconds, p.timed, p.raced);
    }
  });
}

}  // namespace evotune::cli
