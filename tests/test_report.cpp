// evotune report: the HTML page of a run, from synthetic databases built with the Store (two searches
// of one problem, a replay run), from the committed H100 search (schema 1, no baselines), and from the
// binary as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <sqlite3.h>

#include "evidence/report.h"
#include "evidence/store.h"
#include "tests/test_support.h"

using namespace evotune::evidence;

namespace {

constexpr const char* kSpecialLayout = R"(a<b&"c")";  // a config label that HTML must escape

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The text from the first `start` up to and including the next `end`; empty when absent.
std::string between(const std::string& text, const std::string& start, const std::string& end) {
  const std::size_t from = text.find(start);
  if (from == std::string::npos) return {};
  const std::size_t to = text.find(end, from);
  return to == std::string::npos ? std::string() : text.substr(from, to + end.size() - from);
}

// The `points` of the polyline drawn in `colour`, as a count of x,y pairs (0 when there is none).
std::size_t polyline_points(const std::string& svg, const std::string& colour) {
  const std::regex polyline(R"re(<polyline fill="none" points="([^"]*)" stroke=")re" + colour + "\"");
  std::smatch match;
  if (!std::regex_search(svg, match, polyline)) return 0;
  return count(match[1].str(), ",");
}

RunInfo run_info(const std::string& strategy, const std::string& problem, const std::string& device) {
  RunInfo info;
  info.family = "attention";
  info.problem = problem;
  info.problem_json = "{}";
  info.strategy = strategy;
  info.seed = 7;
  info.budget = 12;
  info.device = device;
  info.device_json = R"({"name":"Test GPU","sm_count":4,"theoretical_bandwidth_gbps":3000.0})";
  info.versions = "evotune test";
  info.options_json = R"({"evo":"offspring=4"})";
  return info;
}

TrialRecord trial(int seq, int generation, int tile, int warps, const std::string& layout, TrialStatus status,
                  std::optional<double> median_us, const std::string& error = {}) {
  TrialRecord t;
  t.seq = seq;
  t.generation = generation;
  t.config = fmt::format("tile={},warps={},layout={},mode=fast", tile, warps, layout);
  t.config_key = t.config;
  t.status = status;
  t.error = error;
  if (median_us) {
    t.median_us = median_us;
    t.p10_us = *median_us * 0.98;
    t.p90_us = *median_us * 1.05;
    t.tflops = 4000 / *median_us;  // 40 us -> 100 TFLOP/s
    t.gbps = *t.tflops * 5;        // intensity 200 FLOP/byte
    t.samples_us = {*median_us, *median_us};
  }
  return t;
}

// Run 1 (evo, the one reported): 12 trials, 10 valid, best 40 us at trial 6 with the escaped layout label;
// baselines and both peaks. Run 2 (random) on the same problem and device; run 3 on another problem and
// run 4 on another device, neither of which may be overlaid.
void build_two_searches(const std::string& path) {
  Store store(path, Store::Mode::read_write);
  const std::int64_t evo = store.create_run(run_info("evo", "b=1,hq=8,sq=512", "Test GPU"));
  const std::vector<TrialRecord> trials = {
      trial(0, 0, 16, 2, "row", TrialStatus::ok, 100),
      trial(1, 0, 16, 4, "col", TrialStatus::ok, 80),
      trial(2, 0, 32, 2, "row", TrialStatus::ok, 90),
      trial(3, 0, 32, 4, "row", TrialStatus::ok, 50),
      trial(4, 1, 64, 8, "col", TrialStatus::invalid, std::nullopt, R"(spill <&"boom">)"),
      trial(5, 1, 64, 2, "row", TrialStatus::ok, 60),
      trial(6, 1, 32, 8, kSpecialLayout, TrialStatus::ok, 40),
      trial(7, 1, 16, 8, "row", TrialStatus::compile_error, std::nullopt, "nvrtc: error"),
      trial(8, 2, 32, 4, "col", TrialStatus::ok, 45),
      trial(9, 2, 64, 4, "row", TrialStatus::ok, 55),
      trial(10, 2, 16, 8, "col", TrialStatus::ok, 65),
      trial(11, 2, 64, 8, "row", TrialStatus::ok, 70),
  };
  for (const TrialRecord& t : trials) store.record_trial(evo, t);
  BaselineRecord cublas;
  cublas.name = "cublas_unfused";
  cublas.median_us = 400;
  cublas.p10_us = 390;
  cublas.p90_us = 420;
  cublas.tflops = 10;
  cublas.gbps = 50;
  cublas.max_abs_error = 0.001;
  cublas.detail_json = R"({"check":"pass","what":"unfused <cuBLAS>"})";
  store.record_baseline(evo, cublas);
  BaselineRecord gemm;
  gemm.name = "peak_gemm";
  gemm.tflops = 500;
  gemm.detail_json = R"({"what":"GEMM 8192^3"})";
  store.record_baseline(evo, gemm);
  BaselineRecord copy;
  copy.name = "peak_copy";
  copy.gbps = 2000;
  store.record_baseline(evo, copy);
  store.finish_run(evo, "finished");

  const std::int64_t random = store.create_run(run_info("random", "b=1,hq=8,sq=512", "Test GPU"));
  const double random_times[] = {120, 95, 110, 70, 85, 66, 90, 75};
  for (int seq = 0; seq < 8; ++seq) {
    store.record_trial(random, trial(seq, 0, 16 << (seq % 3), 2 << (seq % 2), fmt::format("row{}", seq),
                                     TrialStatus::ok, random_times[seq]));
  }
  store.record_trial(random, trial(8, 0, 64, 8, "col", TrialStatus::invalid, std::nullopt, "spill"));
  store.finish_run(random, "finished");

  const std::int64_t other_problem = store.create_run(run_info("evo", "b=2,hq=8,sq=512", "Test GPU"));
  store.record_trial(other_problem, trial(0, 0, 16, 2, "row", TrialStatus::ok, 30));
  const std::int64_t other_device = store.create_run(run_info("evo", "b=1,hq=8,sq=512", "Other GPU"));
  store.record_trial(other_device, trial(0, 0, 16, 2, "row", TrialStatus::ok, 20));
}

std::string render(const std::string& path, std::int64_t run, int top_k) {
  Store store(path, Store::Mode::read_only);
  ReportInput input = gather_report_input(store, run, top_k);
  input.db_path = path;
  input.output_path = "report.html";
  input.generated_at = "2026-12-01T10:00:00Z";
  return render_report_html(input);
}

void expect_self_contained(const std::string& html) {
  for (const char* external : {"<script", "<link", "url(", "@import", "http", "<img", "<iframe", "src="}) {
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  }
}

}  // namespace

TEST(Report, ConvergenceChartOverlaysTheOtherSearchOfTheSameProblemAndDevice) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "two.db").string();
  build_two_searches(db);
  const std::string html = render(db, 1, 5);
  const std::string chart = between(html, R"(<svg id="chart-convergence")", "</svg>");
  ASSERT_FALSE(chart.empty());
  // One dot per valid trial of run 1, two best-so-far lines: run 1 and run 2 only.
  EXPECT_EQ(count(chart, R"(class="trial-dot")"), 10u + 1u);  // + the legend's dot
  EXPECT_EQ(count(chart, "<polyline"), 2u);
  // Run 1's staircase: (0,100) (1,100) (1,80) (3,80) (3,50) (6,50) (6,40) (11,40).
  EXPECT_EQ(polyline_points(chart, "#2563eb"), 8u);
  // Run 2's: 120 at 0, 95 at 1, 70 at 3, 66 at 5, then flat to its last trial (8).
  EXPECT_EQ(polyline_points(chart, "#9333ea"), 8u);
  EXPECT_NE(chart.find(">run 2 (random)</text>"), std::string::npos);
  EXPECT_NE(chart.find(">run 1 (evo), this report</text>"), std::string::npos);
  EXPECT_EQ(chart.find("run 3"), std::string::npos);
  EXPECT_EQ(chart.find("run 4"), std::string::npos);
  EXPECT_NE(chart.find("best 40.00 µs at trial 6"), std::string::npos);
  EXPECT_NE(
      html.find("Run 2 (random, seed 7, 9 trials, 8 valid): best 66.00 µs, 1.65× the time of run 1's best."),
      std::string::npos);
  EXPECT_NE(html.find("within 5% of it from trial 6"), std::string::npos);
  EXPECT_EQ(html.find("No other run in this database"), std::string::npos);
  expect_self_contained(html);
}

