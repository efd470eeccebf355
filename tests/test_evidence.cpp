// The evidence store and resumable searches, on the CPU: schema, round trips, the evo_log view, refusal
// of locked/corrupt/newer databases without modifying them, and a search killed with SIGKILL and resumed.
#include <cstdlib>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include <sqlite3.h>

#include "evidence/store.h"
#include "runtime/target.h"
#include "families/attention/host/family.h"
#include "search/family_space.h"
#include "search/history.h"
#include "search/strategy.h"
#include "runtime/cuda_driver.h"
#include "tests/test_support.h"

using namespace evotune::evidence;

namespace {

using evotune::testing::file_bytes;

TrialRecord trial(int seq, int generation, const std::string& key, TrialStatus status,
                  std::optional<double> us) {
  TrialRecord t;
  t.seq = seq;
  t.generation = generation;
  t.config_key = key;
  t.config = key;
  t.status = status;
  t.median_us = us;
  if (us) t.samples_us = {*us, *us + 1, *us - 0.5};
  return t;
}

RunInfo run_info() {
  RunInfo i;
  i.family = "attention";
  i.problem = "b=1,hq=8";
  i.problem_json = "{}";
  i.strategy = "evo";
  i.seed = 3;
  i.budget = 10;
  i.device = "test device";
  i.versions = "test";
  return i;
}

// `prefix` goes before the binary (a command such as "nice -n 5").
int run_cli(const std::string& args, const std::string& prefix = "") {
  std::string binary = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "cli" / "evotune";
  int status = std::system((prefix + " " + binary + " " + args + " >/dev/null 2>&1").c_str());
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  // system() runs a shell; a child killed by a signal shows up as the shell's exit code 128 + signal.
  return WEXITSTATUS(status);
}

}  // namespace

// A real version-1 database (an H100 search committed as evidence): read as is, migrated in place when
// opened for writing, with every recorded trial and sample kept.
TEST(Store, MigratesAVersionOneDatabaseWithoutLosingAnything) {
  evotune::testing::TempDir dir;
  auto path = (dir.path() / "v1.db").string();
  std::filesystem::copy_file(evotune::testing::source_dir() / "evidence/results/h100/issue4-search/search_fp16/search.db", path);
  std::vector<TrialRecord> before;
  {
    Store reader(path, Store::Mode::read_only);
    ASSERT_EQ(reader.schema_version(), 1);
    EXPECT_TRUE(reader.baselines(1).empty());
    before = reader.trials(1);
    ASSERT_EQ(before.size(), 300u);
  }
  Store store(path, Store::Mode::read_write);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  std::vector<TrialRecord> after = store.trials(1);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].config_key, before[i].config_key);
    EXPECT_EQ(after[i].median_us, before[i].median_us);
    EXPECT_EQ(after[i].samples_us, before[i].samples_us);
  }
  BaselineRecord b;
  b.name = "cublas_unfused";
  b.median_us = 4000.0;
  b.tflops = 70.0;
  b.detail_json = R"({"check":"pass"})";
  store.record_baseline(1, b);
  auto stored = store.baselines(1);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].name, "cublas_unfused");
  EXPECT_EQ(stored[0].median_us, 4000.0);
  EXPECT_FALSE(stored[0].gbps.has_value());
  EXPECT_EQ(stored[0].detail_json, R"({"check":"pass"})");
  // Schema 3: the rebuilt trials table takes the new status, and the evo_log view is back.
  TrialRecord timed_out = trial(300, 25, "timed_out_key", TrialStatus::compile_timeout, std::nullopt);
  store.record_trial(1, timed_out);
  EXPECT_EQ(store.trials(1).back().status, TrialStatus::compile_timeout);
  EXPECT_FALSE(store.evo_log(1).empty());
}

