// evotune search: run a search and record every trial in the evidence database. Three modes:
//   --problem P             a family's configs on GPUs (--family, attention by default, or --kernel SPEC):
//                           prepared (rules, compile in compile processes, spill verdict) in this process,
//                           checked and timed in `evotune worker` processes;
//   --problem P --compile-only   no GPU: prepare what a search would consider, into the cubin cache;
//   --replay FILE.t4        a recorded space (Kernel Tuner T4): the whole loop without a GPU.
// Ctrl-C (SIGINT) or SIGTERM stops any of them with every finished trial recorded, the run marked
// `interrupted` and one line saying how to go on; exit 128 + signal (runtime/interrupt.h).
#include <fmt/format.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <list>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "cli/cli_common.h"
#include "evidence/json_text.h"
#include "evidence/store.h"
#include "families/registry.h"
#include "harness/rejection_status.h"
#include "harness/timer.h"
#include "runtime/compile_processes.h"
#include "runtime/device_properties.h"
#include "core/errors.h"
#include "runtime/interrupt.h"
#include "core/sha256.h"
#include "search/coordinator.h"
#include "search/family_space.h"
#include "search/history.h"
#include "search/prepare_ahead.h"
#include "search/t4.h"
#include "search/worker_pool.h"
#include "search/worker_protocol.h"

namespace evotune::cli {
namespace {

struct Options {
  std::string replay, strategy = "evo", db = "evotune.db";
  int budget = 100;
  std::uint64_t seed = 1;
  std::int64_t resume = 0;
  int kill_after = 0;
  int replay_delay_ms = 0;
  std::string devices;
  double trial_timeout = 60;
  int worker_abort_at = 0, worker_hang_at = 0;
  std::string compile_crash_on, compile_hang_on;
  int history = 3;
  std::string problem, target = "sm_90a";
  std::string family, kernel;  // family: empty for the registry's default; kernel: a spec's absolute path
  std::string evo;
  double max_minutes = 0;
  int stop_after_stagnant = 0;
  bool compile_only = false;
  unsigned compile_processes = 0;
  int lookahead = 2;
  std::string space = "default";
  double compile_timeout = 30;
  std::string summary_json;
  std::string library_baseline = "auto";
  std::set<std::string> given;  // the options named on the command line (a resume checks them against the run)
};

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

// "0,1" -> {0, 1}; a one-line usage error for anything else: an empty item (",0", "0,,1", "0,"), anything
// but decimal digits (" 0", "+1", "0x1"), an ordinal beyond any machine (over 1023) or one named twice.
std::vector<int> parse_devices(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("bad --devices '{}': {}; give a comma-separated list of GPU ordinals, e.g. 0,1",
                                  text, why));
  };
  if (text.empty()) throw bad("it names no GPU");
  std::vector<int> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item.empty()) throw bad("an empty item");
    if (item.size() > 4 || !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      throw bad(fmt::format("'{}' is not an ordinal", item));
    }
    const int device = std::stoi(item);
    if (device > 1023) throw bad(fmt::format("{} is beyond any machine", device));
    if (std::find(out.begin(), out.end(), device) != out.end()) throw bad(fmt::format("{} is named twice", device));
    out.push_back(device);
    if (comma == text.size()) break;
    start = comma + 1;
  }
  return out;
}

// A cubin cache for one search when the user asked for none (--no-cache): the compile processes write
// it and the workers read it, and it is removed afterwards, so the user's cache is neither read nor
// written.
class PrivateCache {
 public:
  PrivateCache() {
    std::string pattern = (std::filesystem::temp_directory_path() / "evotune-search-cache-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a temporary cubin cache");
    path_ = pattern;
  }
  ~PrivateCache() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string self_executable() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

// The arguments this process was started with, as given (argv[0] as typed: `evotune` from PATH, or a path).
std::vector<std::string> command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> out;
  for (std::string arg; std::getline(in, arg, '\0');) out.push_back(arg);
  if (out.empty()) out.push_back("evotune");
  return out;
}

// Words for a POSIX shell: quoted where a character would mean something to it.
std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./=,:+@%").find(c) != std::string_view::npos;
    });
    if (plain) {
      out += w;
      continue;
    }
    out += '\'';
    for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

// The command that continues run `run_id`: this program as it was invoked, the global options that
// choose the cubin cache (a GPU run's), and --resume with the database.
std::string resume_command(std::int64_t run_id, const std::string& db, const std::vector<std::string>& cache_options) {
  std::vector<std::string> words{command_line().front()};
  words.insert(words.end(), cache_options.begin(), cache_options.end());
  words.insert(words.end(), {"search", "--resume", std::to_string(run_id), "--db", db});
  return shell_words(words);
}

std::vector<std::string> cache_options(const GlobalOptions& globals) {
  if (globals.no_cache) return {"--no-cache"};
  if (!globals.cache_dir.empty()) return {"--cache-dir", globals.cache_dir};
  return {};
}

// After an interruption, with every finished trial recorded: the run is marked `interrupted` and one line
// says what it holds and how to go on. Returns the exception to rethrow, marked as reported.
runtime::Interrupted run_interrupted(evidence::Store& store, std::int64_t run_id, const std::string& db, int signal,
                                     int recorded, int budget, const std::string& how_to_go_on,
                                     const std::string& what = "trials") {
  store.finish_run(run_id, "interrupted");
  fmt::print(stderr, "search: interrupted by {}: run {} in {} has {} of {} {} recorded and is marked interrupted; {}\n",
             runtime::signal_name(signal), run_id, db, recorded, budget, what, how_to_go_on);
  return runtime::Interrupted{signal, true};
}

// The compile processes of a search or sweep, with their test hooks.
runtime::CompileProcessOptions compile_process_options(const Options& opt, double timeout_seconds) {
  runtime::CompileProcessOptions o;
  o.command = {self_executable(), "compile-server"};
  if (!opt.compile_crash_on.empty()) o.command.insert(o.command.end(), {"--test-crash-on", opt.compile_crash_on});
  if (!opt.compile_hang_on.empty()) o.command.insert(o.command.end(), {"--test-hang-on", opt.compile_hang_on});
  o.processes = opt.compile_processes;
  if (timeout_seconds > 0) o.time_limit_seconds = timeout_seconds;
  // Below the worker that feeds the GPU and this coordinator: a compile may wait, the GPU should not.
  o.niceness = 5;
  return o;
}

