// evotune search: run a search and record every trial in the evidence database. Three modes:
//   --problem P             attention configs on GPUs, evaluated in `evotune worker` processes;
//   --problem P --compile-only   no GPU: compile what a search would consider into the cubin cache;
//   --replay FILE.t4        a recorded space (Kernel Tuner T4): the whole loop without a GPU.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <future>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "evidence/store.h"
#include "evidence/trial_json.h"
#include "runtime/errors.h"
#include "search/coordinator.h"
#include "search/worker_pool.h"
#include "search/compile_ahead.h"
#include "search/attention_history.h"
#include "search/attention_space.h"
#include "runtime/device_properties.h"
#include "runtime/compile_pool.h"
#include "templates/attention/attention_family.h"

namespace evotune::cli {
namespace {

void print_progress(const search::Progress& p, bool terminal) {
  const double rate = p.elapsed_seconds > 0 ? p.evaluated / p.elapsed_seconds : 0;
  const double eta = rate > 0 ? (p.budget - p.evaluated) / rate : 0;
  std::string line = fmt::format("generation {:>3}  trials {:>4}/{}  valid {:>4}  best {}  eta {:.0f} s", p.generation,
                                 p.evaluated, p.budget, p.valid,
                                 p.best_us ? fmt::format("{:.2f} us", *p.best_us) : std::string("-"), eta);
  if (terminal) {
    fmt::print(stderr, "\r{}\x1b[K", line);
  } else {
    fmt::print(stderr, "{}\n", line);
  }
}

}  // namespace

// --compile-only: a uniform random sample of `budget` valid configs (all of them when the space is
// smaller), compiled on every core into the cubin cache, each recorded with its resource usage as
// `compiled`, `invalid` (rejected: spills) or `compile_error`. The cache can then travel to the GPU
// machine, where the same compiles are hits.
template <typename Options>
void run_compile_only(const Options& opt, const GlobalOptions& globals) {
  attention::Problem problem = attention::Problem::parse(opt.problem);
  runtime::Target target = runtime::Target::parse(opt.target);
  search::SearchSpace space = search::attention_search_space(problem, DeviceLimits::for_target(target));
  auto strategy = search::make_random(space, opt.seed);
  std::vector<Config> configs = strategy->propose(opt.budget);
  evidence::Store store(opt.db, evidence::Store::Mode::read_write);
  evidence::RunInfo info;
  info.family = "attention";
  info.problem = problem.to_string();
  info.problem_json = attention::to_json(problem).dump();
  info.strategy = "compile-only";
  info.seed = opt.seed;
  info.budget = opt.budget;
  info.device = target.name();
  info.versions = fmt::format("evotune {} NVRTC {}", EVOTUNE_VERSION, runtime::nvrtc_version());
  info.options_json = nlohmann::json{{"target", target.name()}, {"compile_only", true}}.dump();
  std::int64_t run_id = store.create_run(info);
  fmt::print(stderr, "search: compile-only run {} in {}: {} valid configs of {} for {} on {}\n", run_id, opt.db,
             configs.size(), problem.to_string(), target.name(), "all cores");
  CompilerStack stack(globals);
  runtime::CompilePool pool(stack.compiler(), opt.threads);
  std::vector<std::future<runtime::CompileResult>> futures;
  for (const Config& c : configs) futures.push_back(pool.submit(attention::compile_request(c, problem, target)));
  int accepted = 0, rejected = 0, failed = 0;
  const bool terminal = isatty(fileno(stderr)) != 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    evidence::TrialRecord t;
    t.seq = static_cast<int>(i);
    t.config_key = configs[i].key();
    t.config = attention::format(configs[i]);
    try {
      runtime::CompileResult r = futures[i].get();
      const runtime::ResourceUsage& u = r.resources_of(attention::name_expression(configs[i], problem));
      t.resources_json = runtime::to_json(u).dump();
      t.compile_seconds = r.compile_seconds;
      if (auto why = attention::rejected_resources(u)) {
        t.status = "invalid";
        t.error = *why;
        ++rejected;
      } else {
        t.status = "compiled";
        ++accepted;
      }
    } catch (const std::exception& e) {
      t.status = "compile_error";
      t.error = e.what();
      ++failed;
    }
    store.record_trial(run_id, t);
    std::string line = fmt::format("compiled {:>4}/{}  accepted {}  rejected (spills) {}  errors {}", i + 1,
                                   configs.size(), accepted, rejected, failed);
    if (terminal) {
      fmt::print(stderr, "\r{}\x1b[K", line);
    } else if ((i + 1) % 16 == 0 || i + 1 == configs.size()) {
      fmt::print(stderr, "{}\n", line);
    }
  }
  if (terminal) fmt::print(stderr, "\n");
  store.finish_run(run_id, "finished");
  fmt::print("run {}: {} configs compiled for {}: {} accepted, {} rejected for spills, {} compile errors\n", run_id,
             configs.size(), target.name(), accepted, rejected, failed);
}

