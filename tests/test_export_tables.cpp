// The CSV and Kernel Tuner T4 exports of the evidence store: every field of every trial read back with an
// independent RFC 4180 parser, the evo_log CSV against the view, and T4 documents read back by evotune's
// own T4 reader (search::T4Space), on a small database built here and on a real 300-trial H100 search.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "evidence/export_tables.h"
#include "evidence/store.h"
#include "search/t4.h"
#include "tests/test_support.h"

using namespace evotune::evidence;
using evotune::Config;
using evotune::search::T4Space;

namespace {

using Rows = std::vector<std::vector<std::string>>;

// RFC 4180 with \n line ends: quotes only around a whole field, "" inside one is a quote, and every line,
// the last included, ends with \n.
Rows parse_csv(const std::string& text) {
  Rows rows;
  std::vector<std::string> row;
  std::string field;
  bool in_quotes = false, field_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        in_quotes = false;
      }
      continue;
    }
    if (c == '"' && field_start) {
      in_quotes = true;
      field_start = false;
    } else if (c == ',' || c == '\n') {
      row.push_back(field);
      field.clear();
      field_start = true;
      if (c == '\n') {
        rows.push_back(row);
        row.clear();
      }
    } else {
      if (c == '"' || c == '\r') ADD_FAILURE() << "unquoted quote or carriage return at byte " << i;
      field += c;
      field_start = false;
    }
  }
  EXPECT_FALSE(in_quotes) << "unterminated quoted field";
  EXPECT_TRUE(row.empty() && field.empty()) << "the last line does not end with \\n";
  return rows;
}

RunInfo run_info(const std::string& family, const std::string& device) {
  RunInfo i;
  i.family = family;
  i.problem = "b=1,hq=8,sq=512,d=64";
  i.problem_json = R"({"b":1,"d":64,"hq":8,"sq":512})";
  i.strategy = "evo";
  i.seed = 7;
  i.budget = 12;
  i.device = device;
  i.device_json = device.empty() ? "" : R"({"name":"Test GPU","sms":132})";
  i.versions = "evotune test";
  i.options_json = R"({"evo":"offspring=4"})";
  return i;
}

TrialRecord trial(int seq, int generation, const std::string& key, const std::string& config,
                  TrialStatus status) {
  TrialRecord t;
  t.seq = seq;
  t.generation = generation;
  t.config_key = key;
  t.config = config;
  t.status = status;
  return t;
}

// Run 1: a search with every status a GPU search records, written in an order that is not seq order.
// Run 2: a compile-only sweep. Run 3: a replay whose labels are the JSON text of T4 values.
struct Fixture {
  evotune::testing::TempDir dir;
  std::string path = (dir.path() / "evidence.db").string();
  std::int64_t search = 0, sweep = 0, replay = 0;