// A real version-2 database (the issue-5 H100 search and its baselines) migrates to schema 3 in place:
// every trial, sample and baseline kept, the evo_log view unchanged, foreign keys intact.
TEST(Store, MigratesAVersionTwoDatabaseWithoutLosingAnything) {
  evotune::testing::TempDir dir;
  auto path = (dir.path() / "v2.db").string();
  std::filesystem::copy_file(evotune::testing::source_dir() / "evidence/results/h100/issue5-deploy/deploy.db", path);
  std::vector<TrialRecord> before;
  std::vector<BaselineRecord> baselines_before;
  std::vector<EvoLogRow> log_before;
  {
    Store reader(path, Store::Mode::read_only);
    ASSERT_EQ(reader.schema_version(), 2);
    before = reader.trials(1);
    baselines_before = reader.baselines(1);
    log_before = reader.evo_log(std::nullopt);
    ASSERT_EQ(before.size(), 300u);
  }
  Store store(path, Store::Mode::read_write);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  const std::vector<TrialRecord> after = store.trials(1);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].config_key, before[i].config_key);
    EXPECT_EQ(after[i].status, before[i].status);
    EXPECT_EQ(after[i].median_us, before[i].median_us);
    EXPECT_EQ(after[i].samples_us, before[i].samples_us);
    EXPECT_EQ(after[i].created_at, before[i].created_at);
  }
  EXPECT_EQ(store.baselines(1).size(), baselines_before.size());
  const std::vector<EvoLogRow> log_after = store.evo_log(std::nullopt);
  ASSERT_EQ(log_after.size(), log_before.size());
  for (std::size_t i = 0; i < log_after.size(); ++i) EXPECT_EQ(log_after[i].best_so_far_us, log_before[i].best_so_far_us);
  store.record_trial(2, trial(256, 30, "new_key", TrialStatus::compile_timeout, std::nullopt));
  EXPECT_EQ(store.trials(2).back().status, TrialStatus::compile_timeout);
}

// The search's top configs re-timed interleaved (table retimes): the run's winner for export and for
// historical seeds is the config with the lowest median over the rounds, even where another trial measured
// faster during the search.
TEST(Store, TheConfirmedWinnerReplacesTheFastestTrial) {
  evotune::testing::TempDir dir;
  Store store((dir.path() / "r.db").string(), Store::Mode::read_write);
  const std::int64_t run = store.create_run(run_info());
  store.record_trial(run, trial(0, 0, "fast_in_search", TrialStatus::ok, 100.0));
  store.record_trial(run, trial(1, 0, "close_second", TrialStatus::ok, 100.5));
  store.record_trial(run, trial(2, 0, "slow", TrialStatus::ok, 140.0));
  ASSERT_EQ(store.best_of_each_run("attention").at(0).best.config_key, "fast_in_search");
  std::vector<RetimeRecord> rounds;
  for (int r = 0; r < 5; ++r) {
    rounds.push_back({"fast_in_search", r, 101.0 + 0.1 * r});
    rounds.push_back({"close_second", r, 99.5 + 0.1 * r});
  }
  store.record_retimes(run, rounds);
  EXPECT_EQ(store.retimes(run).size(), 10u);
  const auto best = store.best_of_each_run("attention");
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].best.config_key, "close_second");
  EXPECT_EQ(best[0].best.median_us, 100.5) << "the trial as the search recorded it";
  EXPECT_EQ(store.top(run, 1).at(0).config_key, "fast_in_search") << "top lists the search's own measurements";
}

TEST(Store, CreatesTheSchemaInWalModeAndRoundTripsTrials) {
  evotune::testing::TempDir dir;
  auto path = (dir.path() / "e.db").string();
  Store store(path, Store::Mode::read_write);
  std::int64_t run = store.create_run(run_info());  // (the file is created by the first record)
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  store.record_trial(run, trial(0, 0, "a=1", TrialStatus::ok, 10.0));
  store.record_trial(run, trial(1, 0, "a=2", TrialStatus::compile_error, std::nullopt));
  auto trials = store.trials(run);
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].config_key, "a=1");
  EXPECT_EQ(trials[0].samples_us, (std::vector<double>{10.0, 11.0, 9.5}));
  EXPECT_EQ(trials[1].status, TrialStatus::compile_error);
  EXPECT_FALSE(trials[1].median_us.has_value());
  // One config per run, once: a duplicate is refused, nothing half-written.
  EXPECT_THROW(store.record_trial(run, trial(2, 0, "a=1", TrialStatus::ok, 5.0)), StoreError);
  EXPECT_EQ(store.trials(run).size(), 2u);
  EXPECT_THROW(store.record_trial(run, trial(3, 0, "a=3", static_cast<TrialStatus>(99), 5.0)),
               StoreError);  // no status: the table's CHECK refuses it
  auto info = store.run_info(run);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->device, "test device");
  EXPECT_TRUE(std::filesystem::exists(path + "-wal")) << "WAL mode";
}