TEST(Report, TunablePanelsAreRankedByHowMuchTheBestTimeDiffers) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "two.db").string();
  build_two_searches(db);
  const std::string html = render(db, 1, 5);
  const std::string panels = between(html, R"(<div class="panels" id="chart-tunables">)", "</div>");
  ASSERT_FALSE(panels.empty());
  // tile spans 65/40 = 1.625x, warps 60/40 = 1.5x, layout 50/40 = 1.25x; mode has one value.
  EXPECT_EQ(count(panels, "<svg"), 3u);
  const std::size_t tile = panels.find(R"(class="panel-title">tile<)");
  const std::size_t warps = panels.find(R"(class="panel-title">warps<)");
  const std::size_t layout = panels.find(R"(class="panel-title">layout<)");
  ASSERT_NE(layout, std::string::npos);
  EXPECT_LT(tile, warps);
  EXPECT_LT(warps, layout);
  EXPECT_NE(panels.find("fastest per value spans 1.62×"), std::string::npos);
  EXPECT_NE(panels.find("fastest per value spans 1.25×"), std::string::npos);
  EXPECT_EQ(panels.find(R"(class="panel-title">mode<)"), std::string::npos);
  EXPECT_NE(html.find("Single-valued among the valid trials, so not shown: mode."), std::string::npos);
  EXPECT_EQ(count(panels, R"(class="trial-dot")"), 3u * 10u);
  EXPECT_EQ(count(panels, R"(class="winner-dot")"), 3u);
  EXPECT_EQ(count(panels, R"(fill="#fff1e6")"), 3u);  // the winner's value, highlighted in each panel
  EXPECT_EQ(count(panels, R"(class="best-tick")"), 3u + 3u + 3u);
  // Numeric values in numeric order; labels in label order (escaped).
  const std::string tile_panel = between(panels, R"(class="panel-title">tile<)", "</svg>");
  EXPECT_LT(tile_panel.find(">16</text>"), tile_panel.find(">32</text>"));
  EXPECT_LT(tile_panel.find(">32</text>"), tile_panel.find(">64</text>"));
  EXPECT_NE(panels.find(">a&lt;b&amp;&quot;c&quot;</text>"), std::string::npos);
  EXPECT_NE(tile_panel.find(">n=4</text>"), std::string::npos);  // four valid trials with tile=32
}

TEST(Report, RooflineUsesThePeaksMeasuredInTheRun) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "two.db").string();
  build_two_searches(db);
  const std::string html = render(db, 1, 5);
  const std::string chart = between(html, R"(<svg id="chart-roofline")", "</svg>");
  ASSERT_FALSE(chart.empty());
  EXPECT_NE(chart.find("measured GEMM peak 500.0 TFLOP/s"), std::string::npos);
  EXPECT_NE(chart.find("measured copy bandwidth 2,000 GB/s"), std::string::npos);
  EXPECT_NE(chart.find("ridge 250 FLOP/B"), std::string::npos);          // 500 TFLOP/s over 2000 GB/s
  EXPECT_EQ(chart.find("stroke-dasharray=\"9 5\""), std::string::npos);  // measured: a solid roof
  EXPECT_EQ(count(chart, R"(class="winner-dot")"), 1u);
  EXPECT_EQ(count(chart, R"(class="baseline-dot")"), 1u);
  EXPECT_NE(chart.find("winner 100.0 TFLOP/s"), std::string::npos);
  EXPECT_NE(chart.find("cuBLAS unfused 10.0 TFLOP/s"), std::string::npos);
  const std::string caption =
      between(html.substr(html.find(R"(<svg id="chart-roofline")")), R"(<p class="caption">)", "</p>");
  EXPECT_NE(caption.find("Winner: 100.0 TFLOP/s at 200 FLOP/byte"), std::string::npos) << caption;
  EXPECT_NE(caption.find("Both roofs were measured in this run"), std::string::npos) << caption;
  // At 200 FLOP/byte the roof is 2000 GB/s x 200 = 400 TFLOP/s; the winner has 100.
  EXPECT_NE(caption.find("reaches 25% of the roof"), std::string::npos) << caption;
  EXPECT_EQ(caption.find("theoretical"), std::string::npos) << caption;
}