  Fixture() {
    Store store(path, Store::Mode::read_write);
    search = store.create_run(run_info("attention", "Test GPU"));
    TrialRecord fast =
        trial(4, 1, "mma=1,block_m=64,warps=8", "mma=mma_sync,block_m=64,warps=8", TrialStatus::ok);
    fast.median_us = fast.min_us = fast.p10_us = 700.25;
    fast.p90_us = 701;
    fast.samples_us = {700.25, 701, 700.25};
    fast.tflops = 300.5;
    fast.compile_seconds = 2;
    store.record_trial(search, fast);

    TrialRecord first =
        trial(0, 0, "mma=1,block_m=128,warps=8", "mma=mma_sync,block_m=128,warps=8", TrialStatus::ok);
    first.median_us = 1033.5;
    first.min_us = 1030.25;
    first.p10_us = 1031;
    first.p90_us = 1040.125;
    first.tflops = 266;
    first.gbps = 0.1 + 0.2;  // 0.30000000000000004: needs 17 digits to read back exactly
    first.max_abs_error = 0.0009765625;
    first.rel_l2_error = 1.2e-4;
    first.compile_seconds = 1.75;
    first.samples_us = {1033.5, 1030.25, 1040.125};
    first.resources_json = R"({"registers":128})";
    store.record_trial(search, first);

    TrialRecord no_compile =
        trial(1, 0, "mma=0,block_m=64,warps=4", "mma=scalar,block_m=64,warps=4", TrialStatus::compile_error);
    no_compile.compile_seconds = 0.5;
    no_compile.error = "attention.cuh(12): error: expected a \";\"";
    store.record_trial(search, no_compile);

    TrialRecord wrong =
        trial(2, 0, "mma=1,block_m=64,warps=4", "mma=mma_sync,block_m=64,warps=4", TrialStatus::wrong_result);
    wrong.max_abs_error = 0.5;
    wrong.rel_l2_error = 0.25;
    wrong.compile_seconds = 1.25;
    wrong.error = "max abs error 0.5, limit \"0.001\"\nfirst bad row 3";
    store.record_trial(search, wrong);

    TrialRecord spills =
        trial(3, 0, "mma=1,block_m=256,warps=1", "mma=mma_sync,block_m=256,warps=1", TrialStatus::invalid);
    spills.error = "register spills (20 bytes stored, 20 loaded; 255 registers)";
    store.record_trial(search, spills);

    TrialRecord hung =
        trial(5, 1, "mma=0,block_m=128,warps=8", "mma=scalar,block_m=128,warps=8", TrialStatus::timeout);
    hung.error = "timeout after 60 s";
    store.record_trial(search, hung);
    TrialRecord crashed =
        trial(6, 1, "mma=0,block_m=32,warps=2", "mma=scalar,block_m=32,warps=2", TrialStatus::crash);
    crashed.error = "crash: worker killed by signal 6 (Aborted)";
    store.record_trial(search, crashed);
    TrialRecord launch =
        trial(7, 2, "mma=0,block_m=16,warps=1", "mma=scalar,block_m=16,warps=1", TrialStatus::launch_error);
    launch.error = "cuLaunchKernel(...) failed:\nCUDA_ERROR_INVALID_VALUE";  // a line break alone is quoted too
    store.record_trial(search, launch);
    TrialRecord slow =
        trial(8, 2, "mma=0,block_m=256,warps=8", "mma=scalar,block_m=256,warps=8", TrialStatus::ok);
    slow.median_us = slow.min_us = slow.p10_us = slow.p90_us = 900;
    slow.samples_us = {900};
    store.record_trial(search, slow);
    store.finish_run(search, "finished");

    sweep = store.create_run(run_info("attention", ""));
    TrialRecord built = trial(0, 0, "block_m=64,stages=2", "block_m=64,stages=2", TrialStatus::compiled);
    built.compile_seconds = 1.5;
    store.record_trial(sweep, built);
    TrialRecord spilled = trial(1, 0, "block_m=256,stages=3", "block_m=256,stages=3", TrialStatus::invalid);
    store.record_trial(sweep, spilled);
    TrialRecord built2 = trial(2, 0, "block_m=128,stages=2", "block_m=128,stages=2", TrialStatus::compiled);
    store.record_trial(sweep, built2);
    TrialRecord broken =
        trial(3, 0, "block_m=16,stages=1", "block_m=16,stages=1", TrialStatus::compile_error);
    store.record_trial(sweep, broken);

    replay = store.create_run(run_info("replay", "replay"));
    const char* replayed[][2] = {{"block_size_x=32,precision=0,ratio=0", R"(block_size_x=32,precision="float",ratio=0.5)"},
                                 {"block_size_x=64,precision=1,ratio=1", R"(block_size_x=64,precision="half",ratio=0.25)"}};
    for (int i = 0; i < 2; ++i) {
      TrialRecord t = trial(i, 0, replayed[i][0], replayed[i][1], TrialStatus::ok);
      t.median_us = 2000.0 + 1000 * i;  // 2 ms and 3 ms, as a replay stores the file's milliseconds
      t.samples_us = {*t.median_us};
      store.record_trial(replay, t);
    }
  }
};

std::filesystem::path write_json(const std::filesystem::path& path, const nlohmann::json& doc) {
  std::ofstream(path) << doc.dump(1);
  return path;
}