TEST(Store, EvoLogSummarizesGenerations) {
  evotune::testing::TempDir dir;
  Store store((dir.path() / "e.db").string(), Store::Mode::read_write);
  std::int64_t run = store.create_run(run_info());
  store.record_trial(run, trial(0, 0, "a", TrialStatus::ok, 30.0));
  store.record_trial(run, trial(1, 0, "b", TrialStatus::ok, 10.0));
  store.record_trial(run, trial(2, 0, "c", TrialStatus::ok, 20.0));
  store.record_trial(run, trial(3, 1, "d", TrialStatus::ok, 15.0));
  store.record_trial(run, trial(4, 1, "e", TrialStatus::timeout, std::nullopt));
  store.record_trial(run, trial(5, 2, "f", TrialStatus::crash, std::nullopt));
  auto log = store.evo_log(run);
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].evaluated, 3);
  EXPECT_EQ(log[0].valid, 3);
  EXPECT_EQ(log[0].generation_best_us, 10.0);
  EXPECT_EQ(log[0].generation_median_us, 20.0);
  EXPECT_EQ(log[1].evaluated, 2);
  EXPECT_EQ(log[1].valid, 1);
  EXPECT_EQ(log[1].generation_best_us, 15.0);
  EXPECT_EQ(log[1].best_so_far_us, 10.0);  // the best so far never gets worse
  EXPECT_EQ(log[2].valid, 0);
  EXPECT_FALSE(log[2].generation_best_us.has_value());
  EXPECT_EQ(log[2].best_so_far_us, 10.0);
  auto top = store.top(run, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].config_key, "b");
  EXPECT_EQ(top[1].config_key, "d");
}

TEST(Store, RefusesCorruptNewerForeignAndMissingDatabasesWithoutTouchingThem) {
  evotune::testing::TempDir dir;
  auto garbage = dir.path() / "garbage.db";
  std::ofstream(garbage) << "this is not a database, it is text that is long enough to look like a header.....";
  const std::string before = file_bytes(garbage);
  EXPECT_THROW(Store(garbage.string(), Store::Mode::read_write), StoreError);
  EXPECT_EQ(file_bytes(garbage), before);

  auto newer = dir.path() / "newer.db";
  {
    Store s(newer.string(), Store::Mode::read_write);
  }
  {
    // What a future evotune would leave behind: a higher schema version.
    sqlite3* db = nullptr;
    sqlite3_open(newer.c_str(), &db);
    sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  const std::string newer_bytes = file_bytes(newer);
  try {
    Store s(newer.string(), Store::Mode::read_write);
    FAIL() << "a newer schema must be refused";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("newer evotune"), std::string::npos) << e.what();
  }
  EXPECT_EQ(file_bytes(newer), newer_bytes);

  auto foreign = dir.path() / "foreign.db";
  {
    sqlite3* db = nullptr;
    sqlite3_open(foreign.c_str(), &db);
    sqlite3_exec(db, "CREATE TABLE something (x)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  EXPECT_THROW(Store(foreign.string(), Store::Mode::read_write), StoreError);
  EXPECT_THROW(Store((dir.path() / "missing.db").string(), Store::Mode::read_only), StoreError);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "missing.db"));
}

TEST(Store, ALockedDatabaseIsAClearErrorAndLosesNothing) {
  evotune::testing::TempDir dir;
  auto path = (dir.path() / "e.db").string();
  Store store(path, Store::Mode::read_write);
  std::int64_t run = store.create_run(run_info());
  store.record_trial(run, trial(0, 0, "a", TrialStatus::ok, 1.0));
  sqlite3* other = nullptr;
  sqlite3_open(path.c_str(), &other);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  try {
    store.record_trial(run, trial(1, 0, "b", TrialStatus::ok, 2.0));
    FAIL() << "writing to a locked database must fail";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
  }
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  store.record_trial(run, trial(1, 0, "b", TrialStatus::ok, 2.0));  // works again once the lock is gone
  EXPECT_EQ(store.trials(run).size(), 2u);
}