// --compile-only: a uniform random sample of `budget` configs of the space (all of them when it is
// smaller), prepared in compile processes into the cubin cache, each recorded with its resources as
// `compiled`, `invalid` (spills), `compile_error` or `compile_timeout`. The cache can then travel to the
// GPU machine, where the same compiles are hits.
void run_compile_only(const Options& opt, const GlobalOptions& globals) {
  const std::unique_ptr<harness::Family> family = families::open_family(opt.family, opt.kernel);
  const harness::FamilyProblem problem = family->parse_problem(opt.problem);
  const runtime::Target target = compile_target(opt.target);
  const DeviceLimits limits = DeviceLimits::for_target(target);
  const search::SpaceScope scope = search::parse_space_scope(opt.space);
  search::SearchSpace space = search::family_search_space(*family, problem, limits, scope);
  auto strategy = search::make_random(space, opt.seed);
  std::vector<Config> configs = strategy->propose(opt.budget);
  std::optional<PrivateCache> private_cache;
  if (globals.no_cache) private_cache.emplace();
  runtime::CubinCache cache(private_cache ? private_cache->path() : cache_dir(globals));
  runtime::CompileProcessPool processes(compile_process_options(opt, opt.compile_timeout));
  runtime::CachingCompiler compiler(processes, cache);
  runtime::throw_if_interrupted();
  evidence::Store store(opt.db, evidence::Store::Mode::read_write);
  evidence::RunInfo info;
  info.family = family->id();
  info.problem = problem.text;
  info.problem_json = family->problem_json(problem).dump();
  info.strategy = "compile-only";
  info.seed = opt.seed;
  info.budget = opt.budget;
  info.device = target.name();
  info.versions = fmt::format("evotune {} NVRTC {}", EVOTUNE_VERSION, runtime::nvrtc_version());
  nlohmann::json options{{"target", target.name()}, {"compile_only", true}, {"space", opt.space},
                         {"compile_timeout", opt.compile_timeout}};
  if (!opt.kernel.empty()) options["kernel_spec"] = opt.kernel;
  info.options_json = evidence::json_text(options);
  std::int64_t run_id = store.create_run(info);
  fmt::print(stderr, "search: compile-only run {} in {}: {} configs of {} ({} space) for {} in {} compile processes\n",
             run_id, opt.db, configs.size(), problem.text, opt.space, target.name(), processes.processes());
  search::PrepareAhead ahead(
      [&](const Config& c) { return family->prepare(c, problem, limits, target, compiler); }, processes.processes());
  ahead.submit(configs);
  int accepted = 0, rejected = 0, failed = 0, recorded = 0;
  const bool terminal = isatty(fileno(stderr)) != 0;
  auto record = [&](std::size_t i, const runtime::Preparation& p) {
    evidence::TrialRecord t;
    t.seq = static_cast<int>(i);
    t.config_key = configs[i].key();
    t.config = family->format_config(configs[i]);
    const runtime::PreparedKernel* kernel = runtime::prepared(p);
    if (const runtime::Rejection* r = runtime::rejected(p)) {
      t.status = harness::trial_status(*r);
      t.error = r->reason;
      t.compile_seconds = r->compile_seconds;
      if (r->compiled) kernel = &*r->compiled;
      ++(r->compiled ? rejected : failed);
    } else {
      t.status = core::TrialStatus::compiled;
      ++accepted;
    }
    if (kernel != nullptr) {
      t.resources_json = runtime::to_json(kernel->resources).dump();
      t.compile_seconds = kernel->compile_seconds;
    }
    store.record_trial(run_id, t);
    ++recorded;
    std::string line = fmt::format("compiled {:>4}/{}  accepted {}  rejected (spills) {}  errors {}", recorded,
                                   configs.size(), accepted, rejected, failed);
    if (terminal) {
      fmt::print(stderr, "\r{}\x1b[K", line);
    } else if (recorded % 16 == 0 || recorded == static_cast<int>(configs.size())) {
      fmt::print(stderr, "{}\n", line);
    }
  };
  // Each config is recorded as soon as its preparation finishes, whatever the order: a slow compile holds
  // back no other. The compile threads take the configs in order, so past more unfinished ones than there
  // are threads nothing has started yet, and the scan stops there.
  std::list<std::size_t> pending(configs.size());
  std::iota(pending.begin(), pending.end(), std::size_t{0});
  try {
    for (;;) {
      ahead.drain_notifications();
      unsigned unfinished = 0;
      for (auto it = pending.begin(); it != pending.end() && unfinished <= ahead.threads();) {
        if (const std::shared_ptr<const runtime::Preparation> p = ahead.ready(configs[*it])) {
          record(*it, *p);
          it = pending.erase(it);
        } else {
          ++unfinished, ++it;
        }
      }
      if (pending.empty()) break;
      runtime::throw_if_interrupted();
      pollfd wake[2] = {{ahead.notify_fd(), POLLIN, 0}, {runtime::interrupt_fd(), POLLIN, 0}};
      poll(wake, 2, 1000);
    }
  } catch (const runtime::Interrupted& e) {
    if (terminal) fmt::print(stderr, "\n");
    throw run_interrupted(store, run_id, opt.db, e.signal, recorded, static_cast<int>(configs.size()),
                          fmt::format("a sweep does not resume: run it again{}: {}",
                                      globals.no_cache ? "" : " (what it compiled comes from the cubin cache)",
                                      shell_words(command_line())),
                          "configs");
  }
  if (terminal) fmt::print(stderr, "\n");
  store.finish_run(run_id, "finished");
  fmt::print("run {}: {} configs prepared for {}: {} accepted, {} rejected for spills, {} compile errors or timeouts\n",
             run_id, configs.size(), target.name(), accepted, rejected, failed);
}

std::vector<Config> configs_from_keys(const std::vector<std::string>& keys) {
  std::vector<Config> out;
  for (const std::string& key : keys) out.push_back(Config::from_key(key));
  return out;
}

// What a run keeps from its start so that a resume replays it exactly: strategy, seed, budget, historical
// seeds, evo options, stopping rule, lookahead, space and compile limit (`options` holds the rest). Runs
// recorded before a setting existed resume with the behaviour they were recorded with.
struct RunSettings {
  std::string strategy;
  std::uint64_t seed = 0;
  int budget = 0;
  std::vector<std::string> seeds;
  std::string evo;  // evo options as given, e.g. "offspring=12"
  int stop_after_stagnant = 0;
  int lookahead = 1;
  std::string space = "all";
  double compile_timeout = 0;  // 0: none
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
  r.lookahead = r.options.value("lookahead", 1);
  r.space = r.options.value("space", "all");
  r.compile_timeout = r.options.value("compile_timeout", 0.0);
  return r;
}

// The settings of a new run, from the command line.
RunSettings new_settings(const Options& opt) {
  RunSettings r;
  r.strategy = opt.strategy;
  r.seed = opt.seed;
  r.budget = opt.budget;
  r.evo = opt.evo;
  r.stop_after_stagnant = opt.stop_after_stagnant;
  r.lookahead = opt.lookahead;
  r.space = opt.space;
  r.compile_timeout = opt.compile_timeout;
  return r;
}

nlohmann::json stored_options(const RunSettings& s) {
  return {{"seeds", s.seeds},         {"evo", s.evo},     {"stop_after_stagnant", s.stop_after_stagnant},
          {"lookahead", s.lookahead}, {"space", s.space}, {"compile_timeout", s.compile_timeout}};
}

// What a resume starts from: the run as recorded, read before anything is opened for writing.
struct Resumed {
  std::int64_t run_id = 0;
  evidence::RunInfo info;
  RunSettings settings;
};

