// Interrupting a search (issue 48), on the CPU: SIGINT (Ctrl-C) or SIGTERM records every trial that finished,
// marks the run `interrupted`, says on one line how to resume, exits 130 / 143 and leaves no child process
// and no temporary file behind; the resumed run ends exactly as an uninterrupted one. Trials are recorded
// as they finish, not a batch at a time.
//
// The searches here are slowed down (--test-replay-delay-ms, a compile that never ends) so that they are
// still running when the signal comes, however loaded the machine: nothing waits for a time to pass.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/prctl.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include "evidence/store.h"
#include "search/coordinator.h"
#include "search/strategy.h"
#include "tests/subprocess.h"
#include "tests/test_support.h"

namespace {

using namespace evotune;
namespace fs = std::filesystem;

// One number from the database, read as another process would while the search writes it; 0 while the
// database or its tables are not there yet.
int count_in(const std::string& db, const std::string& sql, int run_id) {
  sqlite3* raw = nullptr;
  int n = 0;
  if (sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(raw, 2000);
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(raw, sql.c_str(), -1, &s, nullptr) == SQLITE_OK) {
      sqlite3_bind_int(s, 1, run_id);
      if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int(s, 0);
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(raw);
  return n;
}
int recorded_trials(const std::string& db, int run_id) {
  return count_in(db, "SELECT count(*) FROM trials WHERE run_id = ?", run_id);
}

// Polls until `ready` holds or the process ended; generous: only a hung search reaches the limit.
bool wait_until(const evotune::testing::BackgroundProcess& p, const std::function<bool()>& ready, double seconds = 180) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(p.pid()), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
      return ready();  // it ended on its own (left to wait() to reap)
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) out.push_back(line);
  }
  return out;
}

// While it lives, this process adopts the descendants a search leaves behind (PR_SET_CHILD_SUBREAPER): a
// compile process or worker the search did not stop and reap becomes our child, alive or as a zombie.
class OrphanCatcher {
 public:
  OrphanCatcher() { prctl(PR_SET_CHILD_SUBREAPER, 1); }
  ~OrphanCatcher() { prctl(PR_SET_CHILD_SUBREAPER, 0); }
  // Our children now (after the search itself was reaped: only what it left behind), with their state
  // letter (Z: a zombie).
  static std::vector<std::pair<pid_t, char>> children() {
    std::vector<std::pair<pid_t, char>> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const std::size_t close = stat.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream rest(stat.substr(close + 2));
      char state = 0;
      long ppid = 0;
      rest >> state >> ppid;
      if (ppid == getpid()) out.emplace_back(static_cast<pid_t>(std::stol(name)), state);
    }
    return out;
  }
  // Kills and reaps whatever was left behind; returns how many there were.
  static int reap_left_behind() {
    int n = 0;
    for (const auto& [pid, state] : children()) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      ++n;
    }
    return n;
  }
};

struct Interruption {
  int exit_code = -1;
  int trials_said = -1;  // "has N of M trials recorded" on the line
  std::string line;      // the one line that says the run was interrupted
  std::string resume;    // the command on it, after "continue it with: "
  std::string stderr_text;
};

Interruption read_interruption(const evotune::testing::ProcessResult& r, const fs::path& stderr_path) {
  Interruption out;
  out.exit_code = r.exit_code;
  out.stderr_text = evotune::testing::file_bytes(stderr_path);
  const std::vector<std::string> lines = lines_with(out.stderr_text, "interrupted by");
  EXPECT_EQ(lines.size(), 1u) << out.stderr_text;
  if (lines.empty()) return out;
  out.line = lines[0];
  std::smatch m;
  if (std::regex_search(out.line, m, std::regex(R"(has (\d+) of \d+ (trials|configs) recorded)"))) {
    out.trials_said = std::stoi(m[1]);
  }
  const std::string marker = "continue it with: ";
  if (const std::size_t at = out.line.find(marker); at != std::string::npos) out.resume = out.line.substr(at + marker.size());
  return out;
}