// A search killed with SIGKILL mid-run and resumed loses no finished trial, repeats none, keeps the
// budget, and ends with exactly the trials an uninterrupted run records.
TEST(Resume, SearchKilledMidRunResumesExactly) {
  const std::string t4 = (evotune::testing::t4_dir() / "convolution_milo_A4000_T4.json.gz").string();
  ASSERT_TRUE(std::filesystem::exists(t4)) << "test fixture missing: " << t4;
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "e.db").string();
  // --history 0: the second, uninterrupted run must not start from the first run's best.
  const std::string common = "search --replay " + t4 + " --strategy evo --budget 80 --seed 5 --history 0 --db " + db;
  EXPECT_EQ(run_cli(common + " --test-kill-after 29"), 128 + SIGKILL);
  {
    Store store(db, Store::Mode::read_only);
    EXPECT_EQ(store.trials(1).size(), 29u) << "every trial finished before the kill is in the database";
  }
  EXPECT_EQ(run_cli("search --resume 1 --db " + db), 0);
  EXPECT_EQ(run_cli(common), 0);  // run 2: the same search, uninterrupted
  Store store(db, Store::Mode::read_only);
  auto resumed = store.trials(1), straight = store.trials(2);
  ASSERT_EQ(resumed.size(), 80u);
  ASSERT_EQ(straight.size(), 80u);
  for (std::size_t i = 0; i < resumed.size(); ++i) {
    EXPECT_EQ(resumed[i].seq, static_cast<int>(i));
    EXPECT_EQ(resumed[i].config_key, straight[i].config_key) << "trial " << i;
    EXPECT_EQ(resumed[i].median_us, straight[i].median_us);
  }
  EXPECT_EQ(store.runs()[0].status, "finished");
}

// The new scheduling: batches proposed ahead of their results (lookahead 3) and evaluated in worker
// processes as they become ready, killed with SIGKILL mid-run and resumed, records exactly the trials of
// the same search run straight through; and a run recorded before lookahead existed (no "lookahead" in its
// options) resumes as it was recorded, one batch at a time.
TEST(Resume, LookaheadAndWorkersResumeExactly) {
  const std::string t4 = (evotune::testing::t4_dir() / "convolution_milo_A100_T4.json.gz").string();
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "l.db").string();
  const std::string ahead =
      "search --replay " + t4 + " --strategy evo --budget 90 --seed 8 --history 0 --lookahead 3 --devices 0,1 --db " + db;
  EXPECT_EQ(run_cli(ahead + " --test-kill-after 37"), 128 + SIGKILL);  // run 1
  EXPECT_EQ(run_cli("search --resume 1 --devices 0 --db " + db), 0);
  EXPECT_EQ(run_cli(ahead), 0);                                         // run 2, straight through
  const std::string one = "search --replay " + t4 + " --strategy evo --budget 90 --seed 8 --history 0 --db " + db;
  EXPECT_EQ(run_cli(one + " --lookahead 1 --test-kill-after 23"), 128 + SIGKILL);  // run 3
  {
    // As a run from before lookahead existed would have recorded it.
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, "update runs set options = json_remove(options, '$.lookahead') where id = 3", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  EXPECT_EQ(run_cli("search --resume 3 --db " + db), 0);
  EXPECT_EQ(run_cli(one + " --lookahead 1"), 0);  // run 4
  EXPECT_EQ(run_cli(one), 0);                     // run 5: today's default, lookahead 2
  Store store(db, Store::Mode::read_only);
  auto resumed = store.trials(1), straight = store.trials(2), old = store.trials(3), old_straight = store.trials(4),
       two = store.trials(5);
  ASSERT_EQ(resumed.size(), 90u);
  ASSERT_EQ(straight.size(), 90u);
  for (std::size_t i = 0; i < resumed.size(); ++i) {
    EXPECT_EQ(resumed[i].seq, static_cast<int>(i));
    EXPECT_EQ(resumed[i].config_key, straight[i].config_key) << "trial " << i;
    EXPECT_EQ(resumed[i].generation, straight[i].generation) << "trial " << i;
    EXPECT_EQ(resumed[i].median_us, straight[i].median_us);
  }
  ASSERT_EQ(old.size(), 90u);
  bool differs_from_lookahead_2 = false;
  for (std::size_t i = 0; i < old.size(); ++i) {
    EXPECT_EQ(old[i].config_key, old_straight[i].config_key) << "trial " << i;
    differs_from_lookahead_2 = differs_from_lookahead_2 || old[i].config_key != two[i].config_key;
  }
  EXPECT_TRUE(differs_from_lookahead_2) << "lookahead must change what a search proposes, or this test proves nothing";
  for (const auto& r : store.runs()) EXPECT_EQ(r.status, "finished");
}