// The reader's config for a trial's "name=label,..." text, in the reader's parameter order: integer labels
// are values, other labels are indices into the reader's labels (a string value reads back as itself).
Config reader_config(const T4Space& t4, const std::string& text) {
  std::map<std::string, std::string> labels;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) labels[item.substr(0, item.find('='))] = item.substr(item.find('=') + 1);
  Config config;
  for (const evotune::Parameter& p : t4.space().parameters()) {
    const std::string& label = labels.at(p.name);
    if (!p.categorical()) {
      config.set(p.name, std::stoi(label));
      continue;
    }
    auto it = std::find(p.labels.begin(), p.labels.end(), label);
    EXPECT_NE(it, p.labels.end()) << p.name << " has no label " << label;
    config.set(p.name, static_cast<int>(it - p.labels.begin()));
  }
  return config;
}

}  // namespace

TEST(ExportTables, TrialsCsvHoldsEveryFieldOfEveryTrialInSeqOrder) {
  Fixture f;
  Store store(f.path, Store::Mode::read_only);
  const Rows rows = parse_csv(trials_csv(store, f.search));
  const Rows expected = {
      {"run_id", "seq", "generation", "status", "config_key", "config", "mma", "block_m", "warps", "median_us", "min_us",
       "p10_us", "p90_us", "tflops", "gbps", "max_abs_error", "rel_l2_error", "compile_seconds", "samples", "error"},
      {"1", "0", "0", "ok", "mma=1,block_m=128,warps=8", "mma=mma_sync,block_m=128,warps=8", "mma_sync", "128", "8",
       "1033.5", "1030.25", "1031", "1040.125", "266", "0.30000000000000004", "0.0009765625", "0.00012", "1.75", "3", ""},
      {"1", "1", "0", "compile_error", "mma=0,block_m=64,warps=4", "mma=scalar,block_m=64,warps=4", "scalar", "64", "4",
       "", "", "", "", "", "", "", "", "0.5", "0", "attention.cuh(12): error: expected a \";\""},
      {"1", "2", "0", "wrong_result", "mma=1,block_m=64,warps=4", "mma=mma_sync,block_m=64,warps=4", "mma_sync", "64",
       "4", "", "", "", "", "", "", "0.5", "0.25", "1.25", "0", "max abs error 0.5, limit \"0.001\"\nfirst bad row 3"},
      {"1", "3", "0", "invalid", "mma=1,block_m=256,warps=1", "mma=mma_sync,block_m=256,warps=1", "mma_sync", "256", "1",
       "", "", "", "", "", "", "", "", "0", "0", "register spills (20 bytes stored, 20 loaded; 255 registers)"},
      {"1", "4", "1", "ok", "mma=1,block_m=64,warps=8", "mma=mma_sync,block_m=64,warps=8", "mma_sync", "64", "8",
       "700.25", "700.25", "700.25", "701", "300.5", "", "", "", "2", "3", ""},
      {"1", "5", "1", "timeout", "mma=0,block_m=128,warps=8", "mma=scalar,block_m=128,warps=8", "scalar", "128", "8", "",
       "", "", "", "", "", "", "", "0", "0", "timeout after 60 s"},
      {"1", "6", "1", "crash", "mma=0,block_m=32,warps=2", "mma=scalar,block_m=32,warps=2", "scalar", "32", "2", "", "",
       "", "", "", "", "", "", "0", "0", "crash: worker killed by signal 6 (Aborted)"},
      {"1", "7", "2", "launch_error", "mma=0,block_m=16,warps=1", "mma=scalar,block_m=16,warps=1", "scalar", "16", "1",
       "", "", "", "", "", "", "", "", "0", "0", "cuLaunchKernel(...) failed:\nCUDA_ERROR_INVALID_VALUE"},
      {"1", "8", "2", "ok", "mma=0,block_m=256,warps=8", "mma=scalar,block_m=256,warps=8", "scalar", "256", "8", "900",
       "900", "900", "900", "", "", "", "", "0", "1", ""},
  };
  ASSERT_EQ(rows.size(), expected.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], expected[i]) << "row " << i;
  // Every number reads back as exactly the stored double.
  EXPECT_EQ(std::stod(rows[1][14]), 0.1 + 0.2);
  EXPECT_EQ(std::stod(rows[1][16]), 1.2e-4);

  // Columns follow each run's own tunables; the replay's labels are kept as recorded.
  const Rows replay = parse_csv(trials_csv(store, f.replay));
  ASSERT_EQ(replay.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(replay[0].begin() + 6, replay[0].begin() + 9),
            (std::vector<std::string>{"block_size_x", "precision", "ratio"}));
  EXPECT_EQ(std::vector<std::string>(replay[1].begin() + 6, replay[1].begin() + 10),
            (std::vector<std::string>{"32", "\"float\"", "0.5", "2000"}));
}