// Reads run `opt.resume` without writing anything: a missing database or run is a usage error.
Resumed read_resumed_run(const Options& opt) {
  if (!std::filesystem::exists(opt.db)) {
    throw UsageError(fmt::format("no evotune database at {}: there is no run {} to resume", opt.db, opt.resume));
  }
  evidence::Store peek(opt.db, evidence::Store::Mode::read_only);
  std::optional<evidence::RunInfo> info = peek.run_info(opt.resume);
  if (!info) throw UsageError(fmt::format("{} holds no run {} (see evotune runs --db {})", opt.db, opt.resume, opt.db));
  return {opt.resume, *info, resumed_settings(peek, opt.resume, opt.db)};
}

// The family of a recorded GPU run: by id, a user's kernel from the spec path its options recorded.
std::unique_ptr<harness::Family> recorded_family(const Resumed& r) {
  return families::open_recorded_family(r.info.family, r.settings.options.value("kernel_spec", std::string()));
}

// A resume replays the run as it was recorded; an option on the command line that says otherwise would mix
// two searches in one run, and is refused (one line, naming the option). Options that only say how this
// invocation runs (--max-minutes, --compile-processes, --summary-json, --library-baseline; --devices and
// --trial-timeout of a replay) are free.
void refuse_contradicting_options(const Options& opt, const Resumed& r) {
  const bool gpu = r.info.family != "replay";
  auto refuse = [&](const std::string& option, const std::string& recorded, const std::string& given) {
    throw UsageError(fmt::format("run {} was recorded with {} {}; resuming it with {} {} would mix two searches in "
                                 "one run (leave {} out, or start a new run)",
                                 r.run_id, option, recorded, option, given, option));
  };
  auto check = [&](const char* option, const auto& recorded, const auto& given) {
    if (opt.given.count(option) && !(recorded == given)) refuse(option, fmt::format("{}", recorded), fmt::format("{}", given));
  };
  if (r.settings.strategy == "compile-only") {
    throw UsageError(fmt::format("run {} is a --compile-only sweep, which does not resume: run the sweep again (what it "
                                 "compiled is in the cubin cache)", r.run_id));
  }
  if (opt.compile_only) throw UsageError("--compile-only starts a sweep; it does not resume a run");
  check("--strategy", r.settings.strategy, opt.strategy);
  check("--seed", r.settings.seed, opt.seed);
  check("--budget", r.settings.budget, opt.budget);
  check("--evo", r.settings.evo, opt.evo);
  check("--stop-after-stagnant", r.settings.stop_after_stagnant, opt.stop_after_stagnant);
  check("--lookahead", r.settings.lookahead, opt.lookahead);
  check("--space", r.settings.space, opt.space);
  check("--compile-timeout", r.settings.compile_timeout, opt.compile_timeout);
  if (opt.given.count("--history")) {
    throw UsageError(fmt::format("--history chooses a run's seeds when it starts; run {} keeps the seeds it started "
                                 "with (leave --history out)", r.run_id));
  }
  if (opt.given.count("--target")) throw UsageError("--target applies to --compile-only sweeps, which do not resume");
  if (gpu) {
    if (!opt.replay.empty()) {
      throw UsageError(fmt::format("run {} is a GPU search of {}; --replay does not apply to it", r.run_id, r.info.problem));
    }
    const std::unique_ptr<harness::Family> family = recorded_family(r);
    if (opt.given.count("--family") && opt.family != family->id()) refuse("--family", family->id(), opt.family);
    if (opt.given.count("--kernel") && opt.kernel != r.settings.options.value("kernel_spec", std::string())) {
      refuse("--kernel", r.settings.options.value("kernel_spec", std::string("(none)")), opt.kernel);
    }
    if (!opt.problem.empty() && family->parse_problem(opt.problem).text != r.info.problem) {
      refuse("--problem", r.info.problem, family->parse_problem(opt.problem).text);
    }
    const std::string devices = r.settings.options.value("devices", std::string("0"));
    if (opt.given.count("--devices") && parse_devices(opt.devices) != parse_devices(devices)) {
      refuse("--devices", devices, opt.devices);
    }
    check("--trial-timeout", r.settings.options.value("trial_timeout", opt.trial_timeout), opt.trial_timeout);
  } else if (!opt.problem.empty()) {
    throw UsageError(fmt::format("run {} searched the recorded space {}; --problem does not apply to it", r.run_id,
                                 r.info.problem));
  }
}

// A finished run has nothing left to do: its resume says so and changes nothing.
bool say_if_finished(const Resumed& r, const std::string& db) {
  if (r.info.status != "finished") return false;
  fmt::print(stderr, "search: run {} in {} is finished; nothing to resume (start a new run without --resume)\n", r.run_id,
             db);
  return true;
}

// The process that runs a run holds its claim while it does; a second process (a second resume of the same
// run) is refused instead of recording the same trials again. Released when the search ends; a claim
// left by a process that crashed is taken over (Store::claim_run).
class RunClaim {
 public:
  RunClaim(evidence::Store& store, std::int64_t run_id, const std::string& db) : store_(store), run_id_(run_id) {
    if (std::optional<evidence::RunOwner> owner = store.claim_run(run_id)) {
      throw UsageError(fmt::format("run {} in {} is being run by process {} on {} (since {}); wait for it to end, "
                                   "then resume it",
                                   run_id, db, owner->pid, owner->host, owner->claimed_at));
    }
  }
  ~RunClaim() {
    try {
      store_.release_run(run_id_);
    } catch (const std::exception&) {  // left behind, it is taken over by the next resume: the owner is gone
    }
  }
  RunClaim(const RunClaim&) = delete;
  RunClaim& operator=(const RunClaim&) = delete;

 private:
  evidence::Store& store_;
  std::int64_t run_id_;
};

// The recorded space's bytes, hashed: what a resume compares with the run's. Read as T4Space::load reads
// them: a regular file of at most search::kT4MaxDocumentBytes (a device such as /dev/zero never ends).
std::string file_sha256(const std::string& path) { return runtime::sha256_hex(search::read_t4_file(path)); }

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  return ec ? std::filesystem::absolute(path).string() : p.string();
}

// The coordinator loop with progress on stderr; marks the run finished (or interrupted). After a signal,
// the run is marked interrupted, one line says how to resume it (`cache_options`: the global options the
// resume repeats), and runtime::Interrupted goes on up.
search::SearchSummary drive_search(evidence::Store& store, std::int64_t run_id, const search::SearchSpace& space,
                                   search::Strategy& strategy, search::Evaluator& evaluator, const RunSettings& settings,
                                   int batch, const Options& opt, const std::vector<std::string>& cache_options = {}) {
  search::SearchOptions options;
  options.budget = settings.budget;
  options.batch = batch;
  options.lookahead = settings.lookahead;
  if (opt.max_minutes > 0) options.max_seconds = 60 * opt.max_minutes;
  options.stop_after_stagnant = settings.stop_after_stagnant;
  const bool terminal = isatty(fileno(stderr)) != 0;
  options.on_generation = [terminal](const search::Progress& p) { print_progress(p, terminal); };
  if (opt.kill_after > 0) options.kill_after = opt.kill_after;
  search::SearchSummary summary = search::run_search(store, run_id, space, strategy, evaluator, options);
  if (terminal) fmt::print(stderr, "\n");
  if (summary.stop_reason == "interrupted") {
    throw run_interrupted(store, run_id, opt.db, summary.interrupt_signal, summary.evaluated, settings.budget,
                          "continue it with: " + resume_command(run_id, opt.db, cache_options));
  }
  // A run stopped by the clock has budget left: `interrupted`, to be continued with --resume.
  store.finish_run(run_id, summary.stop_reason == "time" ? "interrupted" : "finished");
  if (summary.stop_reason != "budget") {
    fmt::print(stderr, "search: stopped early ({}) after {} of {} trials\n",
               summary.stop_reason == "time"         ? "wall-time limit; --resume continues it"
               : summary.stop_reason == "stagnation" ? "no new best for --stop-after-stagnant generations"
                                                     : "the strategy has nothing left to propose",
               summary.evaluated, settings.budget);
  }
  return summary;
}