TEST(Report, TopTableAndBaselinesWithTheWinnersSpeedup) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "two.db").string();
  build_two_searches(db);
  const std::string html = render(db, 1, 5);
  const std::string top = between(html, R"(<table id="top-table">)", "</table>");
  ASSERT_FALSE(top.empty());
  EXPECT_EQ(count(top, "<tr"), 1u + 5u);
  EXPECT_EQ(count(top, R"(<tr class="winner">)"), 1u);
  // Rank 1 is trial 6 (40 us, p10-p90 39.2-42.0), rank 5 trial 5 (60 us).
  EXPECT_NE(
      top.find(
          R"(<tr class="winner"><td class="num">1</td><td class="num">6</td><td class="num">1</td><td class="num">40.00</td><td class="num">39.20–42.00</td><td class="num">100.0</td><td class="num">500</td>)"),
      std::string::npos)
      << top;
  EXPECT_NE(
      top.find(
          R"(<td class="num">5</td><td class="num">5</td><td class="num">1</td><td class="num">60.00</td>)"),
      std::string::npos);
  EXPECT_NE(top.find(R"(layout=<b>a&lt;b&amp;&quot;c&quot;</b>)"), std::string::npos);

  const std::string baselines = between(html, R"(<table id="baseline-table">)", "</table>");
  ASSERT_FALSE(baselines.empty());
  EXPECT_EQ(count(baselines, "<tr>"), 1u + 3u);
  EXPECT_NE(baselines.find(R"(<span class="speedup">10.00×</span>)"), std::string::npos);  // 400 us / 40 us
  EXPECT_EQ(count(baselines, R"(class="speedup")"), 1u);  // the peaks are not timings
  EXPECT_NE(baselines.find("unfused &lt;cuBLAS&gt;"), std::string::npos);
  EXPECT_NE(html.find(R"(<div class="value">10.00×</div>)"), std::string::npos);  // the header's card

  // The header: what ran, where, and how it ended.
  const std::string header = between(html, "<header", "</header>");
  EXPECT_NE(header.find("<dt>status</dt><dd>finished</dd>"), std::string::npos);
  EXPECT_NE(header.find("<dt>seed</dt><dd>7</dd>"), std::string::npos);
  EXPECT_NE(header.find("<dt>budget</dt><dd>12</dd>"), std::string::npos);
  EXPECT_NE(header.find("<dt>trials</dt><dd>12 recorded, 10 valid</dd>"), std::string::npos);
  EXPECT_NE(header.find("<dt>versions</dt><dd>evotune test</dd>"), std::string::npos);
  EXPECT_NE(header.find(R"(<span class="chip">layout=<b>a&lt;b&amp;&quot;c&quot;</b></span>)"),
            std::string::npos);
  EXPECT_NE(
      html.find(R"(<code id="regenerate">evotune report --db )" + db + " --run 1 -o report.html</code>"),
      std::string::npos);
  EXPECT_NE(html.find("Generated 2026-12-01T10:00:00Z"), std::string::npos);
}