TEST(ExportTables, EvoLogCsvMatchesTheView) {
  Fixture f;
  Store store(f.path, Store::Mode::read_only);
  const Rows one = parse_csv(evo_log_csv(store, f.search));
  const Rows expected = {{"run_id", "generation", "evaluated", "valid", "generation_best_us", "best_so_far_us",
                          "generation_median_us"},
                         {"1", "0", "4", "1", "1033.5", "1033.5", "1033.5"},
                         {"1", "1", "3", "1", "700.25", "700.25", "700.25"},
                         {"1", "2", "2", "1", "900", "700.25", "900"}};
  EXPECT_EQ(one, expected);

  const Rows all = parse_csv(evo_log_csv(store, std::nullopt));
  const std::vector<EvoLogRow> view = store.evo_log(std::nullopt);
  ASSERT_EQ(all.size(), view.size() + 1);
  ASSERT_EQ(view.size(), 5u);  // 3 generations of the search, 1 of the sweep, 1 of the replay
  for (std::size_t i = 0; i < view.size(); ++i) {
    const std::vector<std::string>& row = all[i + 1];
    ASSERT_EQ(row.size(), 7u);
    EXPECT_EQ(std::stoll(row[0]), view[i].run_id);
    EXPECT_EQ(std::stoi(row[1]), view[i].generation);
    EXPECT_EQ(std::stoi(row[2]), view[i].evaluated);
    EXPECT_EQ(std::stoi(row[3]), view[i].valid);
    const std::optional<double> numbers[] = {view[i].generation_best_us, view[i].best_so_far_us,
                                             view[i].generation_median_us};
    for (int c = 0; c < 3; ++c) {
      const std::string& text = row[4 + c];
      EXPECT_EQ(text.empty() ? std::nullopt : std::optional(std::stod(text)), numbers[c]) << "row " << i << " column " << 4 + c;
    }
  }
  // The sweep has no valid trial: its numbers are empty cells.
  EXPECT_EQ(all[4], (std::vector<std::string>{"2", "0", "4", "0", "", "", ""}));
}