std::vector<evidence::TrialRecord> trials_of(const std::string& db, std::int64_t run) {
  evidence::Store store(db, evidence::Store::Mode::read_only);
  return store.trials(run);
}
std::string status_of(const std::string& db, std::int64_t run) {
  evidence::Store store(db, evidence::Store::Mode::read_only);
  return store.run_info(run)->status;
}

// The whole interrupted-and-resumed replay search: started in the background with `extra` options and
// slowed down, interrupted with `sig` once a trial is recorded, resumed with the command the line names
// (through a shell, as a user pastes it), and compared with the same search run straight through.
void interrupt_and_resume(int sig, bool to_group, const std::string& extra, int expected_exit) {
  const std::string t4 = (evotune::testing::t4_dir() / "convolution_milo_A4000_T4.json.gz").string();
  ASSERT_TRUE(fs::exists(t4)) << "test fixture missing: " << t4;
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "i.db").string();
  const std::vector<std::string> search = {evotune::testing::evotune_binary(), "search", "--replay", t4, "--strategy", "evo",
                                           "--budget", "60", "--seed", "5", "--history", "0", "--db", db};
  std::vector<std::string> slow = search;
  std::istringstream words(extra);
  for (std::string w; words >> w;) slow.push_back(w);
  OrphanCatcher catcher;
  evotune::testing::BackgroundProcess p(slow, (dir.path() / "out").string(), (dir.path() / "err").string(), to_group);
  ASSERT_TRUE(wait_until(p, [&] { return recorded_trials(db, 1) >= 1; }))
      << "no trial recorded: " << evotune::testing::file_bytes(dir.path() / "err");
  p.signal(sig, to_group);
  const evotune::testing::ProcessResult r = p.wait(180);
  ASSERT_FALSE(r.timed_out);
  const Interruption i = read_interruption(r, dir.path() / "err");
  EXPECT_EQ(r.exit_code, expected_exit) << i.stderr_text;
  EXPECT_EQ(OrphanCatcher::reap_left_behind(), 0) << "child processes left behind";
  EXPECT_EQ(status_of(db, 1), "interrupted");
  const int recorded = recorded_trials(db, 1);
  EXPECT_GE(recorded, 1);
  EXPECT_LT(recorded, 60) << "the search finished before the signal; the test proves nothing";
  EXPECT_EQ(i.trials_said, recorded) << i.line;
  EXPECT_NE(i.line.find("run 1"), std::string::npos) << i.line;
  // Copied from the line into a shell, the resume command finishes the run.
  ASSERT_FALSE(i.resume.empty()) << i.line;
  evotune::testing::ProcessResult resumed = evotune::testing::run_process({"/bin/sh", "-c", i.resume}, 180);
  ASSERT_EQ(resumed.exit_code, 0) << i.resume << "\n" << resumed.output;
  EXPECT_EQ(status_of(db, 1), "finished");
  evotune::testing::ProcessResult straight = evotune::testing::run_process(search, 180);  // run 2, never interrupted
  ASSERT_EQ(straight.exit_code, 0) << straight.output;
  const auto a = trials_of(db, 1), b = trials_of(db, 2);
  ASSERT_EQ(a.size(), 60u);
  ASSERT_EQ(b.size(), 60u);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].seq, static_cast<int>(k));
    EXPECT_EQ(a[k].config_key, b[k].config_key) << "trial " << k;
    EXPECT_EQ(a[k].generation, b[k].generation) << "trial " << k;
    EXPECT_EQ(a[k].median_us, b[k].median_us) << "trial " << k;
  }
}

// A toy space and an evaluator that looks at the database whenever it is asked for a trial.
search::SearchSpace toy_space() {
  std::vector<Parameter> params = {{"x", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {}, ""},
                                           {"y", {1, 2, 4, 8}, {}, ""}};
  return search::SearchSpace(params, [](const Config&) { return true; });
}