std::string best_text(const search::SearchSummary& s) {
  return s.best_us ? fmt::format("{:.3f} us ({})", *s.best_us, s.best_config) : std::string("none");
}

// The reference points export and report compare the winner with, measured once per run by the first
// worker (its device, its inputs) after the search; a resumed run that has them already keeps them.
// Then the strongest library kernel, PyTorch SDPA (flash and cuDNN backends), on the first worker's device
// while the workers are idle, unless --library-baseline off. `batch`: launches per timed sample, the
// confirmation's, so that the baselines are timed as the winner was (0 without a confirmation: each
// baseline's length decides).
void record_baselines(evidence::Store& store, std::int64_t run_id, search::WorkerPool& pool,
                      const harness::Family& family, const harness::FamilyProblem& problem, int device, bool library,
                      int batch) {
  if (!store.baselines(run_id).empty()) return;
  fmt::print(stderr, "search: measuring the baselines ({})\n", family.baselines_description());
  std::optional<std::string> reply =
      pool.ask(0, search::to_line(search::WorkerRequest{search::BaselinesRequest{batch}}));
  if (!reply) {
    fmt::print(stderr, "search: the worker failed while measuring the baselines; the run has none\n");
    return;
  }
  std::vector<evidence::BaselineRecord> measured;
  try {
    measured = search::parse_baselines_reply(*reply);
  } catch (const std::exception& e) {  // the trials are recorded already; a bad reply costs only the baselines
    fmt::print(stderr, "search: unreadable baselines from the worker ({}); the run has none\n", e.what());
    return;
  }
  // Recorded and said as each arrives: a timed baseline, a peak, or a library backend that did not run.
  auto record = [&](const evidence::BaselineRecord& b) {
    store.record_baseline(run_id, b);
    if (b.median_us) {
      fmt::print(stderr, "search: baseline {}: {:.1f} us ({:.1f} TFLOP/s)\n", b.name, *b.median_us, b.tflops.value_or(0));
    } else if (b.tflops || b.gbps) {
      fmt::print(stderr, "search: {}: {:.0f} {}\n", b.name, b.tflops ? *b.tflops : *b.gbps, b.tflops ? "TFLOP/s" : "GB/s");
    } else {
      fmt::print(stderr, "search: baseline {}: no time ({})\n", b.name, b.detail_json);
    }
  };
  for (const evidence::BaselineRecord& b : measured) record(b);
  if (!library) return;
  fmt::print(stderr, "search: timing the library baselines on device {} (--library-baseline off skips)\n", device);
  const harness::Family::LibraryBaselines library_baselines = family.library_baselines(problem, device, batch);
  if (!library_baselines.unavailable.empty()) {
    fmt::print(stderr, "search: no library baseline: {}\n", library_baselines.unavailable);
  }
  for (const evidence::BaselineRecord& b : library_baselines.records) record(b);
}

// DESIGN.md: "the final winner is confirmed by re-timing the top few configs interleaved". A GPU's state
// (clocks, temperature) drifts over the seconds between trials by about 2% on the H100 (the same config
// measured in different trials of one call: evidence/results/h100/search-throughput/), more than separates
// the best configs; timed round-robin, the drift reaches them all alike. Returns the confirmed ranking
// (median over rounds, fastest first), also recorded in the `retimes` table; empty when there is nothing
// to confirm or the worker failed.
struct Confirmed {
  std::string config;  // with labels
  double median_us = 0;
  double search_us = 0;  // as the search measured it
  int batch = 1;         // launches per timed sample (the same for all)
};
constexpr int kConfirmTop = 5, kConfirmRounds = 5, kConfirmReps = 10;

std::vector<Confirmed> confirm_top(evidence::Store& store, std::int64_t run_id, search::WorkerPool& pool,
                                   search::PrepareAhead& ahead, const harness::Family& family) {
  if (!store.retimes(run_id).empty()) return {};  // a resumed run confirmed before: kept as it was
  const std::vector<evidence::TrialRecord> top = store.top(run_id, kConfirmTop);
  if (top.size() < 2) return {};
  search::RetimeRequest request;
  request.rounds = kConfirmRounds;
  request.reps = kConfirmReps;
  request.batch = pool.batch();  // as the trials were timed (0 in a resumed run with no new trial)
  std::vector<const evidence::TrialRecord*> sent;
  for (const evidence::TrialRecord& t : top) {
    // Prepared in this search, or (a resumed run) prepared now from the cache.
    // (A trial recorded before a tunable existed ran it at its default value.)
    const auto p = ahead.wait(family.complete_recorded(Config::from_key(t.config_key)));
    const runtime::PreparedKernel* kernel = runtime::prepared(*p);
    if (kernel == nullptr) continue;
    request.kernels.push_back({t.config_key, kernel->cache_key, kernel->kernel_name, std::nullopt});
    sent.push_back(&t);
  }
  if (sent.size() < 2) return {};
  fmt::print(stderr, "search: confirming the winner: the top {} re-timed interleaved ({} rounds x {} samples)\n",
             sent.size(), request.rounds, request.reps);
  std::optional<std::string> line = pool.ask(0, search::to_line(search::WorkerRequest{request}));
  search::RetimeReply reply;
  try {
    if (!line) throw std::runtime_error("the worker failed");
    reply = search::parse_retime_reply(*line);
    if (reply.medians_us.size() != sent.size()) throw std::runtime_error("a reply of the wrong length");
  } catch (const std::exception& e) {  // the trials are recorded; only the confirmation is lost
    fmt::print(stderr, "search: no confirmation ({}); the search's own best stands\n", e.what());
    return {};
  }
  std::vector<evidence::RetimeRecord> records;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    for (std::size_t r = 0; r < reply.medians_us[i].size(); ++r) {
      records.push_back({sent[i]->config_key, static_cast<int>(r), reply.medians_us[i][r]});
    }
  }
  store.record_retimes(run_id, records);
  // The ranking as the store reads it back: the one export and historical seeds use.
  std::vector<Confirmed> ranking;
  for (const evidence::Store::Confirmed& c : store.confirmed(run_id)) {
    const auto trial = std::find_if(top.begin(), top.end(), [&](const auto& t) { return t.config_key == c.config_key; });
    ranking.push_back({trial->config, c.median_us, trial->median_us.value_or(0), reply.batch});
  }
  return ranking;
}

