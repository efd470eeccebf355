// evotune runs / log / top: read the evidence database (never modifying it).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "evidence/json_text.h"
#include "evidence/store.h"
#include "evidence/trial_json.h"
#include "core/errors.h"

namespace evotune::cli {
namespace {

std::string number(const std::optional<double>& v, int digits = 3) {
  return v ? fmt::format("{:.{}f}", *v, digits) : std::string();
}

}  // namespace

void add_evidence_commands(CLI::App& app, const GlobalOptions&) {
  struct Options {
    std::string db = "evotune.db";
    std::int64_t run = 0;
    std::string format = "table";
    int k = 10;
  };
  auto runs = app.add_subcommand("runs", "List the runs in the evidence database");
  auto runs_opt = std::make_shared<Options>();
  runs->add_option("--db", runs_opt->db, "evidence database");
  runs->callback([runs_opt] {
    require_database(runs_opt->db);
    evidence::Store store(runs_opt->db, evidence::Store::Mode::read_only);
    const std::vector<evidence::RunRow> rows = store.runs();
    std::size_t family_width = 6;  // the column fits the longest family (user_kernel:<name>)
    for (const evidence::RunRow& r : rows) family_width = std::max(family_width, r.family.size());
    fmt::print("{:>4}  {:<20}  {:<8}  {:<{}}  {:<12}  {:>9}  {:>6}  {:>12}  {}\n", "run", "created", "status", "family",
               family_width, "strategy", "trials", "valid", "best us", "problem");
    for (const evidence::RunRow& r : rows) {
      fmt::print("{:>4}  {:<20}  {:<8}  {:<{}}  {:<12}  {:>9}  {:>6}  {:>12}  {}\n", r.id, r.created_at, r.status,
                 r.family, family_width, r.strategy, fmt::format("{}/{}", r.trials, r.budget), r.valid,
                 number(r.best_us), r.problem);
    }
  });

  auto log = app.add_subcommand("log", "Print the evolution log (the evo_log view): one row per run x generation");
  auto log_opt = std::make_shared<Options>();
  log->add_option("--db", log_opt->db, "evidence database");
  log->add_option("--run", log_opt->run, "run id (default: all runs)")
      ->check(RunNumber)
      ->default_str("");
  log->add_option("--format", log_opt->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  log->callback([log_opt] {
    require_database(log_opt->db);
    evidence::Store store(log_opt->db, evidence::Store::Mode::read_only);
    std::optional<std::int64_t> run;
    if (log_opt->run != 0) run = requested_or_latest_run(store, log_opt->run, log_opt->db);
    auto rows = store.evo_log(run);
    if (log_opt->format == "json") {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& r : rows) {
        nlohmann::json row = {{"run_id", r.run_id}, {"generation", r.generation}, {"evaluated", r.evaluated}, {"valid", r.valid}};
        row["generation_best_us"] = r.generation_best_us ? nlohmann::json(*r.generation_best_us) : nlohmann::json();
        row["best_so_far_us"] = r.best_so_far_us ? nlohmann::json(*r.best_so_far_us) : nlohmann::json();
        row["generation_median_us"] = r.generation_median_us ? nlohmann::json(*r.generation_median_us) : nlohmann::json();
        out.push_back(row);
      }
      fmt::print("{}\n", evidence::json_text(out, 2));
      return;
    }
    const bool csv = log_opt->format == "csv";
    const char* header = csv ? "run_id,generation,evaluated,valid,generation_best_us,best_so_far_us,generation_median_us\n"
                             : "  run  gen  evaluated  valid  generation best us  best so far us  generation median us\n";
    fmt::print("{}", header);
    for (const auto& r : rows) {
      if (csv) {
        fmt::print("{},{},{},{},{},{},{}\n", r.run_id, r.generation, r.evaluated, r.valid, number(r.generation_best_us, 6),
                   number(r.best_so_far_us, 6), number(r.generation_median_us, 6));
      } else {
        fmt::print("{:>5} {:>4} {:>10} {:>6} {:>19} {:>15} {:>21}\n", r.run_id, r.generation, r.evaluated, r.valid,
                   number(r.generation_best_us), number(r.best_so_far_us), number(r.generation_median_us));
      }
    }
  });

  auto top = app.add_subcommand("top", "The fastest valid trials of a run");
  auto top_opt = std::make_shared<Options>();
  top->add_option("--db", top_opt->db, "evidence database");
  top->add_option("--run", top_opt->run, "run id (default: the latest)")
      ->check(RunNumber)
      ->default_str("");
  top->add_option("-n", top_opt->k, "how many")->check(WholeNumber(1, 100000));
  top->add_option("--format", top_opt->format, "table or json (every recorded field but the raw samples)")
      ->check(CLI::IsMember({"table", "json"}));
  top->callback([top_opt] {
    require_database(top_opt->db);
    evidence::Store store(top_opt->db, evidence::Store::Mode::read_only);
    std::int64_t run = requested_or_latest_run(store, top_opt->run, top_opt->db);
    if (top_opt->format == "json") {
      nlohmann::json out = nlohmann::json::array();
      for (evidence::TrialRecord t : store.top(run, top_opt->k)) {
        nlohmann::json row = evidence::to_json(t);
        row.erase("samples_us");
        row["run_id"] = run;
        row["seq"] = t.seq;
        row["generation"] = t.generation;
        row["config_key"] = t.config_key;
        row["config"] = t.config;
        out.push_back(row);
      }
      fmt::print("{}\n", evidence::json_text(out, 2));
      return;
    }
    fmt::print("run {}\n{:>4}  {:>5}  {:>4}  {:>12}  {:>9}  {}\n", run, "rank", "trial", "gen", "median us", "TFLOP/s",
               "config");
    int rank = 0;
    for (const auto& t : store.top(run, top_opt->k)) {
      fmt::print("{:>4}  {:>5}  {:>4}  {:>12}  {:>9}  {}\n", ++rank, t.seq, t.generation, number(t.median_us),
                 number(t.tflops, 1), t.config);
    }
  });
}

}  // namespace evotune::cli