// Early stops: --stop-after-stagnant ends a run after N batches without a new best (and a run killed and
// resumed stops at exactly the same trial); --max-minutes leaves it `interrupted` and resumable.
TEST(Resume, StagnationAndWallTimeStopsAreExactAndResumable) {
  const std::string t4 = (evotune::testing::t4_dir() / "dedispersion_milo_A100_T4.json.gz").string();
  ASSERT_TRUE(std::filesystem::exists(t4)) << "test fixture missing: " << t4;
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "s.db").string();
  const std::string common =
      "search --replay " + t4 + " --strategy evo --budget 2000 --seed 4 --history 0 --stop-after-stagnant 3 --db " + db;
  ASSERT_EQ(run_cli(common), 0);  // run 1, uninterrupted
  std::size_t stopped_at = 0;
  {
    Store store(db, Store::Mode::read_only);
    stopped_at = store.trials(1).size();
    EXPECT_LT(stopped_at, 2000u) << "stagnation must stop the run before its budget";
    EXPECT_GT(stopped_at, 14u);
    EXPECT_EQ(store.runs()[0].status, "finished");
  }
  EXPECT_EQ(run_cli(common + " --test-kill-after 15"), 128 + SIGKILL);  // run 2
  EXPECT_EQ(run_cli("search --resume 2 --db " + db), 0);  // the stagnation setting comes from the run
  {
    Store store(db, Store::Mode::read_only);
    auto straight = store.trials(1), resumed = store.trials(2);
    ASSERT_EQ(resumed.size(), stopped_at);
    for (std::size_t i = 0; i < resumed.size(); ++i) EXPECT_EQ(resumed[i].config_key, straight[i].config_key);
  }
  // A wall-time limit too small for more than one batch: interrupted, then resumed to the full budget.
  const std::string timed = "search --replay " + t4 + " --strategy evo --budget 60 --seed 4 --history 0 --db " + db;
  ASSERT_EQ(run_cli(timed + " --max-minutes 0.000001"), 0);  // run 3
  {
    Store store(db, Store::Mode::read_only);
    EXPECT_EQ(store.runs()[2].status, "interrupted");
    EXPECT_LT(store.trials(3).size(), 60u);
  }
  ASSERT_EQ(run_cli("search --resume 3 --db " + db), 0);
  Store store(db, Store::Mode::read_only);
  EXPECT_EQ(store.trials(3).size(), 60u);
  EXPECT_EQ(store.runs()[2].status, "finished");
}

// Workers: evaluations in `evotune worker` child processes. A worker that aborts is recorded as a crash
// and one that hangs as a timeout; each is restarted and the run finishes with its whole budget.
// Parallel workers give the same run as in-process evaluation.
TEST(Workers, CrashesAndHangsAreRecordedAndTheRunFinishes) {
  const std::string t4 = (evotune::testing::t4_dir() / "convolution_milo_A4000_T4.json.gz").string();
  ASSERT_TRUE(std::filesystem::exists(t4)) << "test fixture missing: " << t4;
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "w.db").string();
  const std::string base = "search --replay " + t4 + " --strategy evo --budget 30 --seed 2 --history 0 --db " + db;
  ASSERT_EQ(run_cli(base), 0);                                                     // run 1: in process
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(run_cli(base + " --devices 0,1"), 0);                                  // run 2: two workers
  const double two_workers = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(run_cli(base + " --devices 0 --test-worker-abort-at 4"), 0);           // run 3: aborts
  // The trial timeout must be reached by the hung requests only, never by a fresh worker's start and
  // first trial however slow the machine is: a run of all the trials (run 2, two workers started) is
  // timed above, and the limit is as long as that whole run, in whole seconds, 1 s at least. (Each hang
  // costs the whole limit, three of them here.)
  const double trial_timeout = std::max(1.0, std::ceil(two_workers));
  std::printf("run 2 took %.2f s: trial timeout %g s\n", two_workers, trial_timeout);
  ASSERT_EQ(run_cli(base + " --devices 0 --test-worker-hang-at 9 --trial-timeout " + fmt::format("{:g}", trial_timeout)),
            0);                                                                    // run 4: hangs
  Store store(db, Store::Mode::read_only);
  auto serial = store.trials(1), parallel = store.trials(2), aborting = store.trials(3), hanging = store.trials(4);
  ASSERT_EQ(parallel.size(), 30u);
  for (std::size_t i = 0; i < serial.size(); ++i) EXPECT_EQ(serial[i].config_key, parallel[i].config_key) << i;
  ASSERT_EQ(aborting.size(), 30u);
  int crashes = 0;
  for (const auto& t : aborting) {
    if (t.status == TrialStatus::crash) {
      ++crashes;
      EXPECT_NE(t.error.find("signal 6"), std::string::npos) << t.error;
    }
  }
  EXPECT_GE(crashes, 5);  // every 4th request of each (re)started worker
  ASSERT_EQ(hanging.size(), 30u);
  // The worker hangs on the 9th request of each (re)start: the 9th, 18th and 27th trials, and no other
  // trial reaches the limit.
  int timeouts = 0;
  for (const auto& t : hanging) {
    if (t.status != TrialStatus::timeout) continue;
    ++timeouts;
    EXPECT_NE(t.error.find(fmt::format("no result within {} ms", std::lround(trial_timeout * 1000))), std::string::npos)
        << t.error;
  }
  EXPECT_EQ(timeouts, 3);
  for (const auto& r : store.runs()) EXPECT_EQ(r.status, "finished");
}