// A search of a family's configs on GPUs: this process proposes, prepares (compile processes) and records;
// one `evotune worker --problem` per device loads, checks and times.
void run_gpu_search(const Options& opt, const GlobalOptions& globals) {
  const auto command_start = std::chrono::steady_clock::now();
  search::parse_evo_options(opt.evo);  // a bad option is a usage error before any database is touched
  std::vector<int> ordinals = parse_devices(opt.devices.empty() ? "0" : opt.devices);
  // The run to resume, as recorded, and whether the command line agrees with it: before anything else.
  std::optional<Resumed> resumed;
  if (opt.resume != 0) {
    resumed = read_resumed_run(opt);
    refuse_contradicting_options(opt, *resumed);
    if (say_if_finished(*resumed, opt.db)) return;
    ordinals = parse_devices(resumed->settings.options.value("devices", std::string("0")));
  }
  const std::unique_ptr<harness::Family> family_holder =
      resumed ? recorded_family(*resumed) : families::open_family(opt.family, opt.kernel);
  const harness::Family& family = *family_holder;
  const std::string kernel_spec =
      resumed ? resumed->settings.options.value("kernel_spec", std::string()) : opt.kernel;
  const harness::FamilyProblem problem = family.parse_problem(resumed ? resumed->info.problem : opt.problem);
  // The device next: without one (exit 3) no database is created or touched.
  const runtime::DeviceProperties props = runtime::query_device(ordinals.at(0));  // no device: exit 3
  // The cubin cache is where prepared kernels travel from the compile processes to the workers: one that
  // cannot be written is refused before the database is touched.
  std::optional<PrivateCache> private_cache;
  if (globals.no_cache) private_cache.emplace();
  const std::filesystem::path cache_path = private_cache ? private_cache->path() : cache_dir(globals);
  runtime::CubinCache cache(cache_path);
  if (std::optional<std::string> why = cache.write_problem()) {
    throw UsageError(fmt::format("the cubin cache {} cannot be written ({}); a GPU search hands its kernels to the "
                                 "workers through it: give --cache-dir DIR",
                                 cache_path.string(), *why));
  }
  evidence::Store store(opt.db, evidence::Store::Mode::read_write);
  std::int64_t run_id = opt.resume;
  RunSettings settings = resumed ? resumed->settings : new_settings(opt);
  double timeout = run_id != 0 ? settings.options.value("trial_timeout", opt.trial_timeout) : opt.trial_timeout;
  const search::SpaceScope scope = search::parse_space_scope(settings.space);
  const DeviceLimits limits = DeviceLimits::from(props);
  search::SearchSpace space = search::family_search_space(family, problem, limits, scope);
  if (run_id == 0 && settings.strategy == "evo") {
    // Generation 0 starts from the problem-aware default, as bench and the launcher's fallback do, and the
    // family's alternatives to it (the other side of its rules, farther than mutation reaches in a short
    // search); stored with the other seeds, so a resume replays them.
    const Config heuristic = family.default_config(problem, limits);
    if (space.valid(heuristic)) {
      fmt::print(stderr, "search: seed from the problem-aware default: {}\n", family.format_config(heuristic));
      settings.seeds.push_back(heuristic.key());
    }
    for (const Config& other : family.default_alternatives(problem, limits)) {
      if (!space.valid(other)) continue;
      fmt::print(stderr, "search: seed from the other side of the default's rules: {}\n", family.format_config(other));
      settings.seeds.push_back(other.key());
    }
  }
  if (run_id == 0 && settings.strategy == "evo" && opt.history > 0) {
    for (const search::HistoricalSeed& s :
         search::historical_seeds(store, family, problem, props.name, space, opt.history)) {
      fmt::print(stderr, "search: historical seed from run {} ({} on {}, distance {:.1f}): {}\n", s.run_id, s.problem,
                 s.device, s.distance, format_config(s.config, space.parameters()));
      settings.seeds.push_back(s.config.key());
    }
  }
  // Seeds stored by a run recorded before a tunable existed ran it at its default value.
  std::vector<Config> seeds = configs_from_keys(settings.seeds);
  for (Config& seed : seeds) seed = family.complete_recorded(seed);
  auto strategy = search::make_strategy(settings.strategy, space, settings.seed, seeds,
                                        search::parse_evo_options(settings.evo));
  std::string devices;
  for (int d : ordinals) devices += (devices.empty() ? "" : ",") + std::to_string(d);
  if (run_id == 0) {
    evidence::RunInfo info;
    info.family = family.id();
    info.problem = problem.text;
    info.problem_json = family.problem_json(problem).dump();
    info.strategy = settings.strategy;
    info.seed = settings.seed;
    info.budget = settings.budget;
    info.device = props.name;
    info.device_json = runtime::to_json(props).dump();
    info.versions = fmt::format("evotune {} NVRTC {} driver {}", EVOTUNE_VERSION, runtime::nvrtc_version(),
                                runtime::format_cuda_version(props.driver_version));
    nlohmann::json options = stored_options(settings);
    options["devices"] = devices;
    options["trial_timeout"] = timeout;
    if (!kernel_spec.empty()) options["kernel_spec"] = kernel_spec;
    info.options_json = evidence::json_text(options);
    runtime::throw_if_interrupted();
    run_id = store.create_run(info);
  }
  RunClaim claim(store, run_id, opt.db);
  if (resumed) {
    // Another process may have finished it between the first look and the claim.
    resumed->info.status = store.run_info(run_id)->status;
    if (say_if_finished(*resumed, opt.db)) return;
  }
  runtime::CompileProcessPool processes(compile_process_options(opt, settings.compile_timeout));
  runtime::CachingCompiler compiler(processes, cache);
  const runtime::Target target = runtime::Target::parse(props.native_target());
  search::PrepareAhead ahead(
      [&](const Config& c) { return family.prepare(c, problem, limits, target, compiler); }, processes.processes());
  fmt::print(stderr,
             "search: {} run {} in {} ({} on {}, {} worker(s), budget {}, seed {}, {} historical seeds; {} space, "
             "lookahead {}, {} compile processes)\n",
             opt.resume != 0 ? "resuming" : "new", run_id, opt.db, settings.strategy, props.name, ordinals.size(),
             settings.budget, settings.seed, settings.seeds.size(), settings.space, settings.lookahead,
             processes.processes());
  std::vector<search::WorkerCommand> commands;
  for (int d : ordinals) {
    search::WorkerCommand c{self_executable(), {"--cache-dir", cache_path.string()}};
    c.args.insert(c.args.end(), {"worker", "--device", std::to_string(d), "--problem", problem.text});
    if (kernel_spec.empty()) {
      c.args.insert(c.args.end(), {"--family", family.id()});
    } else {
      c.args.insert(c.args.end(), {"--kernel", kernel_spec});
    }
    commands.push_back(std::move(c));
  }
  search::WorkerPool pool(std::move(commands), std::chrono::milliseconds(static_cast<long long>(timeout * 1000)));
  pool.set_preparer(&ahead);
  const auto start = std::chrono::steady_clock::now();
  search::SearchSummary s = drive_search(store, run_id, space, *strategy, pool, settings,
                                         std::max<int>(static_cast<int>(ordinals.size()), search::SearchOptions{}.batch),
                                         opt, cache_options(globals));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<Confirmed> confirmed;
  try {
    // A run stopped by the clock goes on later: its winner is confirmed when it finishes.
    if (s.stop_reason != "time") confirmed = confirm_top(store, run_id, pool, ahead, family);
    record_baselines(store, run_id, pool, family, problem, ordinals.at(0), opt.library_baseline == "auto",
                     confirmed.empty() ? 0 : confirmed[0].batch);
  } catch (const runtime::Interrupted& e) {
    // The trials are all in; the resume replays them and then confirms the winner and measures the baselines.
    throw run_interrupted(store, run_id, opt.db, e.signal, s.evaluated, settings.budget,
                          "continue it with: " + resume_command(run_id, opt.db, cache_options(globals)));
  }
  // Where the time went: per worker (GPU), busy + waiting for compiles + other idle + start-up and pipe
  // latency (in flight but not busy) add up to the search's wall time.
  const search::WorkerTimeline& t = pool.timeline();
  const search::PrepareAhead::Stats c = ahead.stats();
  const double gpu_seconds = wall * static_cast<double>(ordinals.size());
  const double busy_fraction = gpu_seconds > 0 ? t.busy / gpu_seconds : 0;
  const double wait_fraction = gpu_seconds > 0 ? t.waiting_for_prepare / gpu_seconds : 0;
  const double nvrtc_median = harness::summarize(c.nvrtc_seconds, 1).median_us;  // of seconds, despite the name
  const double nvrtc_max = c.nvrtc_seconds.empty() ? 0 : *std::max_element(c.nvrtc_seconds.begin(), c.nvrtc_seconds.end());
  fmt::print("run {}: {} trials ({} new) in {:.1f} s, {} valid, best {}; workers restarted {} times\n", run_id,
             s.evaluated, s.newly_evaluated, wall, s.valid, best_text(s), pool.restarts());
  fmt::print("GPU time: busy {:.1f} s ({:.0f}% of the wall time: loading, checking and timing configs), waited for "
             "compiles {:.1f} s ({:.0f}%), other idle {:.1f} s, worker start-up and messaging {:.1f} s; {} configs "
             "evaluated ahead of their batch\n",
             t.busy, 100 * busy_fraction, t.waiting_for_prepare, 100 * wait_fraction, t.idle_other,
             std::max(0.0, t.in_flight - t.busy), t.early);
  if (!confirmed.empty()) {
    // Back to back, the GPU runs hotter and slower than in the search, which left it idle between trials:
    // these times sit a few percent above the search's; the order among them is the confirmation.
    fmt::print("confirmed: the top {} re-timed interleaved ({} rounds x {} flushed samples{}, median of rounds; back "
               "to back, so a few percent above the search's times: the order is what counts):\n",
               confirmed.size(), kConfirmRounds, kConfirmReps,
               confirmed[0].batch > 1 ? fmt::format(", each a CUDA graph of {} launches", confirmed[0].batch) : "");
    for (std::size_t i = 0; i < confirmed.size(); ++i) {
      fmt::print("  {}. {:.3f} us (search: {:.3f} us)  {}\n", i + 1, confirmed[i].median_us, confirmed[i].search_us,
                 confirmed[i].config);
    }
    fmt::print("winner: {} at {:.3f} us\n", confirmed[0].config, confirmed[0].median_us);
  }
  if (wait_fraction > 0.25 && s.newly_evaluated > 0) {
    // The pipeline keeps about (lookahead - 1) x generation configs proposed ahead; fewer than twice the
    // compile processes leaves processes idle at every slow compile, and the GPU then waits.
    fmt::print("hint: the GPU waited for compiles {:.0f}% of the time. About (lookahead - 1) x generation size "
               "configs are compiled ahead; with {} compile processes, {} or more keeps them busy (e.g. --evo "
               "offspring=16 --lookahead 3; README, \"GPU searches\")\n",
               100 * wait_fraction, processes.processes(), 2 * processes.processes());
  }
  fmt::print("compiles: {} configs prepared: {} compiled in {} processes (NVRTC median {:.2f} s, max {:.2f} s), {} from "
             "the cache; rejected: {} by the rules, {} for spills, {} compile errors, {} compile timeouts; lookahead {}\n",
             c.prepared, c.compiled_now, processes.processes(), nvrtc_median, nvrtc_max, c.from_cache,
             c.rejected_by_rule, c.rejected_resources, c.compile_errors, c.compile_timeouts, settings.lookahead);
  if (!opt.summary_json.empty()) {
    const double command_wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - command_start).count();
    write_output_file(opt.summary_json,
                      nlohmann::json{{"run_id", run_id},
                                     {"trials", s.evaluated},
                                     {"new_trials", s.newly_evaluated},
                                     {"valid", s.valid},
                                     {"best_us", s.best_us ? nlohmann::json(*s.best_us) : nlohmann::json(nullptr)},
                                     {"best_config", s.best_config},
                                     {"confirmed_best_us", confirmed.empty() ? nlohmann::json(nullptr)
                                                                             : nlohmann::json(confirmed[0].median_us)},
                                     {"confirmed_best_config", confirmed.empty() ? std::string() : confirmed[0].config},
                                     {"launches_per_sample", pool.batch()},
                                     {"search_wall_s", wall},
                                     {"command_wall_s", command_wall},
                                     {"workers", ordinals.size()},
                                     {"gpu_busy_s", t.busy},
                                     {"gpu_wait_s", t.waiting_for_prepare},
                                     {"gpu_idle_other_s", t.idle_other},
                                     {"gpu_in_flight_s", t.in_flight},
                                     {"gpu_busy_fraction", busy_fraction},
                                     {"gpu_wait_fraction", wait_fraction},
                                     {"evaluated_early", t.early},
                                     {"prepared", c.prepared},
                                     {"compiled_now", c.compiled_now},
                                     {"from_cache", c.from_cache},
                                     {"rejected_by_rule", c.rejected_by_rule},
                                     {"rejected_resources", c.rejected_resources},
                                     {"compile_errors", c.compile_errors},
                                     {"compile_timeouts", c.compile_timeouts},
                                     {"nvrtc_median_s", nvrtc_median},
                                     {"nvrtc_max_s", nvrtc_max},
                                     {"compile_processes", processes.processes()},
                                     {"lookahead", settings.lookahead},
                                     {"space", settings.space},
                                     {"worker_restarts", pool.restarts()}}
                              .dump(2) +
                          "\n");
  }
}