TEST(ExportTables, T4DocumentFollowsTheSchema) {
  Fixture f;
  Store store(f.path, Store::Mode::read_only);
  const nlohmann::json doc = t4_results(store, f.search);
  EXPECT_EQ(doc.at("schema_version"), "1.0.0");
  EXPECT_EQ(doc.at("metadata").at("timeunit"), "milliseconds");
  EXPECT_EQ(doc.at("metadata").at("environment").at("device_query"), nlohmann::json::parse(R"({"name":"Test GPU","sms":132})"));
  const nlohmann::json& run = doc.at("metadata").at("evotune");
  EXPECT_EQ(run.at("run_id"), f.search);
  EXPECT_EQ(run.at("problem_json"), nlohmann::json::parse(R"({"b":1,"d":64,"hq":8,"sq":512})"));
  EXPECT_EQ(run.at("options"), nlohmann::json::parse(R"({"evo":"offspring=4"})"));
  EXPECT_EQ(run.at("status"), "finished");
  EXPECT_EQ(run.at("compiled_not_exported"), 0);
  // Every result carries when its trial was recorded, as ISO 8601 UTC ("2026-11-21T19:03:47.123Z").
  for (const nlohmann::json& r : doc.at("results")) {
    const std::string stamp = r.at("timestamp").get<std::string>();
    EXPECT_EQ(stamp.size(), 24u) << stamp;
    EXPECT_EQ(stamp[10], 'T') << stamp;
    EXPECT_EQ(stamp.back(), 'Z') << stamp;
  }

  const nlohmann::json& results = doc.at("results");
  ASSERT_EQ(results.size(), 9u);
  const std::vector<std::string> invalidity = {"correct", "compile", "correctness", "constraints", "correct",
                                               "timeout", "runtime", "runtime", "correct"};
  for (std::size_t i = 0; i < results.size(); ++i) {
    const nlohmann::json& r = results[i];
    for (const char* required : {"configuration", "times", "invalidity", "correctness"}) {
      EXPECT_TRUE(r.contains(required)) << "result " << i << " has no " << required;
    }
    EXPECT_EQ(r.at("invalidity"), invalidity[i]) << "result " << i;
    EXPECT_EQ(r.at("correctness"), invalidity[i] == "correct" ? 1 : 0) << "result " << i;
    EXPECT_EQ(r.at("objectives"), nlohmann::json::array({"time"}));
  }
  EXPECT_EQ(results[0].at("configuration"), nlohmann::json::parse(R"({"mma":"mma_sync","block_m":128,"warps":8})"));
  EXPECT_TRUE(results[0].at("configuration").at("block_m").is_number_integer());
  EXPECT_EQ(results[0].at("times"), nlohmann::json::parse(R"({"compilation":1750.0,"runtimes":[1.0335,1.03025,1.040125]})"));
  EXPECT_EQ(results[0].at("measurements"), nlohmann::json::parse(R"([
      {"name":"time","value":1.0335,"unit":"ms"},
      {"name":"tflops","value":266.0,"unit":"TFLOP/s"},
      {"name":"gbps","value":0.30000000000000004,"unit":"GB/s"},
      {"name":"max_abs_error","value":0.0009765625,"unit":""},
      {"name":"rel_l2_error","value":0.00012,"unit":""}])"));
  // A wrong result keeps its error figures but has no time.
  EXPECT_EQ(results[2].at("measurements"), nlohmann::json::parse(R"([
      {"name":"max_abs_error","value":0.5,"unit":""},{"name":"rel_l2_error","value":0.25,"unit":""}])"));
  EXPECT_EQ(results[1].at("times"), nlohmann::json::parse(R"({"compilation":500.0,"runtimes":[]})"));
  EXPECT_EQ(results[1].at("measurements"), nlohmann::json::array());

  // A compile-only sweep: the compiled trials are counted, not exported.
  const nlohmann::json sweep = t4_results(store, f.sweep);
  ASSERT_EQ(sweep.at("results").size(), 2u);
  EXPECT_EQ(sweep.at("results")[0].at("invalidity"), "constraints");
  EXPECT_EQ(sweep.at("results")[1].at("invalidity"), "compile");
  EXPECT_EQ(sweep.at("metadata").at("evotune").at("compiled_not_exported"), 2);
  EXPECT_FALSE(sweep.at("metadata").contains("environment"));  // no device

  // A replay's JSON-text labels are written as the values they stand for.
  const nlohmann::json replay = t4_results(store, f.replay);
  EXPECT_EQ(replay.at("results")[0].at("configuration"),
            nlohmann::json::parse(R"({"block_size_x":32,"precision":"float","ratio":0.5})"));
}

TEST(ExportTables, T4RoundTripsThroughTheReader) {
  Fixture f;
  Store store(f.path, Store::Mode::read_only);
  const T4Space t4 = T4Space::load(write_json(f.dir.path() / "search.json", t4_results(store, f.search)));
  const std::vector<TrialRecord> trials = store.trials(f.search);
  ASSERT_EQ(t4.results().size(), trials.size());
  EXPECT_EQ(t4.valid_count(), 3u);
  EXPECT_EQ(t4.optimum(), 700.25 / 1000);

  // Parameters: integers stay integers, labels become categorical and read back as the same labels.
  std::map<std::string, evotune::Parameter> params;
  for (const evotune::Parameter& p : t4.space().parameters()) params[p.name] = p;
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params["mma"].labels, (std::vector<std::string>{"mma_sync", "scalar"}));
  EXPECT_EQ(params["block_m"].values, (std::vector<int>{16, 32, 64, 128, 256}));
  EXPECT_FALSE(params["block_m"].categorical());
  EXPECT_EQ(params["warps"].values, (std::vector<int>{1, 2, 4, 8}));

  const std::map<TrialStatus, std::string> invalidity = {{TrialStatus::ok, "correct"},
                                                         {TrialStatus::compile_error, "compile"},
                                                         {TrialStatus::wrong_result, "correctness"},
                                                         {TrialStatus::invalid, "constraints"},
                                                         {TrialStatus::timeout, "timeout"},
                                                         {TrialStatus::crash, "runtime"},
                                                         {TrialStatus::launch_error, "runtime"}};
  for (const TrialRecord& trial : trials) {
    const evotune::search::T4Result* r = t4.lookup(reader_config(t4, trial.config));
    ASSERT_NE(r, nullptr) << trial.config;
    EXPECT_EQ(r->valid, trial.status == TrialStatus::ok) << trial.config;
    EXPECT_EQ(r->invalidity, invalidity.at(trial.status)) << trial.config;
    if (trial.status == TrialStatus::ok) {
      EXPECT_EQ(r->time, *trial.median_us / 1000) << trial.config;
    }
  }

  // A replay exported and read again has the space it replayed: the same values and labels.
  const T4Space replay = T4Space::load(write_json(f.dir.path() / "replay.json", t4_results(store, f.replay)));
  std::map<std::string, evotune::Parameter> replayed;
  for (const evotune::Parameter& p : replay.space().parameters()) replayed[p.name] = p;
  EXPECT_EQ(replayed["block_size_x"].values, (std::vector<int>{32, 64}));
  EXPECT_EQ(replayed["precision"].labels, (std::vector<std::string>{"float", "half"}));
  EXPECT_EQ(replayed["ratio"].labels, (std::vector<std::string>{"0.25", "0.5"}));
  EXPECT_EQ(replay.optimum(), 2.0);
}