class WatchingEvaluator : public search::Evaluator {
 public:
  WatchingEvaluator(evidence::Store& store, std::int64_t run) : store_(store), run_(run) {}
  evidence::TrialRecord evaluate(const Config& config) override {
    recorded_before.push_back(static_cast<int>(store_.trials(run_).size()));
    evidence::TrialRecord t;
    t.status = evotune::core::TrialStatus::ok;
    t.median_us = 1.0 + config.at("x") + config.at("y");
    return t;
  }
  std::vector<int> recorded_before;  // trials in the database when each evaluation began

 private:
  evidence::Store& store_;
  std::int64_t run_;
};

evidence::RunInfo toy_run() {
  evidence::RunInfo i;
  i.family = "replay";
  i.problem = "toy";
  i.problem_json = "{}";
  i.strategy = "random";
  i.seed = 1;
  i.budget = 12;
  i.device = "replay";
  i.versions = "test";
  return i;
}

}  // namespace

// Each trial is in the database before the next one of the same batch starts: a batch cut short keeps
// what finished, and the first trial of a long first batch is recorded at once.
TEST(Interrupt, TrialsAreRecordedAsTheyFinishNotPerBatch) {
  evotune::testing::TempDir dir;
  evidence::Store store((dir.path() / "t.db").string(), evidence::Store::Mode::read_write);
  const std::int64_t run = store.create_run(toy_run());
  const search::SearchSpace space = toy_space();
  auto strategy = search::make_strategy("random", space, 3, {}, {});
  WatchingEvaluator evaluator(store, run);
  search::SearchOptions options;
  options.budget = 12;  // one batch: the strategy proposes up to 64 at once
  const search::SearchSummary s = search::run_search(store, run, space, *strategy, evaluator, options);
  EXPECT_EQ(s.evaluated, 12);
  ASSERT_EQ(evaluator.recorded_before.size(), 12u);
  for (int k = 0; k < 12; ++k) EXPECT_EQ(evaluator.recorded_before[k], k) << "evaluation " << k;
}

// Ctrl-C on a terminal: SIGINT to the search's whole process group.
TEST(Interrupt, SigintRecordsWhatFinishedAndTheRunResumesExactly) {
  interrupt_and_resume(SIGINT, /*to_group=*/true, "--test-replay-delay-ms 250", 130);
}

// `kill PID`: SIGTERM to the search alone, which evaluates in two worker processes; they are stopped too.
TEST(Interrupt, SigtermStopsTheWorkersAndTheRunResumesExactly) {
  interrupt_and_resume(SIGTERM, /*to_group=*/false, "--devices 0,1 --test-replay-delay-ms 300", 143);
}

