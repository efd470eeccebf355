// evotune compile-bench: how many kernel variants per second this machine compiles, cold (NVRTC runs)
// and cached (answered from the disk cache), with NVRTC in threads of this process or in compile
// processes (runtime/compile_processes.h). Needs no GPU. Each setting uses a fresh, private cache
// directory so that "cold" really is cold, and removes it afterwards.
#include <fmt/format.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "cli/cli_common.h"
#include "runtime/compile_pool.h"
#include "runtime/compile_processes.h"
#include "core/errors.h"
#include "families/registry.h"
#include "search/family_space.h"
#include "harness/smoke_family.h"

namespace evotune::cli {
namespace {

struct Pass {
  double seconds = 0.0;
  double nvrtc_seconds = 0.0;  // summed over compiles
  int hits = 0;
};

Pass compile_all(runtime::CachingCompiler& compiler, const std::vector<runtime::CompileRequest>& requests,
                 unsigned threads) {
  int hits_before = compiler.hits();
  auto start = std::chrono::steady_clock::now();
  Pass pass;
  {
    runtime::CompilePool pool(compiler, threads);
    std::vector<std::future<runtime::CompileResult>> futures;
    for (const auto& r : requests) futures.push_back(pool.submit(r));
    for (auto& f : futures) pass.nvrtc_seconds += f.get().compile_seconds;
  }
  pass.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  pass.hits = compiler.hits() - hits_before;
  return pass;
}

// `count` distinct requests: smoke kernels, or valid configs of a family's default search space for one
// problem (a registered family by name, or a kernel spec file), sampled with a fixed seed.
std::vector<runtime::CompileRequest> bench_requests(const std::string& kernel, int count, const runtime::Target& target,
                                                    const std::string& problem_text) {
  std::vector<runtime::CompileRequest> requests;
  if (kernel == "smoke") {
    for (const auto& v : templates::distinct_smoke_variants(count)) {
      requests.push_back(templates::smoke_compile_request(v, target));
    }
    return requests;
  }
  const bool spec = kernel.find('/') != std::string::npos || kernel.ends_with(".toml");
  const std::unique_ptr<harness::Family> family = families::open_family(spec ? "" : kernel, spec ? kernel : "");
  const harness::FamilyProblem problem =
      problem_text.empty() && !family->listed_problems().empty() ? family->listed_problems().front()
                                                                 : family->parse_problem(problem_text);
  const search::SearchSpace space =
      search::family_search_space(*family, problem, DeviceLimits::for_target(target), search::SpaceScope::default_space);
  search::Rng rng(7);
  std::set<std::string> seen;
  for (int tries = 0; static_cast<int>(requests.size()) < count && tries < 100 * count; ++tries) {
    std::optional<Config> c = space.sample(rng);
    if (c && seen.insert(c->key()).second) requests.push_back(family->compile_request(*c, problem, target));
  }
  return requests;
}

std::vector<unsigned> parse_counts(const std::string& text, const char* what) {
  std::vector<unsigned> out;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    try {
      std::size_t used = 0;
      const unsigned long n = std::stoul(item, &used);
      if (used != item.size() || n < 1 || n > 1024) throw std::invalid_argument(item);
      out.push_back(static_cast<unsigned>(n));
    } catch (const std::exception&) {
      throw UsageError(fmt::format("bad {} count '{}' (a list of numbers from 1 to 1024, e.g. 1,8,16)", what, item));
    }
  }
  return out;
}

}  // namespace