std::vector<Config> configs_from_keys(const std::vector<std::string>& keys) {
  std::vector<Config> out;
  for (const std::string& key : keys) out.push_back(Config::from_key(key));
  return out;
}

// What a resumed run keeps from its start: the same strategy, seed, budget and historical seeds, so the
// strategy replays exactly; `options` holds the rest (replay file, devices, timeout).
struct RunSettings {
  std::string strategy;
  std::uint64_t seed = 0;
  int budget = 0;
  std::vector<std::string> seeds;
  std::string evo;  // evo options as given, e.g. "offspring=12"
  int stop_after_stagnant = 0;
  nlohmann::json options;
};

RunSettings resumed_settings(const evidence::Store& store, std::int64_t run_id, const std::string& db) {
  std::optional<evidence::RunInfo> info = store.run_info(run_id);
  if (!info) throw UsageError(fmt::format("no run {} in {}", run_id, db));
  RunSettings r;
  r.strategy = info->strategy;
  r.seed = info->seed;
  r.budget = info->budget;
  r.options = nlohmann::json::parse(info->options_json);
  r.seeds = r.options.value("seeds", std::vector<std::string>{});
  r.evo = r.options.value("evo", "");
  r.stop_after_stagnant = r.options.value("stop_after_stagnant", 0);
  return r;
}

// The coordinator loop with progress on stderr; marks the run finished.
search::SearchSummary drive_search(evidence::Store& store, std::int64_t run_id, const search::SearchSpace& space,
                                   search::Strategy& strategy, search::Evaluator& evaluator, int budget, int batch,
                                   int kill_after, double max_minutes, int stop_after_stagnant) {
  search::SearchOptions options;
  options.budget = budget;
  options.batch = batch;
  if (max_minutes > 0) options.max_seconds = 60 * max_minutes;
  options.stop_after_stagnant = stop_after_stagnant;
  const bool terminal = isatty(fileno(stderr)) != 0;
  options.on_generation = [terminal](const search::Progress& p) { print_progress(p, terminal); };
  if (kill_after > 0) options.kill_after = kill_after;
  search::SearchSummary summary = search::run_search(store, run_id, space, strategy, evaluator, options);
  if (terminal) fmt::print(stderr, "\n");
  // A run stopped by the clock has budget left: `interrupted`, to be continued with --resume.
  store.finish_run(run_id, summary.stop_reason == "time" ? "interrupted" : "finished");
  if (summary.stop_reason != "budget") {
    fmt::print(stderr, "search: stopped early ({}) after {} of {} trials\n",
               summary.stop_reason == "time"         ? "wall-time limit; --resume continues it"
               : summary.stop_reason == "stagnation" ? "no new best for --stop-after-stagnant generations"
                                                     : "the strategy has nothing left to propose",
               summary.evaluated, budget);
  }
  return summary;
}