// The recorded space a resumed replay run goes on with: the one given (or else the one recorded), which
// must be the run's: the same bytes as when it started. Runs recorded before evotune kept the hash are
// resumed as before, saying that their space cannot be checked.
std::string resumed_space(const Options& opt, const Resumed& r, const std::string& sha256_of_given) {
  const std::string recorded_path =
      !r.info.space_path.empty() ? r.info.space_path : r.settings.options.value("replay", std::string());
  const std::string path = opt.replay.empty() ? recorded_path : opt.replay;
  if (path.empty()) throw UsageError(fmt::format("run {} does not say which recorded space it searched", r.run_id));
  if (!std::filesystem::exists(path)) {
    throw UsageError(fmt::format("run {} searched {}, which is not there any more (give it with --replay)", r.run_id, path));
  }
  const std::string sha256 = sha256_of_given.empty() ? file_sha256(path) : sha256_of_given;
  if (r.info.space_sha256.empty()) {
    fmt::print(stderr, "search: run {} was recorded before evotune kept a hash of its recorded space: {} cannot be "
                       "checked against it\n", r.run_id, path);
  } else if (sha256 != r.info.space_sha256) {
    const std::string recorded = fmt::format("run {} searched {} (sha256 {}...)", r.run_id, r.info.space_path,
                                             r.info.space_sha256.substr(0, 12));
    if (absolute_path(path) == r.info.space_path) {
      throw UsageError(fmt::format("{}, which has changed since (now sha256 {}...); resuming on other data would mix "
                                   "two spaces in one run", recorded, sha256.substr(0, 12)));
    }
    throw UsageError(fmt::format("{}; {} is another recorded space (sha256 {}...)", recorded, path, sha256.substr(0, 12)));
  }
  return path;
}