TEST(ExportTables, UnknownRunIsAnError) {
  Fixture f;
  Store store(f.path, Store::Mode::read_only);
  for (const auto& export_run : std::vector<std::function<void()>>{
           [&] { trials_csv(store, 99); }, [&] { evo_log_csv(store, 99); }, [&] { t4_results(store, 99); }}) {
    try {
      export_run();
      ADD_FAILURE() << "no error for run 99";
    } catch (const StoreError& e) {
      EXPECT_STREQ(e.what(), "no run 99 in this database");
    }
  }
}

// The committed H100 search (schema version 1, 300 trials: 248 ok, 52 rejected for register spills).
TEST(ExportTables, RealH100SearchExportsAndReadsBack) {
  evotune::testing::TempDir dir;
  const auto db = dir.path() / "search.db";
  std::filesystem::copy_file(evotune::testing::source_dir() / "evidence/results/h100/issue4-search/search_fp16/search.db", db);
  Store store(db.string(), Store::Mode::read_only);
  ASSERT_EQ(store.schema_version(), 1);
  const std::vector<RunRow> runs = store.runs();
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_TRUE(runs[0].best_us.has_value());
  EXPECT_EQ(*runs[0].best_us, 1027.8239846229553);

  const Rows csv = parse_csv(trials_csv(store, 1));
  ASSERT_EQ(csv.size(), 301u);
  const std::vector<std::string> header = {
      "run_id", "seq", "generation", "status", "config_key", "config", "mma", "block_m", "block_n", "warps", "stages",
      "barrier", "smem_layout", "vec_bytes", "q_frags", "min_ctas", "overlap", "qk_split", "median_us", "min_us",
      "p10_us", "p90_us", "tflops", "gbps", "max_abs_error", "rel_l2_error", "compile_seconds", "samples", "error"};
  EXPECT_EQ(csv[0], header);
  std::map<std::string, int> statuses;
  int samples = 0;
  for (std::size_t i = 1; i < csv.size(); ++i) {
    ASSERT_EQ(csv[i].size(), header.size()) << "row " << i;
    EXPECT_EQ(csv[i][1], std::to_string(i - 1));  // seq order
    ++statuses[csv[i][3]];
    samples += std::stoi(csv[i][27]);
  }
  EXPECT_EQ(statuses, (std::map<std::string, int>{{"invalid", 52}, {"ok", 248}}));
  EXPECT_EQ(samples, 5874);
  // The winner, seq 112.
  EXPECT_EQ(std::vector<std::string>(csv[113].begin() + 3, csv[113].begin() + 19),
            (std::vector<std::string>{"ok", "mma=1,block_m=64,block_n=64,warps=4,stages=2,barrier=1,smem_layout=1,"
                                            "vec_bytes=16,q_frags=1,min_ctas=1,overlap=0,qk_split=1",
                                      "mma=mma_sync,block_m=64,block_n=64,warps=4,stages=2,barrier=light,"
                                      "smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=1,overlap=off,qk_split=1",
                                      "mma_sync", "64", "64", "4", "2", "light", "swizzled", "16", "regs", "1", "off", "1",
                                      "1027.8239846229553"}));

  const nlohmann::json doc = t4_results(store, 1);
  EXPECT_EQ(doc.at("metadata").at("environment").at("device_query").at("name"), "NVIDIA H100 80GB HBM3");
  const T4Space t4 = T4Space::load(write_json(dir.path() / "search_fp16.json", doc));
  ASSERT_EQ(t4.results().size(), 300u);
  EXPECT_EQ(t4.valid_count(), 248u);
  EXPECT_EQ(t4.optimum(), *runs[0].best_us / 1000);
  EXPECT_EQ(t4.space().parameters().size(), 12u);
  for (const TrialRecord& trial : store.trials(1)) {
    const evotune::search::T4Result* r = t4.lookup(reader_config(t4, trial.config));
    ASSERT_NE(r, nullptr) << trial.config;
    EXPECT_EQ(r->invalidity, trial.status == TrialStatus::ok ? "correct" : "constraints") << trial.config;
    if (trial.status == TrialStatus::ok) {
      EXPECT_EQ(r->time, *trial.median_us / 1000) << trial.config;
    }
  }
}