std::string best_text(const search::SearchSummary& s) {
  return s.best_us ? fmt::format("{:.3f} us ({})", *s.best_us, s.best_config) : std::string("none");
}

// The reference points export and report compare the winner with, measured once per run by the first
// worker (its device, its inputs) after the search; a resumed run that has them already keeps them.
void record_baselines(evidence::Store& store, std::int64_t run_id, search::WorkerPool& pool) {
  if (!store.baselines(run_id).empty()) return;
  fmt::print(stderr, "search: measuring the baselines (unfused cuBLAS attention, GEMM and copy peaks)\n");
  std::optional<std::string> reply = pool.ask(0, R"({"baselines": true})");
  if (!reply) {
    fmt::print(stderr, "search: the worker failed while measuring the baselines; the run has none\n");
    return;
  }
  // Parsed into a named value: a range-for over parse(...).at(...) would iterate a destroyed temporary.
  std::vector<evidence::BaselineRecord> measured;
  try {
    const nlohmann::json parsed = nlohmann::json::parse(*reply);
    for (const nlohmann::json& b : parsed.at("baselines")) measured.push_back(evidence::baseline_from_json(b));
  } catch (const std::exception& e) {  // the trials are recorded already; a bad reply costs only the baselines
    fmt::print(stderr, "search: unreadable baselines from the worker ({}); the run has none\n", e.what());
    return;
  }
  for (const evidence::BaselineRecord& record : measured) {
    store.record_baseline(run_id, record);
    if (record.median_us) {
      fmt::print(stderr, "search: baseline {}: {:.1f} us ({:.1f} TFLOP/s)\n", record.name, *record.median_us,
                 record.tflops.value_or(0));
    } else {
      fmt::print(stderr, "search: {}: {:.0f} {}\n", record.name, record.tflops ? *record.tflops : record.gbps.value_or(0),
                 record.tflops ? "TFLOP/s" : "GB/s");
    }
  }
}

