// evotune compile-bench: how many kernel variants per second this machine compiles, cold (NVRTC runs)
// and cached (answered from the disk cache). Needs no GPU. Uses a fresh, private cache directory so
// that "cold" really is cold, and removes it afterwards.
#include <fmt/format.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_common.h"
#include "runtime/compile_pool.h"
#include "templates/smoke/smoke_family.h"

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

}  // namespace

void add_compile_bench_command(CLI::App& app, const GlobalOptions&) {
  auto* cmd = app.add_subcommand("compile-bench", "Measure compiles per second, cold and cached (no GPU needed)");
  struct Options {
    int count = 32;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::string target = "sm_90a";
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--count", opt->count, "Distinct kernel variants to compile")->check(CLI::Range(1, 128));
  cmd->add_option("--threads", opt->threads, "Compile threads")->check(CLI::Range(1u, 256u));
  cmd->add_option("--target", opt->target, "Compile target, e.g. sm_80, sm_90a");
  cmd->add_flag("--json", opt->json, "Print JSON");
  cmd->callback([opt] {
    runtime::Target target = runtime::Target::parse(opt->target);
    std::vector<runtime::CompileRequest> requests;
    for (const auto& v : templates::distinct_smoke_variants(opt->count)) {
      requests.push_back(templates::smoke_compile_request(v, target));
    }
    char dir_template[] = "/tmp/evotune-compile-bench-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("cannot create a temporary cache directory");
    std::filesystem::path dir(dir_template);
    runtime::NvrtcCompiler nvrtc;
    runtime::CubinCache cache(dir);
    runtime::CachingCompiler compiler(nvrtc, cache);
    Pass cold = compile_all(compiler, requests, opt->threads);
    Pass cached = compile_all(compiler, requests, opt->threads);
    std::filesystem::remove_all(dir);
    if (cold.hits != 0 || cached.hits != opt->count) {
      throw std::runtime_error(fmt::format("cache misbehaved: {} cold hits, {} of {} cached hits", cold.hits,
                                           cached.hits, opt->count));
    }
    double n = opt->count;
    if (opt->json) {
      nlohmann::json out = {{"kernel", "smoke block_sum"},
                            {"target", target.name()},
                            {"count", opt->count},
                            {"threads", opt->threads},
                            {"hardware_threads", std::thread::hardware_concurrency()},
                            {"cold_seconds", cold.seconds},
                            {"cold_per_second", n / cold.seconds},
                            {"mean_nvrtc_seconds", cold.nvrtc_seconds / n},
                            {"cached_seconds", cached.seconds},
                            {"cached_per_second", n / cached.seconds}};
      fmt::print("{}\n", out.dump(2));
      return;
    }
    fmt::print("compile-bench: {} distinct smoke kernels for {}, {} threads ({} hardware threads)\n", opt->count,
               target.name(), opt->threads, std::thread::hardware_concurrency());
    fmt::print("  cold   (NVRTC)  {:8.3f} s  {:9.1f} compiles/s  (mean {:.0f} ms per compile)\n", cold.seconds,
               n / cold.seconds, 1e3 * cold.nvrtc_seconds / n);
    fmt::print("  cached (disk)   {:8.3f} s  {:9.1f} compiles/s\n", cached.seconds, n / cached.seconds);
  });
}

}  // namespace evotune::cli
