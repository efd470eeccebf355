// evotune report: one self-contained HTML page about a run of the evidence database (read only).
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <fstream>

#include "cli/cli_common.h"
#include "evidence/report.h"
#include "evidence/store.h"
#include "runtime/errors.h"

namespace evotune::cli {

void add_report_command(CLI::App& app, const GlobalOptions&) {
  struct Options {
    std::string db = "evotune.db";
    std::int64_t run = 0;
    int top = 10;
    std::string out;
  };
  auto options = std::make_shared<Options>();
  auto report = app.add_subcommand(
      "report",
      "Write one self-contained HTML page about a run: convergence, tunables, roofline, top trials");
  report->add_option("--db", options->db, "evidence database");
  report->add_option("--run", options->run, "run id (default: the latest)");
  report->add_option("--top", options->top, "how many of the fastest trials to list")
      ->check(CLI::Range(1, 1000));
  report->add_option("-o,--out", options->out, "the HTML file to write")->required();
  report->callback([options] {
    evidence::Store store(options->db, evidence::Store::Mode::read_only);
    std::int64_t run = options->run;
    if (run == 0) {
      std::optional<std::int64_t> latest = store.latest_run();
      if (!latest) throw UsageError(fmt::format("{} holds no runs", options->db));
      run = *latest;
    }
    if (!store.run_info(run))
      throw UsageError(
          fmt::format("{} holds no run {} (see evotune runs --db {})", options->db, run, options->db));

    evidence::ReportInput input = evidence::gather_report_input(store, run, options->top);
    input.db_path = options->db;
    input.output_path = options->out;
    input.generated_at = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
    const std::string html = evidence::render_report_html(input);

    std::ofstream file(options->out, std::ios::binary | std::ios::trunc);
    file << html;
    file.close();
    if (!file) throw std::runtime_error(fmt::format("cannot write {}", options->out));
    fmt::print(stderr, "evotune: wrote {} (run {}, {} trials, {} KiB)\n", options->out, run,
               input.trials.size(), (html.size() + 1023) / 1024);
  });
}

}  // namespace evotune::cli