// A search of attention configs on GPUs: one `evotune worker --problem` per device evaluates (compile,
// check, time); this process only proposes, records and reports.
template <typename Options>
void run_gpu_search(const Options& opt, const GlobalOptions& globals) {
  attention::Problem problem = attention::Problem::parse(opt.problem);
  // The device first: without one (exit 3) no database is created or touched.
  {
    std::string first = opt.devices.empty() ? "0" : opt.devices.substr(0, opt.devices.find(','));
    if (opt.resume != 0) {
      evidence::Store peek(opt.db, evidence::Store::Mode::read_only);
      std::optional<evidence::RunInfo> info = peek.run_info(opt.resume);
      if (info) {
        std::string recorded = nlohmann::json::parse(info->options_json).value("devices", first);
        first = recorded.substr(0, recorded.find(','));
      }
    }
    runtime::query_device(std::stoi(first));
  }
  evidence::Store store(opt.db, evidence::Store::Mode::read_write);
  std::int64_t run_id = opt.resume;
  std::string devices = opt.devices.empty() ? "0" : opt.devices;
  std::string strategy_name = opt.strategy;
  std::uint64_t seed = opt.seed;
  int budget = opt.budget;
  double timeout = opt.trial_timeout;
  std::string evo = opt.evo;
  int stop_after_stagnant = opt.stop_after_stagnant;
  std::vector<std::string> seed_keys;
  if (run_id != 0) {
    RunSettings resumed = resumed_settings(store, run_id, opt.db);
    evo = resumed.evo;
    stop_after_stagnant = resumed.stop_after_stagnant;
    devices = resumed.options.value("devices", devices);
    timeout = resumed.options.value("trial_timeout", timeout);
    seed_keys = resumed.seeds;
    strategy_name = resumed.strategy;
    seed = resumed.seed;
    budget = resumed.budget;
  }
  std::vector<int> ordinals;
  std::stringstream list(devices);
  for (std::string d; std::getline(list, d, ',');) ordinals.push_back(std::stoi(d));
  runtime::DeviceProperties props = runtime::query_device(ordinals.at(0));  // no device: exit 3
  search::SearchSpace space = search::attention_search_space(problem, DeviceLimits::from(props));
  if (run_id == 0 && strategy_name == "evo" && opt.history > 0) {
    for (const search::HistoricalSeed& s :
         search::attention_historical_seeds(store, problem, props.name, space, opt.history)) {
      fmt::print(stderr, "search: historical seed from run {} ({} on {}, distance {:.1f}): {}\n", s.run_id, s.problem,
                 s.device, s.distance, format_config(s.config, space.parameters()));
      seed_keys.push_back(s.config.key());
    }
  }
  auto strategy = search::make_strategy(strategy_name, space, seed, configs_from_keys(seed_keys),
                                        search::parse_evo_options(evo));
  if (run_id == 0) {
    evidence::RunInfo info;
    info.family = "attention";
    info.problem = problem.to_string();
    info.problem_json = attention::to_json(problem).dump();
    info.strategy = strategy_name;
    info.seed = seed;
    info.budget = budget;
    info.device = props.name;
    info.device_json = runtime::to_json(props).dump();
    info.versions = fmt::format("evotune {} NVRTC {} driver {}", EVOTUNE_VERSION, runtime::nvrtc_version(),
                                runtime::format_cuda_version(props.driver_version));
    info.options_json =
        nlohmann::json{{"devices", devices}, {"trial_timeout", timeout}, {"seeds", seed_keys}, {"evo", evo},
                        {"stop_after_stagnant", stop_after_stagnant}}
            .dump();
    run_id = store.create_run(info);
    fmt::print(stderr, "search: run {} in {} ({} on {} with {} worker(s), budget {}, seed {}, {} historical seeds)\n",
               run_id, opt.db, strategy_name, props.name, ordinals.size(), budget, seed, seed_keys.size());
  } else {
    fmt::print(stderr, "search: resuming run {} in {}\n", run_id, opt.db);
  }
  // Workers use this process's cache settings, so what one compiles the others (and later runs) reuse.
  std::vector<std::string> global_args;
  if (!globals.cache_dir.empty()) global_args = {"--cache-dir", globals.cache_dir};
  if (globals.no_cache) global_args.push_back("--no-cache");
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<search::WorkerCommand> commands;
  for (int d : ordinals) {
    search::WorkerCommand c{self, global_args};
    c.args.insert(c.args.end(), {"worker", "--device", std::to_string(d), "--problem", problem.to_string()});
    commands.push_back(std::move(c));
  }
  search::WorkerPool pool(std::move(commands), std::chrono::milliseconds(static_cast<long long>(timeout * 1000)));
  // Compile-ahead into the cache the workers read; pointless (and so off) without a cache.
  std::optional<CompilerStack> stack;
  std::optional<search::CompileAhead> ahead;
  if (!globals.no_cache) {
    stack.emplace(globals);
    const runtime::Target target = runtime::Target::parse(props.native_target());
    const DeviceLimits limits = DeviceLimits::from(props);
    ahead.emplace(stack->compiler(), opt.threads,
                  [problem, target, limits](const Config& c) -> std::optional<runtime::CompileRequest> {
                    if (attention::invalid_reason(c, problem, limits)) return std::nullopt;
                    return attention::compile_request(c, problem, target);
                  });
    pool.set_compile_ahead(&*ahead);
  }
  const auto start = std::chrono::steady_clock::now();
  search::SearchSummary s = drive_search(store, run_id, space, *strategy, pool, budget,
                                         std::max<int>(static_cast<int>(ordinals.size()), search::SearchOptions{}.batch),
                                         opt.kill_after, opt.max_minutes, stop_after_stagnant);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record_baselines(store, run_id, pool);
  fmt::print("run {}: {} trials ({} new) in {:.1f} s, {} valid, best {}; workers restarted {} times\n", run_id,
             s.evaluated, s.newly_evaluated, wall, s.valid, best_text(s), pool.restarts());
  if (ahead) {
    fmt::print("compile-ahead: {} configs compiled on {} threads while the GPU worked; workers waited {:.1f} s for "
               "compiles\n",
               ahead->stats().submitted, ahead->threads(), ahead->stats().waited_seconds);
  }
}