void run_replay_search(const Options& opt) {
  // Every input is checked before the database is opened for writing: a refused search leaves no new
  // database, and changes nothing in an existing one.
  search::parse_evo_options(opt.evo);
  if (!opt.devices.empty()) parse_devices(opt.devices);
  std::optional<Resumed> resumed;
  if (opt.resume != 0) {
    resumed = read_resumed_run(opt);
    refuse_contradicting_options(opt, *resumed);
    if (say_if_finished(*resumed, opt.db)) return;
  } else if (opt.replay.empty()) {
    throw UsageError("give --problem P (a GPU search) or --replay FILE (a recorded space)");
  }
  RunSettings settings = resumed ? resumed->settings : new_settings(opt);
  std::string replay = opt.replay;
  std::string space_sha256;
  if (!replay.empty()) space_sha256 = file_sha256(replay);
  if (resumed) replay = resumed_space(opt, *resumed, space_sha256), space_sha256 = file_sha256(replay);
  search::T4Space recorded = search::T4Space::load(replay);
  // Historical solutions: chosen when a run starts and stored with it, so that a resume replays the
  // strategy from exactly the same seeds.
  // (Read before the database is opened for writing; a file another search has only just created has no
  // schema yet, and no history.)
  if (!resumed && settings.strategy == "evo" && opt.history > 0 && evidence::holds_evotune_schema(opt.db)) {
    evidence::Store history(opt.db, evidence::Store::Mode::read_only);
    for (const evidence::TrialRecord& t : history.best_per_run("replay", recorded.name())) {
      if (static_cast<int>(settings.seeds.size()) < opt.history) settings.seeds.push_back(t.config_key);
    }
  }
  auto strategy = search::make_strategy(settings.strategy, recorded.space(), settings.seed,
                                        configs_from_keys(settings.seeds), search::parse_evo_options(settings.evo));
  evidence::Store store(opt.db, evidence::Store::Mode::read_write);
  std::int64_t run_id = opt.resume;
  std::optional<RunClaim> claim;
  if (run_id == 0) {
    evidence::RunInfo info;
    info.family = "replay";
    info.problem = recorded.name();
    info.problem_json = evidence::json_text(nlohmann::json{{"t4", recorded.name()}});
    info.strategy = settings.strategy;
    info.seed = settings.seed;
    info.budget = settings.budget;
    info.device = "replay";
    info.versions = "evotune " EVOTUNE_VERSION;
    info.space_path = absolute_path(replay);
    info.space_sha256 = space_sha256;
    nlohmann::json options = stored_options(settings);
    options["replay"] = replay;
    info.options_json = evidence::json_text(options);
    runtime::throw_if_interrupted();
    run_id = store.create_run(info);
    claim.emplace(store, run_id, opt.db);
    fmt::print(stderr, "search: run {} in {} ({} on {}, budget {}, seed {}, {} historical seeds, lookahead {})\n",
               run_id, opt.db, settings.strategy, recorded.name(), settings.budget, settings.seed,
               settings.seeds.size(), settings.lookahead);
  } else {
    claim.emplace(store, run_id, opt.db);
    // Another process may have finished it between the first look and the claim.
    resumed->info.status = store.run_info(run_id)->status;
    if (say_if_finished(*resumed, opt.db)) return;
    fmt::print(stderr, "search: resuming run {} in {}\n", run_id, opt.db);
  }
  auto replay_evaluator = std::make_unique<search::ReplayEvaluator>(recorded);
  replay_evaluator->set_delay_ms(opt.replay_delay_ms);
  std::unique_ptr<search::Evaluator> evaluator = std::move(replay_evaluator);
  if (!opt.devices.empty()) {
    std::vector<search::WorkerCommand> commands;
    for (int device : parse_devices(opt.devices)) {
      search::WorkerCommand c{self_executable(), {"worker", "--device", std::to_string(device), "--replay", replay}};
      if (opt.worker_abort_at > 0) c.args.insert(c.args.end(), {"--test-abort-at", std::to_string(opt.worker_abort_at)});
      if (opt.worker_hang_at > 0) c.args.insert(c.args.end(), {"--test-hang-at", std::to_string(opt.worker_hang_at)});
      if (opt.replay_delay_ms > 0) c.args.insert(c.args.end(), {"--test-delay-ms", std::to_string(opt.replay_delay_ms)});
      commands.push_back(std::move(c));
    }
    evaluator = std::make_unique<search::WorkerPool>(
        std::move(commands), std::chrono::milliseconds(static_cast<long long>(opt.trial_timeout * 1000)));
  }
  search::SearchSummary s =
      drive_search(store, run_id, recorded.space(), *strategy, *evaluator, settings, search::SearchOptions{}.batch, opt);
  fmt::print("run {}: {} trials ({} new), {} valid, best {}\n", run_id, s.evaluated, s.newly_evaluated, s.valid,
             best_text(s));
}

// A command that Ctrl-C (SIGINT) and SIGTERM interrupt in order (runtime/interrupt.h): the search reports
// what it recorded once a run exists; before, this says that nothing was.
std::function<void()> interruptible(std::function<void()> command) {
  return [command = std::move(command)] {
    runtime::install_interrupt_handlers();
    try {
      command();
    } catch (const runtime::Interrupted& e) {
      if (!e.reported) {
        fmt::print(stderr, "search: interrupted by {} before a run was recorded; nothing to resume\n",
                   runtime::signal_name(e.signal));
      }
      throw;
    }
  };
}

}  // namespace