TEST(Report, EveryStringFromTheDatabaseIsEscaped) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "two.db").string();
  build_two_searches(db);
  const std::string html = render(db, 1, 10);
  EXPECT_EQ(html.find(kSpecialLayout), std::string::npos);
  EXPECT_EQ(html.find(R"(spill <&"boom">)"), std::string::npos);
  EXPECT_EQ(html.find("<cuBLAS>"), std::string::npos);
  const std::string statuses = between(html, R"(<table id="status-table">)", "</table>");
  EXPECT_NE(statuses.find("trial 4: spill &lt;&amp;&quot;boom&quot;&gt;"), std::string::npos) << statuses;
  EXPECT_NE(statuses.find(R"(<td><code>ok</code></td><td class="num">10</td><td class="num">83.3%</td>)"),
            std::string::npos);
  // The tooltips carry configs too.
  EXPECT_NE(html.find("layout=a&lt;b&amp;&quot;c&quot;,mode=fast</title>"), std::string::npos);
  expect_self_contained(html);
}

TEST(Report, AReplayRunHasNoRooflineAndSaysWhy) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "replay.db").string();
  {
    Store store(db, Store::Mode::read_write);
    RunInfo info;
    info.family = "replay";
    info.problem = "convolution_A100.json";
    info.problem_json = "{}";
    info.strategy = "evo";
    info.budget = 4;
    info.device = "replay";
    info.versions = "evotune test";
    const std::int64_t run = store.create_run(info);
    for (int seq = 0; seq < 4; ++seq) {
      TrialRecord t;
      t.seq = seq;
      t.config = fmt::format("block_size_x={},block_size_y={}", 16 << seq, 4 >> (seq % 2));
      t.config_key = t.config;
      t.status = TrialStatus::ok;
      t.median_us = 1000.0 - seq * 100;  // replay stores only a time
      store.record_trial(run, t);
    }
    store.finish_run(run, "finished");
  }
  const std::string html = render(db, 1, 10);
  EXPECT_EQ(html.find(R"(<svg id="chart-roofline")"), std::string::npos);
  EXPECT_NE(
      html.find(
          R"(<p class="caption" id="no-roofline">No roofline: the trials of this run record no TFLOP/s)"),
      std::string::npos);
  EXPECT_NE(html.find(R"(<svg id="chart-convergence")"), std::string::npos);
  EXPECT_EQ(count(between(html, R"(<div class="panels" id="chart-tunables">)", "</div>"), "<svg"), 2u);
  EXPECT_NE(html.find("No other run in this database searched the same problem on the same device"),
            std::string::npos);
  EXPECT_NE(html.find("None recorded."), std::string::npos);  // baselines
  const std::string top = between(html, R"(<table id="top-table">)", "</table>");
  EXPECT_EQ(count(top, "<tr"), 1u + 4u);
  EXPECT_NE(
      top.find(
          R"(<td class="num">700.0</td><td class="num">—</td><td class="num">—</td><td class="num">—</td>)"),
      std::string::npos)
      << top;
  expect_self_contained(html);
}