void add_compile_bench_command(CLI::App& app, const GlobalOptions&) {
  auto* cmd = app.add_subcommand(
      "compile-bench", "Measure compiles per second, cold and cached, in threads and in processes (no GPU needed)");
  struct Options {
    int count = 32;
    std::string threads;  // e.g. "1,8,16"
    std::string processes;
    std::string kernel = "smoke";
    std::string problem;
    std::string target = "sm_90a";
    bool json = false;
    std::string json_out;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--count", opt->count, "distinct kernel variants to compile")->check(WholeNumber(1, 1024));
  cmd->add_option("--threads", opt->threads,
                  "NVRTC in this process on T threads; a list (1,8,16) measures each (default: one per hardware "
                  "thread, unless --processes is given)");
  cmd->add_option("--processes", opt->processes,
                  "NVRTC in P compile processes (evotune compile-server), as searches compile; a list measures each "
                  "(default: none, threads only)");
  cmd->add_option("--kernel", opt->kernel,
                  "smoke (a tiny reduction kernel), a family's name (attention: configs of --problem), or a kernel "
                  "spec file (its first listed problem unless --problem)");
  cmd->add_option("--problem", opt->problem,
                  "the problem whose configs a family compiles (default: the family's first listed problem; attention's "
                  "is b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16)");
  cmd->add_option("--target", opt->target, "compile target, e.g. sm_80, sm_90a");
  cmd->add_flag("--json", opt->json, "print JSON (one object per setting)");
  cmd->add_option("--json-out", opt->json_out, "also write that JSON to this file (default: none)");
  cmd->callback([opt] {
    const runtime::Target target = compile_target(opt->target);
    struct Setting {
      std::string mode;
      unsigned workers;
    };
    std::vector<Setting> settings;
    for (unsigned t : parse_counts(opt->threads, "thread")) settings.push_back({"threads", t});
    for (unsigned p : parse_counts(opt->processes, "process")) settings.push_back({"processes", p});
    if (settings.empty()) settings.push_back({"threads", std::max(1u, std::thread::hardware_concurrency())});
    const std::vector<runtime::CompileRequest> requests = bench_requests(opt->kernel, opt->count, target, opt->problem);
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const double n = static_cast<double>(requests.size());
    nlohmann::json rows = nlohmann::json::array();
    if (!opt->json) {
      fmt::print("compile-bench: {} distinct {} kernels for {} ({} hardware threads)\n", requests.size(),
                 opt->kernel == "smoke" ? "smoke" : opt->kernel + " (" + opt->problem + ")", target.name(),
                 std::thread::hardware_concurrency());
      fmt::print("  {:<10} {:>4}  {:>9} {:>12} {:>16}  {:>12}\n", "mode", "n", "cold s", "compiles/s",
                 "NVRTC s/compile", "cached /s");
    }
    for (const Setting& setting : settings) {
      char dir_template[] = "/tmp/evotune-compile-bench-XXXXXX";
      if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("cannot create a temporary cache directory");
      const std::filesystem::path dir(dir_template);
      runtime::NvrtcCompiler nvrtc;
      std::optional<runtime::CompileProcessPool> processes;
      double startup_seconds = 0;
      if (setting.mode == "processes") {
        runtime::CompileProcessOptions po;
        po.command = {self, "compile-server"};
        po.processes = setting.workers;
        processes.emplace(po);
        // Start the children outside the timed pass: a search starts them once, then compiles hundreds.
        const auto start = std::chrono::steady_clock::now();
        processes->start_all();
        startup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      runtime::Compiler& base = processes ? static_cast<runtime::Compiler&>(*processes) : nvrtc;
      runtime::CubinCache cache(dir);
      runtime::CachingCompiler compiler(base, cache);
      Pass cold, cached;
      try {
        cold = compile_all(compiler, requests, setting.workers);
        cached = compile_all(compiler, requests, setting.workers);
      } catch (...) {
        std::filesystem::remove_all(dir);
        throw;
      }
      std::filesystem::remove_all(dir);
      if (cold.hits != 0 || cached.hits != static_cast<int>(requests.size())) {
        throw std::runtime_error(fmt::format("cache misbehaved: {} cold hits, {} of {} cached hits", cold.hits,
                                             cached.hits, requests.size()));
      }
      rows.push_back({{"kernel", opt->kernel},
                      {"target", target.name()},
                      {"count", requests.size()},
                      {"mode", setting.mode},
                      {"workers", setting.workers},
                      {"hardware_threads", std::thread::hardware_concurrency()},
                      {"process_startup_seconds", startup_seconds},
                      {"cold_seconds", cold.seconds},
                      {"cold_per_second", n / cold.seconds},
                      {"mean_nvrtc_seconds", cold.nvrtc_seconds / n},
                      {"cached_seconds", cached.seconds},
                      {"cached_per_second", n / cached.seconds}});
      if (!opt->json) {
        fmt::print("  {:<10} {:>4}  {:>9.3f} {:>12.1f} {:>16.3f}  {:>12.0f}\n", setting.mode, setting.workers,
                   cold.seconds, n / cold.seconds, cold.nvrtc_seconds / n, n / cached.seconds);
      }
    }
    const std::string json = rows.size() == 1 ? rows[0].dump(2) : rows.dump(2);
    if (opt->json) fmt::print("{}\n", json);
    if (!opt->json_out.empty()) write_output_file(opt->json_out, json + "\n");
  });
}

}  // namespace evotune::cli