// A compile-only sweep whose first config never finishes compiling: the others are recorded as they
// finish, and Ctrl-C ends the sweep with the run `interrupted`, the hung compile process killed and
// reaped, and the sweep's private cubin cache (--no-cache) removed.
TEST(Interrupt, CompileOnlySweepIsMarkedInterruptedAndLeavesNothingBehind) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "c.db").string();
  const fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  const std::vector<std::string> sweep = {evotune::testing::evotune_binary(), "--no-cache", "search", "--problem",
                                          "b=1,hq=8,sq=256,d=64,causal=1", "--compile-only", "--target", "sm_80",
                                          "--seed", "3", "--compile-processes", "2", "--compile-timeout", "0"};
  // The sweep's first config, as a one-config sweep records it: the marker that makes its compile hang.
  std::vector<std::string> first = sweep;
  first.insert(first.end(), {"--budget", "1", "--db", (dir.path() / "first.db").string()});
  ASSERT_EQ(evotune::testing::run_process(first, 180).exit_code, 0);
  const std::string hang_on = trials_of((dir.path() / "first.db").string(), 1).at(0).config;
  std::vector<std::string> args = sweep;
  args.insert(args.end(), {"--budget", "40", "--db", db, "--test-compile-hang-on", hang_on});
  OrphanCatcher catcher;
  evotune::testing::BackgroundProcess p(args, (dir.path() / "out").string(), (dir.path() / "err").string(), true,
                               {"TMPDIR=" + tmp.string()});
  ASSERT_TRUE(wait_until(p, [&] { return recorded_trials(db, 1) >= 1; }))
      << "no config recorded while the first one hangs: " << evotune::testing::file_bytes(dir.path() / "err");
  p.signal(SIGINT, /*group=*/true);
  const evotune::testing::ProcessResult r = p.wait(180);
  ASSERT_FALSE(r.timed_out) << "a hung compile must not keep the sweep from ending";
  const Interruption i = read_interruption(r, dir.path() / "err");
  EXPECT_EQ(r.exit_code, 130) << i.stderr_text;
  EXPECT_EQ(OrphanCatcher::reap_left_behind(), 0) << "compile processes left behind";
  EXPECT_EQ(status_of(db, 1), "interrupted");
  const auto trials = trials_of(db, 1);
  EXPECT_EQ(i.trials_said, static_cast<int>(trials.size())) << i.line;
  for (const auto& t : trials) EXPECT_NE(t.config, hang_on) << "the hung compile has no trial";
  EXPECT_TRUE(fs::is_empty(tmp)) << "temporary files left in " << tmp;
}

// A second signal while the search shuts down ends it at once (still 128 + signal): its children are
// killed, and the database stays whole: the run resumes to the same trials as an uninterrupted one.
TEST(Interrupt, ASecondSignalExitsAtOnceAndTheDatabaseStaysWhole) {
  const std::string t4 = (evotune::testing::t4_dir() / "convolution_milo_A4000_T4.json.gz").string();
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "d.db").string();
  const std::vector<std::string> search = {evotune::testing::evotune_binary(), "search", "--replay", t4, "--budget", "40",
                                           "--seed", "7", "--history", "0", "--db", db};
  std::vector<std::string> slow = search;
  slow.insert(slow.end(), {"--devices", "0,1", "--test-replay-delay-ms", "300"});
  OrphanCatcher catcher;
  evotune::testing::BackgroundProcess p(slow, (dir.path() / "out").string(), (dir.path() / "err").string(), false);
  ASSERT_TRUE(wait_until(p, [&] { return recorded_trials(db, 1) >= 1; })) << evotune::testing::file_bytes(dir.path() / "err");
  // Two of the same signal sent at once may arrive as one; SIGTERM right after SIGINT is a second signal (the
  // exit code is still SIGINT's).
  p.signal(SIGINT);
  p.signal(SIGTERM);
  const evotune::testing::ProcessResult r = p.wait(180);
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << evotune::testing::file_bytes(dir.path() / "err");
  // Whatever the second signal cut short, no child lives on: each was stopped or killed (a killed one may
  // be reaped by us, its adopter, rather than by the search).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    bool alive = false;
    for (const auto& [pid, state] : OrphanCatcher::children()) alive = alive || state != 'Z';
    if (!alive || std::chrono::steady_clock::now() > deadline) {
      EXPECT_FALSE(alive) << "a worker outlived the search";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  OrphanCatcher::reap_left_behind();
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA integrity_check", -1, &s, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "ok");
    sqlite3_finalize(s);
    sqlite3_close(raw);
  }
  EXPECT_NE(status_of(db, 1), "finished");
  ASSERT_EQ(evotune::testing::run_process({evotune::testing::evotune_binary(), "search", "--resume", "1", "--db", db}, 180).exit_code, 0);
  ASSERT_EQ(evotune::testing::run_process(search, 180).exit_code, 0);  // run 2, straight through
  const auto a = trials_of(db, 1), b = trials_of(db, 2);
  ASSERT_EQ(a.size(), 40u);
  ASSERT_EQ(b.size(), 40u);
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].config_key, b[k].config_key) << "trial " << k;
  EXPECT_EQ(status_of(db, 1), "finished");
}
