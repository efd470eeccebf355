// evotune export: hand the results to other code and tools.
//   --format header (default)  the winners as a self-contained C++17 header with a lookup and each winner's
//                              CUBIN compiled ahead of time; every entry is re-verified on a GPU of its
//                              model when one is present, else marked so
//   --format csv               the trials of a run, or the evo_log view (--table evo_log)
//   --format t4                a run as a Kernel Tuner T4 results document
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "evidence/export_tables.h"
#include "evidence/json_text.h"
#include "evidence/store.h"
#include "families/registry.h"
#include "harness/verification.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_properties.h"
#include "core/errors.h"
#include "runtime/device_limits.h"

#ifndef EVOTUNE_VERSION
#define EVOTUNE_VERSION "unknown"
#endif

namespace evotune::cli {
namespace {

struct ExportOptions {
  std::string db = "evotune.db";
  std::string format = "header";
  std::string out;
  std::string table = "trials";
  std::int64_t run = 0;
  bool best_per_problem = false;
  bool skip_verify = false;
  bool no_cubin = false;
  std::string family, kernel;  // whose winners a header holds (default: --run's family, else attention)
};

// "9.0" -> 90, from the device properties a run recorded; 0 when none were. Properties that are not
// evotune's JSON (a database written by something else) are a one-line UsageError naming the run.
int sm_of(const std::string& device_json, std::int64_t run_id) {
  const nlohmann::json j = nlohmann::json::parse(device_json.empty() ? "{}" : device_json, nullptr, false);
  const auto unreadable = [&] {
    return UsageError(fmt::format("run {} has device properties this evotune cannot read", run_id));
  };
  if (!j.is_object()) throw unreadable();
  if (!j.contains("compute_capability")) return 0;
  if (!j["compute_capability"].is_string()) throw unreadable();
  const std::string cc = j["compute_capability"];
  const std::size_t dot = cc.find('.');
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (dot == std::string::npos || dot == 0 || dot > 2 || cc.size() != dot + 2 || !digit(cc[dot + 1]) ||
      !std::all_of(cc.begin(), cc.begin() + static_cast<std::ptrdiff_t>(dot), digit)) {
    throw unreadable();
  }
  return std::stoi(cc.substr(0, dot)) * 10 + (cc[dot + 1] - '0');
}

// The family whose winners the header holds: --run's, else --kernel's or --family's (attention by default).
std::unique_ptr<harness::Family> export_family(const evidence::Store& store, const ExportOptions& opt) {
  if (opt.run != 0) {
    const evidence::RunInfo info = *store.run_info(requested_or_latest_run(store, opt.run, opt.db));
    if (info.family == "replay") {
      throw UsageError(fmt::format("run {} replayed a recorded space; only GPU searches export as a header", opt.run));
    }
    const nlohmann::json options = nlohmann::json::parse(info.options_json.empty() ? "{}" : info.options_json, nullptr, false);
    const std::string spec = options.is_object() ? options.value("kernel_spec", std::string()) : std::string();
    return families::open_recorded_family(info.family, opt.kernel.empty() ? spec : opt.kernel);
  }
  return families::open_family(opt.family, opt.kernel);
}

// The winning trials to export: one run's, or the fastest of every (device, problem) of the family.
std::vector<evidence::Store::RunBest> winners(const evidence::Store& store, const ExportOptions& opt,
                                              const harness::Family& family) {
  std::vector<evidence::Store::RunBest> all = store.best_of_each_run(family.id());
  if (opt.run != 0) {
    for (const auto& r : all) {
      if (r.run_id == opt.run) return {r};
    }
    throw UsageError(fmt::format("run {} has no valid trial to export", opt.run));
  }
  std::map<std::pair<std::string, std::string>, evidence::Store::RunBest> best;
  for (const auto& r : all) {
    auto key = std::make_pair(r.device, r.problem);
    auto it = best.find(key);
    if (it == best.end() || *r.best.median_us < *it->second.best.median_us) best[key] = r;
  }
  std::vector<evidence::Store::RunBest> out;
  for (auto& [key, r] : best) out.push_back(r);
  if (out.empty()) throw UsageError(fmt::format("{} holds no {} run with a valid trial", opt.db, family.id()));
  return out;
}

// Re-verifies the entry on a visible GPU of the same model; fills the entry's verification text.
// Returns false when the config failed (the export is then refused).
bool reverify(harness::ExportedWinner& entry, const harness::Family& family, const ExportOptions& opt,
              const GlobalOptions& globals, std::uint64_t seed) {
  if (opt.skip_verify) {
    entry.verification = "not re-verified: exported with --skip-verify";
    return true;
  }
  std::string why;
  if (!runtime::driver_available(&why)) {
    entry.verification = fmt::format("not re-verified: no GPU at export ({})", why);
    return true;
  }
  // The entry's own GPU model first; else another of its family (compute capability), which runs the same
  // CUBIN: the text says which it was.
  std::optional<int> ordinal, family_ordinal;
  std::string family_name;
  std::vector<std::string> seen;
  for (const runtime::DeviceProperties& p : runtime::query_all_devices()) {
    seen.push_back(p.name);
    if (p.name == entry.device && !ordinal) ordinal = p.ordinal;
    if (entry.sm != 0 && p.cc_major * 10 + p.cc_minor == entry.sm && !family_ordinal) {
      family_ordinal = p.ordinal;
      family_name = p.name;
    }
  }
  std::string verified_on = entry.device;
  if (!ordinal && family_ordinal) {
    ordinal = family_ordinal;
    verified_on = fmt::format("{} (sm_{}, as the entry's {})", family_name, entry.sm, entry.device);
  }
  if (!ordinal) {
    entry.verification = fmt::format("not re-verified: no {} or other sm_{} GPU at export (visible: {})",
                                     entry.device, entry.sm, fmt::join(seen, ", "));
    return true;
  }
  fmt::print(stderr, "export: re-verifying run {}'s winner on device {} ({})\n", entry.run_id, *ordinal, verified_on);
  CompilerStack stack(globals);
  const harness::Verification v =
      harness::verify_config(family, entry.config, entry.problem, *ordinal, stack.compiler(), seed);
  // The header says what was checked and whether it passed; the measured errors and times vary from run to
  // run, so they go to the terminal, not into the file (the same database must give the same header).
  std::vector<std::string> lines;
  for (const harness::VerifiedCase& c : v.cases) {
    const char* what = &c == &v.cases.front() ? "new inputs" : "tail shape";
    lines.push_back(fmt::format("{} {} (seed {}): {}", what, c.problem, c.seed,
                                c.passed ? std::string("pass") : "FAIL: " + c.reason));
    fmt::print(stderr, "export:   {} {}: {}\n", what, c.problem,
               c.passed ? fmt::format("pass, max abs error {:.3g} <= {:.3g}", c.max_abs_error, c.tolerance)
                        : "FAIL: " + c.reason);
  }
  if (!v.passed()) {
    entry.verification = fmt::format("{}", fmt::join(lines, "; "));
    return false;
  }
  fmt::print(stderr, "export:   re-timed: median {:.2f} us (p10 {:.2f}, p90 {:.2f}), {:.2f}x the search's median\n",
             v.timing->median_us, v.timing->p10_us, v.timing->p90_us, v.timing->median_us / entry.median_us);
  entry.reverified = true;
  entry.verification = fmt::format("re-verified on {} at export:\n  {}", verified_on, fmt::join(lines, "\n  "));
  return true;
}

// The architecture a run's device runs natively ("sm_90a" for 90): the target the search compiled for, and
// the one the exported CUBIN is built for.
std::string native_target_of(int sm) { return runtime::native_target(sm / 10, sm % 10); }

// Compiles the entry's config ahead of time for its device's target, the kernel the family embeds
// (Family::compile_for_export), through the cubin cache; fills the entry's kernel fields. Returns why not
// when the target cannot be built or the config is invalid there or does not compile. A run that recorded no
// device architecture gets no CUBIN.
std::optional<std::string> compile_ahead_of_time(harness::ExportedWinner& entry, const harness::Family& family,
                                                 CompilerStack& stack) {
  if (entry.sm == 0) {
    fmt::print(stderr, "export: run {} recorded no device architecture: its entry has no CUBIN\n", entry.run_id);
    return std::nullopt;
  }
  entry.target = native_target_of(entry.sm);
  runtime::Target target;
  try {
    target = compile_target(entry.target);
  } catch (const UsageError& e) {
    return fmt::format("cannot compile for {} ({}); export with --no-cubin", entry.target, e.what());
  }
  const runtime::Preparation preparation =
      family.compile_for_export(entry.config, entry.problem, DeviceLimits::for_target(target), target, stack.compiler());
  if (const runtime::Rejection* r = runtime::rejected(preparation)) {
    return fmt::format("does not compile for {}: {}", entry.target, r->reason);
  }
  const runtime::PreparedKernel& prepared = std::get<runtime::PreparedKernel>(preparation);
  entry.kernel_name = prepared.kernel_name;
  entry.cubin = *prepared.cubin;
  entry.resources = prepared.resources;
  return std::nullopt;
}

void export_header(const ExportOptions& opt, const GlobalOptions& globals) {
  require_database(opt.db);
  evidence::Store store(opt.db, evidence::Store::Mode::read_only);
  const std::unique_ptr<harness::Family> family = export_family(store, opt);
  const std::string out = opt.out.empty() ? family->default_header_name() : opt.out;
  refuse_database_as_output(out, opt.db);
  std::map<std::int64_t, evidence::RunRow> rows;
  for (const evidence::RunRow& r : store.runs()) rows[r.id] = r;
  harness::ExportInput input;
  // File names, not paths: exporting the same database from elsewhere gives the same bytes.
  const std::string db_name = std::filesystem::path(opt.db).filename().string();
  input.command = fmt::format("evotune export --db {} {} --out {}{}{}", db_name,
                              opt.run != 0 ? fmt::format("--run {}", opt.run) : std::string("--best-per-problem"),
                              std::filesystem::path(out).filename().string(), opt.skip_verify ? " --skip-verify" : "",
                              opt.no_cubin ? " --no-cubin" : "");
  input.database = db_name;
  input.evotune_version = EVOTUNE_VERSION;
  CompilerStack stack(globals);
  std::vector<std::string> failures;
  std::uint64_t seed = 0x5eed0001;  // far from the searches' seeds (1 unless --seed): new inputs
  for (const evidence::Store::RunBest& w : winners(store, opt, *family)) {
    const evidence::RunInfo info = *store.run_info(w.run_id);
    harness::ExportedWinner e;
    try {
      e.sm = sm_of(info.device_json, w.run_id);
      e.problem = family->parse_problem(w.problem);
      // Tunables added since the run keep their defaults.
      const DeviceLimits limits =
          e.sm != 0 ? DeviceLimits::for_target(runtime::Target::parse(native_target_of(e.sm))) : DeviceLimits{};
      e.config = family->parse_config(w.best.config, e.problem, limits);
    } catch (const UsageError& err) {
      if (opt.run != 0) throw;
      fmt::print(stderr, "export: skipping run {}: this evotune cannot read it ({})\n", w.run_id,
                 one_line(err.what()));
      continue;
    }
    e.device = w.device;
    e.run_id = w.run_id;
    e.trial_seq = w.best.seq;
    e.strategy = info.strategy;
    e.run_created_at = rows[w.run_id].created_at;
    e.run_trials = rows[w.run_id].trials;
    e.median_us = w.best.median_us.value_or(0);
    e.p10_us = w.best.p10_us.value_or(0);
    e.p90_us = w.best.p90_us.value_or(0);
    e.tflops = w.best.tflops.value_or(0);
    e.gbps = w.best.gbps.value_or(0);
    for (const evidence::BaselineRecord& b : store.baselines(w.run_id)) {
      if (b.median_us) e.baselines.push_back(b);
    }
    // A config that does not compile for its target, or fails re-verification, refuses the export.
    if (std::optional<std::string> why = opt.no_cubin ? std::nullopt : compile_ahead_of_time(e, *family, stack)) {
      failures.push_back(fmt::format("run {} ({}): {}", e.run_id, e.problem.text, *why));
      e.verification = *why;
    } else if (!reverify(e, *family, opt, globals, seed)) {
      failures.push_back(fmt::format("run {} ({}): {}", e.run_id, e.problem.text, e.verification));
    }
    seed += 16;
    fmt::print(stderr, "export: run {} trial {} on {}: {} ({:.2f} us): {}\n", e.run_id, e.trial_seq,
               one_line(e.device), one_line(e.problem.text), e.median_us,
               e.reverified ? "re-verified" : one_line(e.verification.substr(0, e.verification.find('\n'))));
    input.winners.push_back(std::move(e));
  }
  if (!failures.empty()) {
    throw std::runtime_error(fmt::format("export refused, {} was not written: a config failed to compile or re-verify: {}",
                                         out, fmt::join(failures, " | ")));
  }
  if (input.winners.empty()) throw UsageError(fmt::format("nothing in {} to export", opt.db));
  write_output_file(out, family->render_header(input));
  fmt::print(stderr, "export: wrote {} ({} {})\n", out, input.winners.size(),
             input.winners.size() == 1 ? "entry" : "entries");
}

}  // namespace

void add_export_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand(
      "export",
      "Export results: the winners as a C++ header (re-verified on the GPU when present), or a run as CSV or Kernel "
      "Tuner T4 JSON");
  auto opt = std::make_shared<ExportOptions>();
  cmd->add_option("--db", opt->db, "evidence database (default evotune.db)");
  cmd->add_option("--format", opt->format, "header (default), csv or t4")
      ->check(CLI::IsMember({"header", "csv", "t4"}));
  cmd->add_option("--out,-o", opt->out,
                  "output file (header: default tuned_<family>.h, tuned_attention.h for attention; csv, t4: default "
                  "standard output, or -)");
  auto* run = cmd->add_option("--run", opt->run, "run id (header: only this run's winner; csv, t4: default latest)")
                  ->check(WholeNumber(1, kMaxRun))
                  ->default_str("");
  cmd->add_flag("--best-per-problem", opt->best_per_problem,
                "header: the fastest config of every (device, problem) in the database (the default)")
      ->excludes(run);
  cmd->add_option("--family", opt->family, "header: whose winners (default: --run's family, else attention)");
  cmd->add_option("--kernel", opt->kernel, "header: the winners of this kernel spec's runs (a user-kernel family; default: none)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--table", opt->table, "csv: trials (default) or evo_log")->check(CLI::IsMember({"trials", "evo_log"}));
  cmd->add_flag("--skip-verify", opt->skip_verify,
                "header: do not re-verify on a GPU even when one is present (entries are marked not re-verified)");
  cmd->add_flag("--no-cubin", opt->no_cubin,
                "header: leave out the ahead-of-time CUBINs (a smaller header; the launcher then compiles each "
                "config with NVRTC at run time)");
  cmd->callback([opt, &globals] {
    if (!opt->kernel.empty()) {
      if (!opt->family.empty()) throw UsageError("give --family or --kernel, not both");
      opt->kernel = std::filesystem::absolute(opt->kernel).lexically_normal().string();
    }
    if (opt->format == "header") {
      export_header(*opt, globals);
      return;
    }
    refuse_database_as_output(opt->out, opt->db);
    if (opt->best_per_problem || opt->skip_verify || opt->no_cubin || !opt->family.empty() || !opt->kernel.empty()) {
      throw UsageError("--best-per-problem, --skip-verify, --no-cubin, --family and --kernel apply to --format header");
    }
    require_database(opt->db);
    evidence::Store store(opt->db, evidence::Store::Mode::read_only);
    if (opt->format == "csv" && opt->table == "evo_log") {
      std::optional<std::int64_t> run;
      if (opt->run != 0) run = requested_or_latest_run(store, opt->run, opt->db);
      write_output_file(opt->out, evidence::evo_log_csv(store, run));
      return;
    }
    const std::int64_t run_id = requested_or_latest_run(store, opt->run, opt->db);
    write_output_file(opt->out, opt->format == "csv"
                                    ? evidence::trials_csv(store, run_id)
                                    : evidence::json_text(evidence::t4_results(store, run_id), 2) + "\n");
    if (!opt->out.empty() && opt->out != "-") fmt::print(stderr, "export: wrote run {} to {}\n", run_id, opt->out);
  });
}

}  // namespace evotune::cli