void add_search_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("search", "Search a space and record every trial in the evidence database");
  struct Options {
    std::string replay, strategy = "evo", db = "evotune.db";
    int budget = 100;
    std::uint64_t seed = 1;
    std::int64_t resume = 0;
    int kill_after = 0;
    std::string devices;
    double trial_timeout = 60;
    int worker_abort_at = 0, worker_hang_at = 0;
    int history = 3;
    std::string problem, target = "sm_90a";
    std::string evo;
    double max_minutes = 0;
    int stop_after_stagnant = 0;
    bool compile_only = false;
    unsigned threads = 0;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--replay", opt->replay, "evaluate against a recorded space (Kernel Tuner T4 file) instead of a GPU")
      ->check(CLI::ExistingFile);
  cmd->add_option("--problem", opt->problem, "attention problem, e.g. b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16");
  cmd->add_flag("--compile-only", opt->compile_only,
                "no GPU: compile the configs a search would consider into the cubin cache and record their resources");
  cmd->add_option("--target", opt->target, "compile target for --compile-only, e.g. sm_90a, sm_80");
  cmd->add_option("--threads", opt->threads, "compile threads (0: one per hardware thread)");
  cmd->add_option("--strategy", opt->strategy, "evo, random or exhaustive");
  cmd->add_option("--evo", opt->evo,
                  "evo options over the defaults, e.g. offspring=12 (see README: choosing the evo defaults)");
  cmd->add_option("--budget", opt->budget, "trials (invalid ones count)")->check(CLI::Range(1, 10000000));
  cmd->add_option("--max-minutes", opt->max_minutes,
                  "also stop after this much wall time in this invocation (the run stays resumable; 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--stop-after-stagnant", opt->stop_after_stagnant,
                  "also stop after N generations in a row without a new best (0: never; kept for --resume)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", opt->seed, "strategy seed");
  cmd->add_option("--db", opt->db, "evidence database (SQLite)");
  cmd->add_option("--resume", opt->resume, "continue run N exactly where it stopped");
  cmd->add_option("--history", opt->history,
                  "seed evo with the best configs of up to N earlier runs in the database, nearest problem first (0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--devices", opt->devices,
                  "evaluate in `evotune worker` processes, one per listed device, in parallel (e.g. 0,1)");
  cmd->add_option("--trial-timeout", opt->trial_timeout, "seconds before a worker's trial is killed as a timeout")
      ->check(CLI::PositiveNumber);
  // Test only: kill this process with SIGKILL after N newly recorded trials (the resume test uses it),
  // or make the workers abort / hang on their Nth request (the crash and timeout tests).
  cmd->add_option("--test-kill-after", opt->kill_after)->group("");
  cmd->add_option("--test-worker-abort-at", opt->worker_abort_at)->group("");
  cmd->add_option("--test-worker-hang-at", opt->worker_hang_at)->group("");
  cmd->callback([opt, &globals] {
    if (!opt->problem.empty()) {
      if (!opt->replay.empty()) throw UsageError("give --problem or --replay, not both");
      if (opt->compile_only) {
        run_compile_only(*opt, globals);
      } else {
        run_gpu_search(*opt, globals);
      }
      return;
    }
    if (opt->resume != 0) {
      evidence::Store peek(opt->db, evidence::Store::Mode::read_only);
      std::optional<evidence::RunInfo> info = peek.run_info(opt->resume);
      if (info && info->family == "attention") {
        auto resumed = *opt;
        resumed.problem = info->problem;
        run_gpu_search(resumed, globals);
        return;
      }
    }
    evidence::Store store(opt->db, evidence::Store::Mode::read_write);
    std::int64_t run_id = opt->resume;
    std::string replay = opt->replay;
    std::string strategy_name = opt->strategy;
    std::uint64_t seed = opt->seed;
    int budget = opt->budget;
    std::string evo = opt->evo;
    int stop_after_stagnant = opt->stop_after_stagnant;
    // Historical solutions: chosen when a run starts and stored with it, so that a resume replays the
    // strategy from exactly the same seeds.
    std::vector<std::string> seed_keys;
    if (run_id != 0) {
      RunSettings resumed = resumed_settings(store, run_id, opt->db);
      if (replay.empty()) replay = resumed.options.value("replay", "");
      strategy_name = resumed.strategy;
      seed = resumed.seed;
      budget = resumed.budget;
      seed_keys = resumed.seeds;
      evo = resumed.evo;
      stop_after_stagnant = resumed.stop_after_stagnant;
    }
    if (replay.empty()) throw UsageError("give --problem P (a GPU search) or --replay FILE (a recorded space)");
    search::T4Space recorded = search::T4Space::load(replay);
    if (run_id == 0 && strategy_name == "evo") {
      for (const evidence::TrialRecord& t : store.best_per_run("replay", recorded.name())) {
        if (static_cast<int>(seed_keys.size()) < opt->history) seed_keys.push_back(t.config_key);
      }
    }
    auto strategy = search::make_strategy(strategy_name, recorded.space(), seed, configs_from_keys(seed_keys),
                                          search::parse_evo_options(evo));
    if (run_id == 0) {
      evidence::RunInfo info;
      info.family = "replay";
      info.problem = recorded.name();
      info.problem_json = nlohmann::json{{"t4", recorded.name()}}.dump();
      info.strategy = strategy_name;
      info.seed = seed;
      info.budget = budget;
      info.device = "replay";
      info.versions = "evotune " EVOTUNE_VERSION;
      info.options_json = nlohmann::json{{"replay", replay}, {"seeds", seed_keys}, {"evo", evo},
                        {"stop_after_stagnant", stop_after_stagnant}}
            .dump();
      run_id = store.create_run(info);
      fmt::print(stderr, "search: run {} in {} ({} on {}, budget {}, seed {}, {} historical seeds)\n", run_id, opt->db,
                 strategy_name, recorded.name(), budget, seed, seed_keys.size());
    } else {
      fmt::print(stderr, "search: resuming run {} in {}\n", run_id, opt->db);
    }
    std::unique_ptr<search::Evaluator> evaluator = std::make_unique<search::ReplayEvaluator>(recorded);
    if (!opt->devices.empty()) {
      std::vector<search::WorkerCommand> commands;
      const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
      std::stringstream list(opt->devices);
      for (std::string device; std::getline(list, device, ',');) {
        search::WorkerCommand c{self, {"worker", "--device", device, "--replay", replay}};
        if (opt->worker_abort_at > 0) c.args.insert(c.args.end(), {"--test-abort-at", std::to_string(opt->worker_abort_at)});
        if (opt->worker_hang_at > 0) c.args.insert(c.args.end(), {"--test-hang-at", std::to_string(opt->worker_hang_at)});
        commands.push_back(std::move(c));
      }
      evaluator = std::make_unique<search::WorkerPool>(
          std::move(commands), std::chrono::milliseconds(static_cast<long long>(opt->trial_timeout * 1000)));
    }
    search::SearchSummary s = drive_search(store, run_id, recorded.space(), *strategy, *evaluator, budget,
                                           search::SearchOptions{}.batch, opt->kill_after,
                                           opt->max_minutes, stop_after_stagnant);
    fmt::print("run {}: {} trials ({} new), {} valid, best {}\n", run_id, s.evaluated, s.newly_evaluated, s.valid,
               best_text(s));
  });
}

}  // namespace evotune::cli
