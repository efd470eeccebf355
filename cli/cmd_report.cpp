// evotune report: one self-contained HTML page about a run of the evidence database (read only).
#include <fmt/format.h>

#include "cli/cli_common.h"
#include "evidence/report.h"
#include "evidence/store.h"
#include "core/errors.h"

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
  report->add_option("--run", options->run, "run id (default: the latest)")
      ->check(RunNumber)
      ->default_str("");
  report->add_option("--top", options->top, "how many of the fastest trials to list")
      ->check(WholeNumber(1, 1000));
  report->add_option("-o,--out", options->out, "the HTML file to write")->required();
  report->callback([options] {
    refuse_database_as_output(options->out, options->db);
    require_database(options->db);
    evidence::Store store(options->db, evidence::Store::Mode::read_only);
    const std::int64_t run = requested_or_latest_run(store, options->run, options->db);

    evidence::ReportInput input = evidence::gather_report_input(store, run, options->top);
    input.db_path = options->db;
    input.output_path = options->out;
    input.generated_at = utc_timestamp();
    const std::string html = evidence::render_report_html(input);

    write_output_file(options->out, html);
    fmt::print(stderr, "evotune: wrote {} (run {}, {} trials, {} KiB)\n", options->out, run,
               input.trials.size(), (html.size() + 1023) / 1024);
  });
}

}  // namespace evotune::cli
