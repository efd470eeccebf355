#pragma once
// `evotune report`: one self-contained HTML page (inline SVG, no scripts, nothing fetched) describing a
// run of the evidence database: how the search converged beside comparable runs, how the median time
// depends on the tunables that matter most, where the winner sits on the roofline, and the top trials
// beside the baselines.
//
// Two steps, so that tests can render synthetic inputs: gather_report_input reads everything the page
// shows from the store into plain data; render_report_html turns that data into HTML and reads nothing
// else. Every figure on the page is a stored value or is derived from stored values.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/store.h"

namespace evotune::evidence {

// The valid trials of another run of the same family and problem on the same device, for the
// convergence overlay.
struct ComparableRun {
  struct Point {
    int seq = 0;
    double median_us = 0;
  };
  RunRow run;
  std::vector<Point> valid;  // ok trials with a time, in seq order
};

struct ReportInput {
  RunRow run;    // id, created_at, status, counts, best
  RunInfo info;  // versions, device and options JSON
  // Empty when the store does not say when the run finished; then no wall time is shown.
  std::optional<std::string> finished_at;
  int schema_version = 0;
  std::vector<TrialRecord> trials;  // every trial in seq order; raw samples are not carried
  std::vector<TrialRecord> top;     // the fastest ok trials, best first
  std::vector<BaselineRecord> baselines;
  std::vector<ComparableRun> comparable_runs;
  // Filled by the caller, for the footer: the line that regenerates the page, and when it was made.
  std::string db_path, output_path, generated_at;
};

// Throws StoreError when the run does not exist.
ReportInput gather_report_input(const Store& store, std::int64_t run_id, int top_k);

std::string render_report_html(const ReportInput& input);

// The sentence the page shows instead of a roofline when the trials record no TFLOP/s (replay runs).
inline constexpr const char* kNoRooflineReason =
    "No roofline: the trials of this run record no TFLOP/s and GB/s (a replay of a recorded space stores "
    "only "
    "times), so the winner has no arithmetic intensity to place.";

}  // namespace evotune::evidence