// Compile-only sweep (no GPU): configs compiled and recorded with their resources.
TEST(CompileOnly, RecordsEveryConfigWithItsResources) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "c.db").string();
  // No compile time limit (the default 30 s could be reached on a slow enough machine, and a timeout is
  // not what this test is about; CrashingAndHangingCompileProcessesAreRecordedAndReplaced tests it).
  ASSERT_EQ(run_cli("--cache-dir " + (dir.path() / "cache").string() +
                    " search --problem b=1,hq=8,sq=512,d=64,causal=1 --compile-only --target sm_80 --budget 4 "
                    "--compile-timeout 0 --db " + db),
            0);
  Store store(db, Store::Mode::read_only);
  auto trials = store.trials(1);
  ASSERT_EQ(trials.size(), 4u);
  for (const auto& t : trials) {
    EXPECT_TRUE(t.status == TrialStatus::compiled || t.status == TrialStatus::invalid ||
                t.status == TrialStatus::compile_error)
        << t.status;
    if (t.status != TrialStatus::compile_error) {
      EXPECT_NE(t.resources_json.find("\"registers\""), std::string::npos);
    }
  }
  EXPECT_EQ(store.runs()[0].strategy, "compile-only");
  // Without --compile-only the search needs a GPU: on a machine without one, exit 3 and no database.
  if (!evotune::runtime::driver_available()) {
    const std::string none = (dir.path() / "none.db").string();
    EXPECT_EQ(run_cli("search --problem b=1,hq=8,sq=512,d=64 --db " + none), 3);
    EXPECT_FALSE(std::filesystem::exists(none));
  }
}

// Compile processes that crash or hang in a sweep: each such config is recorded (compile_error with how the
// process died, compile_timeout), its process replaced, and the sweep records its whole budget. A second
// sweep over the same cache finds every verdict there (timeouts under the same limit too) and compiles
// nothing again.
TEST(CompileOnly, CrashingAndHangingCompileProcessesAreRecordedAndReplaced) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "p.db").string();
  const std::string problem = "b=1,hq=8,sq=256,d=64,causal=1";
  // The limit must be far above every real compile of the sweep, so that only the planted hang reaches
  // it; a fixed 10 s was reached by three real compiles in a sanitizer build beside a second build on 2
  // cores (issue 48). So one compile of the same kind is timed first (a fresh process, nothing cached,
  // at the compile processes' niceness; the sweep's compiles take 0.5-1.4 times as long), and the limit
  // is ten times that, 10 s at least.
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(run_cli("--no-cache compile --problem " + problem + " --config default --target sm_80", "nice -n 5"), 0);
  const double one_compile = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double limit = std::max(10.0, std::ceil(10 * one_compile));
  std::printf("one compile took %.2f s: compile timeout %g s\n", one_compile, limit);
  const std::string sweep = "--cache-dir " + (dir.path() / "cache").string() + " search --problem " + problem +
                            " --compile-only --target sm_80 --budget 10 --seed 3 --compile-processes 2 "
                            "--compile-timeout " + fmt::format("{:g}", limit) + " --db " + db;
  // The seed samples three configs with block_n=16 and one with kv_warps=2,splits=3 (none with both); one
  // hang, as each costs the whole limit.
  const std::string hang_on = "kv_warps=2,splits=3";
  ASSERT_EQ(run_cli(sweep + " --test-compile-crash-on block_n=16 --test-compile-hang-on " + hang_on), 0);
  ASSERT_EQ(run_cli(sweep), 0);  // run 2: no misbehaviour asked for, everything from the cache
  Store store(db, Store::Mode::read_only);
  const auto first = store.trials(1), second = store.trials(2);
  ASSERT_EQ(first.size(), 10u);
  int crashed = 0, hung = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const auto& t = first[i];
    if (t.config.find("block_n=16") != std::string::npos) {
      ++crashed;
      EXPECT_EQ(t.status, TrialStatus::compile_error) << t.config;
      EXPECT_NE(t.error.find("signal 6"), std::string::npos) << t.error;
    } else if (t.config.find(hang_on) != std::string::npos) {
      ++hung;
      EXPECT_EQ(t.status, TrialStatus::compile_timeout) << t.config;
      EXPECT_NE(t.error.find(fmt::format("longer than {:g} s", limit)), std::string::npos) << t.error;
    } else {
      EXPECT_TRUE(t.status == TrialStatus::compiled || t.status == TrialStatus::invalid)
          << t.status << ": " << t.error;
      EXPECT_GT(t.compile_seconds, 0.0);
    }
    // The same verdicts again; a crash is not a verdict on the config (not cached), so it compiles now.
    EXPECT_EQ(second[i].config_key, t.config_key);
    if (t.status != TrialStatus::compile_error) {
      EXPECT_EQ(second[i].status, t.status) << t.config;
    }
  }
  EXPECT_GE(crashed, 1) << "the seed must sample a config of each kind, or this test proves nothing";
  EXPECT_GE(hung, 1);
}