// OWASP CSV injection: a text cell a spreadsheet would run as a formula (= + - @ tab CR first) is written
// with a leading single quote and quoted; a plain number stays a number, negative ones included.
TEST(ExportTables, CsvCellsThatAreFormulasAreNeutralised) {
  evotune::testing::TempDir dir;
  const std::string path = (dir.path() / "formulas.db").string();
  std::int64_t run = 0;
  {
    Store store(path, Store::Mode::read_write);
    run = store.create_run(run_info("replay", "replay"));
    TrialRecord a = trial(0, 0, "=1+1", "x=-1,y=@SUM(A1:A9),z=+cmd|' /C calc'!A0", TrialStatus::ok);
    a.median_us = -2.5;  // a negative number is a number
    a.error = "=HYPERLINK(\"http://evil\",\"click\")";
    store.record_trial(run, a);
    TrialRecord b = trial(1, 0, "-2+3", "x=-1e-3,y=\tTAB,z=\rCR,w=+5", TrialStatus::invalid);
    b.error = "@evil";
    store.record_trial(run, b);
  }
  Store store(path, Store::Mode::read_only);
  const std::string text = trials_csv(store, run);
  const Rows rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 3u);
  const std::vector<std::string>& header = rows[0];
  auto cell = [&](std::size_t row, const std::string& column) {
    const auto it = std::find(header.begin(), header.end(), column);
    EXPECT_NE(it, header.end()) << column;
    return rows[row][static_cast<std::size_t>(it - header.begin())];
  };
  EXPECT_EQ(cell(1, "config_key"), "'=1+1");
  EXPECT_EQ(cell(1, "x"), "-1");
  EXPECT_EQ(cell(1, "y"), "'@SUM(A1:A9)");
  EXPECT_EQ(cell(1, "z"), "'+cmd|' /C calc'!A0");
  EXPECT_EQ(cell(1, "median_us"), "-2.5");
  EXPECT_EQ(cell(1, "error"), "'=HYPERLINK(\"http://evil\",\"click\")");
  EXPECT_EQ(cell(2, "config_key"), "'-2+3");
  EXPECT_EQ(cell(2, "x"), "-1e-3");
  EXPECT_EQ(cell(2, "y"), "'\tTAB");
  EXPECT_EQ(cell(2, "z"), "'\rCR");
  EXPECT_EQ(cell(2, "error"), "'@evil");
  EXPECT_EQ(cell(2, "w"), "'+5") << "OWASP lists '+': only negative numbers pass as numbers";
  // In the file itself no line and no cell begins with a formula character.
  EXPECT_EQ(text.find("\n="), std::string::npos);
  EXPECT_EQ(text.find(",="), std::string::npos);
  EXPECT_EQ(text.find(",@"), std::string::npos);
  EXPECT_EQ(text.find(",+"), std::string::npos);
  EXPECT_EQ(text.find(",-2+3"), std::string::npos);
}