void add_search_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("search", "Search a space and record every trial in the evidence database");
  auto opt = std::make_shared<Options>();
  cmd->add_option("--replay", opt->replay,
                  "evaluate against a recorded space (Kernel Tuner T4 file) instead of a GPU (no default: give "
                  "--problem or --replay)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--problem", opt->problem,
                  "the family's problem, e.g. b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16 for attention (default with "
                  "--family or --kernel: the family's listed problems, one run each)");
  cmd->add_option("--family", opt->family, "the kernel family (default attention; evotune families lists them)");
  cmd->add_option("--kernel", opt->kernel,
                  "tune a kernel of yours described by a spec file (docs/kernel-spec.md); its family is "
                  "user_kernel:<name> (default: none, --family's kernels)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--compile-only", opt->compile_only,
                "no GPU: prepare (compile) the configs a search would consider into the cubin cache and record "
                "their resources");
  cmd->add_option("--target", opt->target, "compile target for --compile-only, e.g. sm_90a, sm_80");
  cmd->add_option("--compile-processes", opt->compile_processes,
                  "compile processes (evotune compile-server) running NVRTC at once (0: one per hardware thread)")
      ->check(WholeNumber(0, 1024));
  cmd->add_option("--compile-timeout", opt->compile_timeout,
                  "seconds a config's compile may take before it is killed and recorded as compile_timeout (0: no "
                  "limit; at most a day; kept for --resume)")
      ->check(FiniteNumber)
      ->check(CLI::Range(0.0, kMaxTimeoutSeconds));
  cmd->add_option("--space", opt->space,
                  "default: valid configs less those known not to pay (mma=scalar on sm_80+: see README); all: every "
                  "valid config (kept for --resume)")
      ->check(CLI::IsMember({"default", "all"}));
  cmd->add_option("--lookahead", opt->lookahead,
                  "batches proposed ahead of their results, so the next batch compiles while this one is timed (1: "
                  "every batch sees every earlier result; kept for --resume)")
      ->check(WholeNumber(1, 8));
  cmd->add_option("--library-baseline", opt->library_baseline,
                  "auto: after the search, time PyTorch SDPA's flash and cuDNN backends on the same problem and "
                  "device (scripts/compare_sdpa.py through python3 with torch) and record them as the run's "
                  "baselines sdpa_flash and sdpa_cudnn, which export and report compare the winner with; off: do not")
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  cmd->add_option("--strategy", opt->strategy, "evo, random or exhaustive")
      ->check(CLI::IsMember({"evo", "random", "exhaustive"}));
  cmd->add_option("--evo", opt->evo,
                  "evo options over the defaults, e.g. offspring=12 (see README: choosing the evo defaults; "
                  "default: none, evo's defaults)");
  cmd->add_option("--budget", opt->budget, "trials (invalid ones count)")->check(WholeNumber(1, 10000000));
  cmd->add_option("--max-minutes", opt->max_minutes,
                  "also stop after this much wall time in this invocation (the run stays resumable; 0: no limit; at "
                  "most 30 days)")
      ->check(FiniteNumber)
      ->check(CLI::Range(0.0, 30 * 24 * 60.0));
  cmd->add_option("--stop-after-stagnant", opt->stop_after_stagnant,
                  "also stop after N generations in a row without a new best (0: never; kept for --resume)")
      ->check(WholeNumber(0, 1000000));
  cmd->add_option("--seed", opt->seed, "strategy seed, 0 to 2^63-1")->check(SeedNumber);
  cmd->add_option("--db", opt->db, "evidence database (SQLite)");
  cmd->add_option("--resume", opt->resume, "continue run N exactly where it stopped (default: start a new run)")
      ->check(WholeNumber(1, std::numeric_limits<std::int64_t>::max()))
      ->default_str("");  // 0 stands for "no run"; the description says so
  cmd->add_option("--history", opt->history,
                  "seed evo with the best configs of up to N earlier runs in the database, nearest problem first (0: none)")
      ->check(WholeNumber(0, 100000));
  cmd->add_option("--devices", opt->devices,
                  "evaluate in `evotune worker` processes, one per listed device, in parallel (e.g. 0,1; default: "
                  "device 0 for --problem, this process for --replay)");
  cmd->add_option("--trial-timeout", opt->trial_timeout,
                  "seconds before a worker's trial is killed as a timeout (above 0, at most a day)")
      ->check(FiniteNumber)
      ->check(CLI::PositiveNumber)
      ->check(CLI::Range(0.0, kMaxTimeoutSeconds));
  cmd->add_option("--summary-json", opt->summary_json,
                  "GPU search: also write the final figures (trials, wall time, GPU busy and waiting, compiles) as "
                  "JSON (default: none)");
  // Test only: kill this process with SIGKILL after N newly recorded trials (the resume test uses it), make
  // the workers abort / hang on their Nth request, or the compile processes crash / hang on configs whose
  // label contains a marker (the crash and timeout tests), or make each replayed evaluation take N ms (in
  // this process or the workers: the interrupt tests, which need a search still running).
  cmd->add_option("--test-kill-after", opt->kill_after)->group("");
  cmd->add_option("--test-replay-delay-ms", opt->replay_delay_ms)->group("")->check(CLI::Range(0, 60000));
  cmd->add_option("--test-worker-abort-at", opt->worker_abort_at)->group("");
  cmd->add_option("--test-worker-hang-at", opt->worker_hang_at)->group("");
  cmd->add_option("--test-compile-crash-on", opt->compile_crash_on)->group("");
  cmd->add_option("--test-compile-hang-on", opt->compile_hang_on)->group("");
  cmd->callback(interruptible([opt, &globals, cmd] {
    for (const CLI::Option* option : cmd->get_options()) {
      if (option->count() > 0) opt->given.insert(option->get_name());
    }
    // An output that would overwrite the database, and malformed devices, are refused before anything runs.
    check_database_path(opt->db);
    refuse_database_as_output(opt->summary_json, opt->db);
    if (!opt->devices.empty()) parse_devices(opt->devices);
    if (!opt->problem.empty() && !opt->replay.empty()) throw UsageError("give --problem or --replay, not both");
    if (!opt->kernel.empty()) {
      if (opt->given.count("--family")) throw UsageError("give --family or --kernel, not both");
      if (!opt->replay.empty()) throw UsageError("give --kernel or --replay, not both");
      // Recorded with the run and handed to the workers: the spec as found from anywhere.
      opt->kernel = std::filesystem::absolute(opt->kernel).lexically_normal().string();
    }
    if (opt->resume != 0) {
      // The run decides which search resumes it: a GPU search or a replay; its options are checked there.
      const Resumed run = read_resumed_run(*opt);
      if (run.info.family != "replay") {
        refuse_contradicting_options(*opt, run);
        run_gpu_search(*opt, globals);
      } else {
        run_replay_search(*opt);
      }
      return;
    }
    auto run = [&](const Options& o) { o.compile_only ? run_compile_only(o, globals) : run_gpu_search(o, globals); };
    if (!opt->problem.empty()) {
      run(*opt);
      return;
    }
    if (!opt->kernel.empty() || opt->given.count("--family") || opt->compile_only) {
      // No --problem: each problem the family lists (a kernel spec's), one run each, in order.
      const std::unique_ptr<harness::Family> family = families::open_family(opt->family, opt->kernel);
      const std::vector<harness::FamilyProblem> listed = family->listed_problems();
      if (listed.empty()) throw UsageError(fmt::format("{} lists no problems: give --problem", family->id()));
      for (const harness::FamilyProblem& p : listed) {
        Options one = *opt;
        one.problem = p.text;
        if (listed.size() > 1) fmt::print(stderr, "search: problem {} of {}: {}\n", &p - listed.data() + 1, listed.size(), p.text);
        run(one);
      }
      return;
    }
    run_replay_search(*opt);
  }));
}

}  // namespace evotune::cli