// Historical solutions: a new evo search on a problem already searched starts from the earlier best.
TEST(History, EvoStartsFromTheBestOfEarlierRuns) {
  const std::string t4 = (evotune::testing::t4_dir() / "convolution_milo_A100_T4.json.gz").string();
  ASSERT_TRUE(std::filesystem::exists(t4)) << "test fixture missing: " << t4;
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "h.db").string();
  ASSERT_EQ(run_cli("search --replay " + t4 + " --strategy random --budget 40 --seed 9 --db " + db), 0);
  ASSERT_EQ(run_cli("search --replay " + t4 + " --strategy evo --budget 20 --seed 1 --db " + db), 0);
  ASSERT_EQ(run_cli("search --replay " + t4 + " --strategy evo --budget 20 --seed 1 --history 0 --db " + db), 0);
  Store store(db, Store::Mode::read_only);
  auto best_of_first = store.top(1, 1).at(0);
  EXPECT_EQ(store.trials(2).at(0).config_key, best_of_first.config_key);
  EXPECT_NE(store.trials(3).at(0).config_key, best_of_first.config_key);  // --history 0: no seeds
  // A resumed run keeps its original seeds even though the database now holds better runs.
  auto info = store.run_info(2);
  ASSERT_TRUE(info);
  EXPECT_NE(info->options_json.find(best_of_first.config_key), std::string::npos);
}