// The committed H100 search: schema 1, so no measured peaks; the roofline falls back to the device's
// theoretical bandwidth and says that it is not a measurement.
TEST(Report, TheCommittedH100SearchFallsBackToTheTheoreticalBandwidth) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "search.db").string();
  std::filesystem::copy_file(evotune::testing::source_dir() / "evidence/results/h100/issue4-search/search_fp16/search.db",
                             db);
  const std::string html = render(db, 1, 10);

  const std::string convergence = between(html, R"(<svg id="chart-convergence")", "</svg>");
  EXPECT_EQ(count(convergence, R"(class="trial-dot")"), 248u + 1u);  // 248 valid of 300, + the legend's dot
  EXPECT_EQ(count(convergence, "<polyline"), 1u);
  EXPECT_NE(html.find("No other run in this database searched the same problem on the same device"),
            std::string::npos);

  const std::string panels = between(html, R"(<div class="panels" id="chart-tunables">)", "</div>");
  EXPECT_EQ(count(panels, "<svg"), 6u);
  EXPECT_EQ(count(panels, R"(fill="#fff1e6")"), 6u);

  const std::string roofline = between(html, R"(<svg id="chart-roofline")", "</svg>");
  ASSERT_FALSE(roofline.empty());
  EXPECT_NE(roofline.find("theoretical DRAM bandwidth 3,352 GB/s (not measured)"), std::string::npos);
  EXPECT_NE(roofline.find(R"(stroke-dasharray="9 5")"), std::string::npos);
  EXPECT_EQ(roofline.find("GEMM peak"), std::string::npos);
  EXPECT_EQ(count(roofline, R"(class="winner-dot")"), 1u);
  EXPECT_EQ(count(roofline, R"(class="baseline-dot")"), 0u);
  EXPECT_NE(
      html.find("No compute peak was measured in this run (its database, schema version 1, predates measured "
                "peaks), so no compute roof is drawn"),
      std::string::npos);
  EXPECT_NE(html.find("a data-sheet figure, not a measurement"), std::string::npos);
  EXPECT_NE(html.find("None recorded (the database has schema version 1"), std::string::npos);

  EXPECT_EQ(count(between(html, R"(<table id="top-table">)", "</table>"), "<tr"), 1u + 10u);
  // The search's own winner (the README's 1033.5 us is its re-bench, outside the database).
  EXPECT_NE(
      html.find(R"(<div class="value">1,027.8 µs</div><div class="label">best median (trial 112)</div>)"),
      std::string::npos);
  EXPECT_NE(html.find("The 44 trials slower than 5,581.3 µs (up to 318,569.4 µs) are drawn as triangles on "
                      "the top edge."),
            std::string::npos);
  EXPECT_NE(html.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  expect_self_contained(html);
}

// Medians and rates a database may hold but a log axis cannot draw (0, negative, inf) are left out of the
// charts: no SVG attribute ever holds nan or inf, and the winner is the fastest drawable trial.
TEST(Report, MediansThatAreNotPositiveAndFiniteAreLeftOutOfTheCharts) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "search.db").string();
  std::filesystem::copy_file(
      evotune::testing::source_dir() / "evidence/results/h100/issue4-search/search_fp16/search.db", db);
  {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
    // Run 2: a copy of run 1 (the same problem and device, so the convergence chart overlays it). Then in
    // both, ok trials with a median of 0, below 0 and inf, and a winner-class trial with infinite rates.
    const char* sql = R"sql(
      CREATE TEMP TABLE r AS SELECT * FROM runs WHERE id = 1;
      UPDATE r SET id = 2;
      INSERT INTO runs SELECT * FROM r;
      CREATE TEMP TABLE t AS SELECT * FROM trials WHERE run_id = 1;
      UPDATE t SET id = id + 100000, run_id = 2;
      INSERT INTO trials SELECT * FROM t;
      UPDATE trials SET median_us = 0 WHERE seq = 0 AND status = 'ok';
      UPDATE trials SET median_us = -5
        WHERE seq IN (SELECT seq FROM trials WHERE status = 'ok' ORDER BY seq LIMIT 1 OFFSET 1);
      UPDATE trials SET median_us = 9e999
        WHERE seq IN (SELECT seq FROM trials WHERE status = 'ok' ORDER BY seq LIMIT 1 OFFSET 2);
      UPDATE trials SET median_us = -1 WHERE seq = 112;
      UPDATE trials SET tflops = 9e999, gbps = 9e999 WHERE seq = 103;
    )sql";
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(handle, sql, nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
    sqlite3_close(handle);
  }
  for (const std::int64_t run : {1, 2}) {
    const std::string html = render(db, run, 10);
    ASSERT_NE(html.find(R"(<svg id="chart-convergence")"), std::string::npos);
    const std::regex attribute(R"re(([A-Za-z][\w:-]*)="([^"]*)")re");
    const std::regex not_a_number(R"re((^|[^A-Za-z])-?(nan|inf)([^A-Za-z]|$))re", std::regex::icase);
    int attributes = 0;
    for (std::sregex_iterator it(html.begin(), html.end(), attribute), end; it != end; ++it) {
      ++attributes;
      EXPECT_FALSE(std::regex_search((*it)[2].str(), not_a_number)) << "run " << run << ": " << (*it)[0].str();
    }
    EXPECT_GT(attributes, 1000);
    // The winner is the fastest trial with a drawable median (103, 1,030.4 µs), not trial 112 at -1 µs.
    EXPECT_NE(html.find(R"(<div class="label">best median (trial 103)</div>)"), std::string::npos) << run;
    // Its rates are infinite: no roofline, and the page says why.
    EXPECT_NE(html.find("cannot be drawn on logarithmic axes"), std::string::npos) << run;
  }
}

// Synthetic input, no store: the wall time comes from created and finished times; a run without a valid
// trial still renders every section with a sentence instead of a chart.
TEST(Report, RendersSyntheticInputsWithoutAStore) {
  ReportInput input;
  input.run.id = 3;
  input.run.created_at = "2026-11-21T18:08:58Z";
  input.run.status = "failed";
  input.run.strategy = "evo";
  input.finished_at = "2026-11-21T18:12:23Z";
  input.schema_version = 2;
  TrialRecord failed;
  failed.status = TrialStatus::crash;
  failed.config = "a=1";
  failed.error = "worker killed by signal 6 (Aborted)";
  input.trials = {failed};
  const std::string html = render_report_html(input);
  EXPECT_NE(html.find("<dt>wall time</dt><dd>3 min 25 s</dd>"), std::string::npos);
  EXPECT_NE(html.find("<dt>finished</dt><dd>2026-11-21T18:12:23Z</dd>"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("No valid trial in this run, so there is no time to plot."), std::string::npos);
  EXPECT_NE(html.find("No valid trial in this run, so there is no winner to place."), std::string::npos);
  EXPECT_NE(html.find("trial 0: worker killed by signal 6 (Aborted)"), std::string::npos);

  input.finished_at.reset();
  EXPECT_NE(render_report_html(input).find("<dt>finished</dt><dd>—</dd><dt>wall time</dt><dd>—</dd>"),
            std::string::npos);
}

TEST(ReportCli, WritesThePageAndRefusesAnUnknownRun) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "two.db").string();
  build_two_searches(db);
  const std::string binary =
      std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "cli" / "evotune";
  auto run = [&](const std::string& args) {
    const int status =
        std::system((binary + " " + args + " 2>" + (dir.path() / "stderr.txt").string()).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  const std::filesystem::path out = dir.path() / "report.html";

  EXPECT_EQ(run(fmt::format("report --db {} --run 9 -o {}", db, out.string())), 2);
  EXPECT_EQ(evotune::testing::file_bytes(dir.path() / "stderr.txt"),
            fmt::format("evotune: error: {} holds no run 9 (see evotune runs --db {})\n", db, db));
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(run(fmt::format("report --db {} --run 1", db)), 2);  // -o is required

  // Default: the latest run (4, on the other device).
  ASSERT_EQ(run(fmt::format("report --db {} -o {}", db, out.string())), 0);
  const std::string stderr_text = evotune::testing::file_bytes(dir.path() / "stderr.txt");
  EXPECT_NE(stderr_text.find(fmt::format("evotune: wrote {} (run 4, 1 trials", out.string())),
            std::string::npos);
  EXPECT_EQ(std::count(stderr_text.begin(), stderr_text.end(), '\n'), 1);
  const std::string html = evotune::testing::file_bytes(out);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find(fmt::format("evotune report --db {} --run 4 -o {}", db, out.string())),
            std::string::npos);

  ASSERT_EQ(run(fmt::format("report --db {} --run 1 --top 3 -o {}", db, out.string())), 0);
  EXPECT_EQ(count(between(evotune::testing::file_bytes(out), R"(<table id="top-table">)", "</table>"), "<tr"), 1u + 3u);
}