// GPU: a small search of attention configs in a worker process records real, checked, timed trials.
TEST(GpuSearch, SmallAttentionSearchRecordsCheckedTimedTrials) {
  EVOTUNE_REQUIRE_GPU();
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "g.db").string();
  ASSERT_EQ(run_cli("--cache-dir " + (dir.path() / "cache").string() +
                    " search --problem b=1,hq=4,sq=256,d=64,causal=1 --budget 8 --seed 3 --db " + db),
            0);
  Store store(db, Store::Mode::read_only);
  auto trials = store.trials(1);
  ASSERT_EQ(trials.size(), 8u);
  int ok = 0;
  for (const auto& t : trials) {
    if (t.status != TrialStatus::ok) continue;
    ++ok;
    EXPECT_GT(*t.median_us, 0.0);
    EXPECT_GT(*t.tflops, 0.0);
    EXPECT_FALSE(t.samples_us.empty());
    EXPECT_TRUE(t.max_abs_error.has_value());
  }
  EXPECT_GT(ok, 0) << "at least one sampled config should run";
  EXPECT_EQ(store.runs()[0].family, "attention");
  // The run's reference points, measured by the worker after the search.
  // Then PyTorch SDPA's flash and cuDNN backends, where python3 has torch (the H100 machine does; a GPU
  // machine without it records none and says why on stderr).
  auto baselines = store.baselines(1);
  const bool torch = std::system("python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' "
                                 ">/dev/null 2>&1") == 0;
  ASSERT_EQ(baselines.size(), torch ? 5u : 3u);
  if (torch) {
    EXPECT_EQ(baselines[3].name, "sdpa_flash");
    EXPECT_EQ(baselines[4].name, "sdpa_cudnn");
    for (int i : {3, 4}) {
      EXPECT_GT(baselines[i].median_us.value_or(0), 0.0) << baselines[i].detail_json;
      EXPECT_NE(baselines[i].detail_json.find(R"("check":"pass")"), std::string::npos) << baselines[i].detail_json;
    }
  }
  EXPECT_EQ(baselines[0].name, "cublas_unfused");
  EXPECT_GT(baselines[0].median_us.value_or(0), 0.0);
  EXPECT_NE(baselines[0].detail_json.find(R"("check":"pass")"), std::string::npos) << baselines[0].detail_json;
  EXPECT_EQ(baselines[1].name, "peak_gemm");
  EXPECT_GT(baselines[1].tflops.value_or(0), 10.0);
  EXPECT_EQ(baselines[2].name, "peak_copy");
  EXPECT_GT(baselines[2].gbps.value_or(0), 100.0);
  // The winner confirmed: the top configs (up to 5) re-timed interleaved, 5 rounds each.
  const auto retimes = store.retimes(1);
  if (ok >= 2) {
    std::map<std::string, int> rounds;
    for (const auto& r : retimes) {
      ++rounds[r.config_key];
      EXPECT_GT(r.median_us, 0.0);
    }
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(std::min(ok, 5)));
    for (const auto& [key, n] : rounds) EXPECT_EQ(n, 5) << key;
  }
}

// Historical seeds for an attention search come from every earlier attention run, nearest problem first
// (same problem and device: distance 0; another size: log2 ratios; another device, head dim, ...:
// penalties), and only configs valid in the new space.
TEST(History, AttentionSeedsComeFromTheNearestProblemsFirst) {
  using evotune::Config;
  namespace attention = evotune::attention;
  evotune::testing::TempDir dir;
  const auto family = evotune::families::make_attention_family();
  const auto target = family->parse_problem("b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16");
  const auto space = evotune::search::family_search_space(
      *family, target, evotune::DeviceLimits::for_target(evotune::runtime::Target::parse("sm_90a")));
  std::vector<Config> configs = evotune::search::make_random(space, 11)->propose(5);
  ASSERT_EQ(configs.size(), 5u);
  Store store((dir.path() / "h.db").string(), Store::Mode::read_write);
  auto add_run = [&](const std::string& problem, const std::string& device, const Config& best, double us) {
    RunInfo info = run_info();
    info.problem = attention::Problem::parse(problem).to_string();
    info.device = device;
    const std::int64_t id = store.create_run(info);
    store.record_trial(id, trial(0, 0, best.key(), TrialStatus::ok, us));
    store.record_trial(
        id, trial(1, 0, configs[4].key(), TrialStatus::ok, us * 3));  // slower: never the run's best
    return id;
  };
  const std::int64_t far = add_run("b=4,hq=16,sq=4096,d=64,causal=1,dtype=fp16", "H100", configs[2], 50);
  const std::int64_t other_device = add_run("b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16", "A100", configs[1], 60);
  const std::int64_t shorter = add_run("b=4,hq=16,sq=2048,d=128,causal=1,dtype=fp16", "H100", configs[0], 70);
  const std::int64_t exact = add_run("b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16", "H100", configs[3], 80);
  // A run whose best is not a config of this family's space is skipped.
  add_run("b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16", "H100", Config({{"not_a_tunable", 1}}), 1);

  auto seeds = evotune::search::historical_seeds(store, *family, target, "H100", space, 10);
  ASSERT_EQ(seeds.size(), 4u);
  EXPECT_EQ(seeds[0].run_id, exact);
  EXPECT_EQ(seeds[0].distance, 0.0);
  EXPECT_EQ(seeds[1].run_id, shorter);
  EXPECT_DOUBLE_EQ(seeds[1].distance, 2.0);  // sq and skv each half
  EXPECT_EQ(seeds[2].run_id, other_device);
  EXPECT_EQ(seeds[3].run_id, far);
  EXPECT_EQ(seeds[0].config, configs[3]);
  // Distinct configs only, and never more than asked for.
  EXPECT_EQ(evotune::search::historical_seeds(store, *family, target, "H100", space, 2).size(), 2u);
}
