// What evotune guarantees about the evidence database (docs/guarantees.md), tried as a
// user (and a careless or hostile one) would, through the real binary on the CPU:
//   Outputs      an output path that is the database (or its -wal/-shm), by any name, is refused and the
//                database is untouched; outputs are written atomically and leave no temporary behind; a
//                command that fails on its inputs leaves no new database behind.
//   Resume       a resume continues exactly the run that was recorded or is refused: another or a changed
//                recorded space, contradicting flags, a second resume of a run being resumed.
//   Concurrency  processes creating one new database at once all succeed; read-only commands read a WAL
//                database in a directory they cannot write.
#include <gtest/gtest.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

#include <fmt/format.h>

#include <sqlite3.h>

#include "evidence/store.h"
#include "tests/test_support.h"

using evotune::evidence::Store;
namespace fs = std::filesystem;

namespace {

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line; its stdout and stderr together.
CliRun run_shell(const std::string& command) {
  CliRun r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) r.output += buffer.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

CliRun run(const std::string& args) { return run_shell(evotune::testing::evotune_binary() + " " + args); }

using evotune::testing::file_bytes;
using evotune::testing::line_count;


std::string t4(const char* name) { return (evotune::testing::t4_dir() / name).string(); }
const char* const kSpaceA = "convolution_milo_A4000_T4.json.gz";
const char* const kSpaceB = "convolution_milo_A100_T4.json.gz";

// One row of `runs`, as text, to see that a refused or empty resume changed nothing.
std::string run_row(const std::string& db, int run) {
  Store store(db, Store::Mode::read_only);
  for (const auto& r : store.runs()) {
    if (r.id == run) return fmt::format("{} {} {} {}", r.status, r.finished_at, r.trials, r.budget);
  }
  return "no such run";
}

std::vector<std::string> directory_listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

// Every command that writes a file refuses the database itself (and its -wal and -shm) as the output, by
// whatever name it is given (relative, through a symlink, a hard link), with one line and exit 2, and
// leaves the database as it was.
TEST(Outputs, TheDatabaseIsNeverTheOutput) {
  evotune::testing::TempDir dir;
  const fs::path db = dir.path() / "e.db";
  ASSERT_EQ(run("search --replay " + t4(kSpaceA) + " --budget 20 --db " + db.string()).exit_code, 0);
  // An attention run too, so that the header export has something to write: the committed H100 search.
  const fs::path h100 = dir.path() / "h100.db";
  fs::copy_file(evotune::testing::source_dir() / "evidence/results/h100/issue4-search/search_fp16/search.db", h100);
  fs::create_symlink(db, dir.path() / "link.db");
  fs::create_hard_link(db, dir.path() / "hard.db");
  const std::string before = file_bytes(db), h100_before = file_bytes(h100);
  const std::string in_dir = "cd " + dir.path().string() + " && " + evotune::testing::evotune_binary() + " ";
  const std::vector<std::string> attempts = {
      "export --format csv --db " + db.string() + " --out " + db.string(),
      "export --format csv --table evo_log --db " + db.string() + " --out " + db.string(),
      "export --format t4 --db " + db.string() + " --out " + db.string(),
      "export --format csv --db " + db.string() + " --out " + db.string() + "-wal",
      "export --format csv --db " + db.string() + " --out " + db.string() + "-shm",
      "export --format csv --db " + db.string() + " --out " + (dir.path() / "link.db").string(),
      "export --format csv --db " + (dir.path() / "link.db").string() + " --out " + db.string(),
      "export --format csv --db " + db.string() + " --out " + (dir.path() / "hard.db").string(),
      "export --format csv --db " + db.string() + " --out " + (dir.path() / "." / "e.db").string(),
      "report --db " + db.string() + " -o " + db.string(),
      "report --db " + db.string() + " -o " + (dir.path() / "link.db").string(),
      "export --skip-verify --db " + h100.string() + " --out " + h100.string(),
      "export --skip-verify --run 1 --db " + h100.string() + " --out " + h100.string() + "-wal",
      "search --replay " + t4(kSpaceA) + " --budget 5 --db " + db.string() + " --summary-json " + db.string(),
  };
  for (const std::string& args : attempts) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(line_count(r.output), 1) << args << ": " << r.output;
    EXPECT_NE(r.output.find("database"), std::string::npos) << args << ": " << r.output;
  }
  for (const std::string& args : {std::string("export --format csv --db e.db --out e.db"),
                                  std::string("export --format t4 --db ./e.db --out ../") +
                                      dir.path().filename().string() + "/e.db",
                                  std::string("report --db e.db -o link.db")}) {
    CliRun r = run_shell(in_dir + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
  }
  EXPECT_EQ(file_bytes(db), before);
  EXPECT_EQ(file_bytes(h100), h100_before);
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.db"));
  EXPECT_FALSE(fs::exists(db.string() + "-wal"));
  Store store(db.string(), Store::Mode::read_only);
  EXPECT_EQ(store.trials(1).size(), 20u);
  EXPECT_EQ(store.runs().size(), 1u);
}

// An output is written whole or not at all, under a temporary name of its own: a file of the user's that
// happens to be called like the old fixed temporary (OUT.tmp) is left alone, and a failed write (the output
// is a directory) leaves nothing behind.
TEST(Outputs, AreWrittenAtomicallyAndLeaveNoTemporary) {
  evotune::testing::TempDir dir;
  const fs::path db = dir.path() / "e.db";
  ASSERT_EQ(run("search --replay " + t4(kSpaceA) + " --budget 20 --db " + db.string()).exit_code, 0);
  const fs::path out = dir.path() / "trials.csv";
  std::ofstream(out.string() + ".tmp") << "the user's own notes\n";
  CliRun written = run("export --format csv --db " + db.string() + " --out " + out.string());
  ASSERT_EQ(written.exit_code, 0) << written.output;
  EXPECT_EQ(file_bytes(out.string() + ".tmp"), "the user's own notes\n");
  EXPECT_NE(file_bytes(out).find("config"), std::string::npos);
  // The output exists already as a directory: refused, and no temporary is left in the directory.
  fs::create_directory(dir.path() / "taken");
  std::ofstream(dir.path() / "taken" / "inside") << "x";
  const auto listing = directory_listing(dir.path());
  for (const std::string& args : {"export --format csv --db " + db.string() + " --out " + (dir.path() / "taken").string(),
                                  "report --db " + db.string() + " -o " + (dir.path() / "taken").string()}) {
    CliRun r = run(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_EQ(line_count(r.output), 1) << args << ": " << r.output;
    EXPECT_EQ(directory_listing(dir.path()), listing) << args << " left something behind";
  }
  // A report into a directory that does not exist: one line, nothing created.
  CliRun missing = run("report --db " + db.string() + " -o " + (dir.path() / "no" / "r.html").string());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(line_count(missing.output), 1) << missing.output;
  EXPECT_EQ(directory_listing(dir.path()), listing);
}

// Inputs are checked before any database is created or changed: a search that fails on its options or
// its recorded space leaves no new (empty) database behind.
TEST(Outputs, AFailingSearchLeavesNoNewDatabase) {
  evotune::testing::TempDir dir;
  const fs::path garbage = dir.path() / "garbage.t4.json";
  std::ofstream(garbage) << "{\"this is\": \"not a T4 document\"}";
  const fs::path db = dir.path() / "new.db";
  for (const std::string& args : {"search --replay " + garbage.string(),
                                  "search --replay " + t4(kSpaceA) + " --strategy nonsense",
                                  "search --replay " + t4(kSpaceA) + " --devices x",
                                  "search --replay " + t4(kSpaceA) + " --evo offspring=banana",
                                  std::string("search --resume 3"),
                                  std::string("search")}) {
    CliRun r = run(args + " --db " + db.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(line_count(r.output), 1) << args << ": " << r.output;
    EXPECT_FALSE(fs::exists(db)) << args << " left a database behind";
    fs::remove(db);
  }
}

// A resume continues the recorded run on exactly the recorded space with exactly its settings, or is
// refused with one line and exit 2, changing nothing: another space, the same file changed, a flag that
// contradicts the run. A finished run is left as it is.
TEST(Resume, IsExactOrRefused) {
  evotune::testing::TempDir dir;
  const fs::path space = dir.path() / "space.t4.json.gz";
  fs::copy_file(t4(kSpaceA), space);
  const std::string db = (dir.path() / "e.db").string();
  const std::string common = "search --replay " + space.string() + " --strategy evo --budget 60 --seed 5 --history 0";
  EXPECT_EQ(run(common + " --test-kill-after 17 --db " + db).exit_code, 128 + SIGKILL);
  const std::string interrupted = run_row(db, 1);
  const std::string resume = "search --resume 1 --db " + db;
  std::vector<std::string> refused = {
      resume + " --replay " + t4(kSpaceB),  // another recorded space
      resume + " --seed 6",
      resume + " --strategy random",
      resume + " --budget 70",
      resume + " --evo offspring=12",
      resume + " --lookahead 3",
      resume + " --stop-after-stagnant 4",
      resume + " --problem b=1,hq=8,sq=512,d=64",
  };
  for (const std::string& args : refused) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(line_count(r.output), 1) << args << ": " << r.output;
    EXPECT_EQ(run_row(db, 1), interrupted) << args;
  }
  // The same name, other content: noticed.
  fs::copy_file(t4(kSpaceB), space, fs::copy_options::overwrite_existing);
  CliRun changed = run(resume);
  EXPECT_EQ(changed.exit_code, 2) << changed.output;
  EXPECT_NE(changed.output.find("changed"), std::string::npos) << changed.output;
  EXPECT_EQ(run_row(db, 1), interrupted);
  // Restored: the resume goes on, flags that agree with the run are accepted.
  fs::copy_file(t4(kSpaceA), space, fs::copy_options::overwrite_existing);
  CliRun resumed = run(resume + " --seed 5 --strategy evo --replay " + space.string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(run(common + " --db " + db).exit_code, 0);  // run 2, uninterrupted
  {
    Store store(db, Store::Mode::read_only);
    auto a = store.trials(1), b = store.trials(2);
    ASSERT_EQ(a.size(), 60u);
    ASSERT_EQ(b.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].config_key, b[i].config_key) << i;
  }
  // Finished: a resume says so, exits 0 and changes nothing (not even the time it finished).
  const std::string finished = run_row(db, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  CliRun again = run(resume);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("finished"), std::string::npos) << again.output;
  EXPECT_EQ(run_row(db, 1), finished);
}

// A run recorded before schema 4 (no hash of its space, no claims table) still resumes as before, saying
// that its space cannot be checked; the database is migrated to the current schema on the way.
TEST(Resume, ARunFromBeforeSchemaFourResumesAndSaysItsSpaceIsUnchecked) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "v3.db").string();
  const std::string common = "search --replay " + t4(kSpaceA) + " --strategy evo --budget 40 --seed 5 --history 0";
  EXPECT_EQ(run(common + " --test-kill-after 11 --db " + db).exit_code, 128 + SIGKILL);
  {
    // What evotune wrote before schema 4.
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    for (const char* sql : {"ALTER TABLE runs DROP COLUMN space_path", "ALTER TABLE runs DROP COLUMN space_sha256",
                            "DROP TABLE run_claims", "PRAGMA user_version = 3"}) {
      ASSERT_EQ(sqlite3_exec(raw, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(raw);
    }
    sqlite3_close(raw);
  }
  {
    Store old(db, Store::Mode::read_only);
    ASSERT_EQ(old.schema_version(), 3);
    EXPECT_EQ(old.run_info(1)->space_sha256, "");
    EXPECT_EQ(old.trials(1).size(), 11u);
  }
  CliRun resumed = run("search --resume 1 --db " + db);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("cannot be checked"), std::string::npos) << resumed.output;
  EXPECT_EQ(run(common + " --db " + db).exit_code, 0);  // run 2, uninterrupted, recorded with its hash
  Store store(db, Store::Mode::read_only);
  EXPECT_EQ(store.schema_version(), evotune::evidence::kSchemaVersion);
  auto a = store.trials(1), b = store.trials(2);
  ASSERT_EQ(a.size(), 40u);
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].config_key, b[i].config_key) << i;
  EXPECT_EQ(store.run_info(2)->space_sha256.size(), 64u);
  EXPECT_EQ(store.run_info(2)->space_path, fs::canonical(t4(kSpaceA)).string());
}

// An attention run resumed with a different problem (or a recorded space) is refused before any device is
// looked for: on this CPU machine that is exit 2, not the no-device exit 3 of a search that went ahead.
TEST(Resume, AnAttentionRunRefusesAnotherProblem) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "a.db").string();
  fs::copy_file(evotune::testing::source_dir() / "evidence/results/h100/issue4-search/search_fp16/search.db", db);
  std::string problem;
  {
    Store store(db, Store::Mode::read_only);
    problem = store.run_info(1)->problem;
  }
  ASSERT_FALSE(problem.empty());
  for (const std::string& args : {"search --resume 1 --problem b=1,hq=8,sq=512,d=64,dtype=fp16 --db " + db,
                                  "search --resume 1 --replay " + t4(kSpaceA) + " --db " + db}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(line_count(r.output), 1) << args << ": " << r.output;
  }
}

// Two resumes of one run at once: the second is refused with one line and exit 2 (not a UNIQUE constraint
// error), the first finishes, and the run holds each trial once.
TEST(Resume, ASecondConcurrentResumeIsRefused) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "e.db").string();
  const std::string common = "search --replay " + t4(kSpaceA) + " --strategy evo --budget 60 --seed 5 --history 0";
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(run(common + " --test-kill-after 5 --db " + db).exit_code, 128 + SIGKILL);
  const double one_start = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The first resume evaluates in a worker that hangs on its 20th request for the trial timeout: long
  // enough for the second to start and try while the first is under way. How long the second takes to get
  // there depends on the machine's speed and load: the run above (a start, its claim and 5 trials) is
  // timed, and the timeout is several times that, 4 s at least.
  const double trial_timeout = std::max(4.0, std::ceil(4 * one_start));
  std::printf("a killed run took %.2f s: trial timeout %g s\n", one_start, trial_timeout);
  const std::string first_log = (dir.path() / "first.log").string();
  const std::string slow = "search --resume 1 --devices 0 --test-worker-hang-at 20 --trial-timeout " +
                           fmt::format("{:g}", trial_timeout) + " --db " + db;
  std::thread first([&] { run_shell(evotune::testing::evotune_binary() + " " + slow + " > " + first_log); });
  // Wait until the first resume is under way (it has recorded a trial); the deadline only guards a hang.
  bool under_way = false;
  for (const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
       !under_way && std::chrono::steady_clock::now() < give_up;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    under_way = Store(db, Store::Mode::read_only).trials(1).size() > 5;
  }
  CliRun second = run("search --resume 1 --db " + db);
  first.join();
  EXPECT_TRUE(under_way) << "the first resume recorded no trial in 120 s: " << file_bytes(first_log);
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_EQ(line_count(second.output), 1) << second.output;
  EXPECT_EQ(second.output.find("UNIQUE"), std::string::npos) << second.output;
  Store store(db, Store::Mode::read_only);
  auto trials = store.trials(1);
  EXPECT_EQ(trials.size(), 60u) << file_bytes(first_log);
  std::set<std::string> keys;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    EXPECT_EQ(trials[i].seq, static_cast<int>(i));
    keys.insert(trials[i].config_key);
  }
  EXPECT_EQ(keys.size(), trials.size());
  EXPECT_EQ(store.runs().at(0).status, "finished");
}

// Several processes creating the same new database at once all succeed (the schema is created once, in
// one write transaction that looks at the version again), each with its run.
TEST(Concurrency, ProcessesCreatingOneNewDatabaseAtOnceAllSucceed) {
  // One round: before the schema was created in one transaction, every round failed ("table devices
  // already exists"); more rounds cost CI ~17 s each under ASan.
  constexpr int kProcesses = 6, kRounds = 1;
  for (int round = 0; round < kRounds; ++round) {
    evotune::testing::TempDir dir;
    const std::string db = (dir.path() / "new.db").string();
    std::string script;
    for (int i = 0; i < kProcesses; ++i) {
      script += fmt::format("({} search --replay {} --budget 5 --seed {} --db {} > {}/{}.log 2>&1; echo $? > {}/{}.rc) & ",
                            evotune::testing::evotune_binary(), t4(kSpaceA), i + 1, db, dir.path().string(), i,
                            dir.path().string(), i);
    }
    run_shell(script + "wait");
    for (int i = 0; i < kProcesses; ++i) {
      EXPECT_EQ(file_bytes(dir.path() / fmt::format("{}.rc", i)), "0\n")
          << "round " << round << ", process " << i << ": " << file_bytes(dir.path() / fmt::format("{}.log", i));
    }
    Store store(db, Store::Mode::read_only);
    EXPECT_EQ(store.runs().size(), static_cast<std::size_t>(kProcesses)) << "round " << round;
  }
}

// The reading commands open the database read-only and work in a directory they cannot write (where SQLite
// cannot create the WAL's -shm file), changing nothing there. Root ignores directory permissions, so as
// root the commands run as the unprivileged user 65534 (nobody): the test means the same either way.
TEST(Concurrency, ReadOnlyCommandsWorkInAnUnwritableDirectory) {
  evotune::testing::TempDir dir;
  const fs::path data = dir.path() / "data";
  const fs::path outputs = dir.path() / "outputs";
  fs::create_directories(data);
  fs::create_directories(outputs);
  const std::string db = (data / "e.db").string();
  ASSERT_EQ(run("search --replay " + t4(kSpaceA) + " --budget 20 --db " + db).exit_code, 0);
  ASSERT_FALSE(fs::exists(db + "-shm"));  // closed cleanly: SQLite removed the WAL's files
  // A search killed mid-run: its last commits are still in its -wal (with the -shm beside it).
  const std::string crashed = (data / "crashed.db").string();
  ASSERT_EQ(run("search --replay " + t4(kSpaceA) + " --budget 30 --test-kill-after 12 --db " + crashed).exit_code,
            128 + SIGKILL);
  ASSERT_TRUE(fs::exists(crashed + "-wal"));
  std::string binary = evotune::testing::evotune_binary();
  const bool as_root = geteuid() == 0;
  if (as_root) {
    // The build tree may be out of nobody's reach: a copy beside the data.
    fs::copy_file(binary, dir.path() / "evotune");
    binary = (dir.path() / "evotune").string();
  }
  chmod(dir.path().c_str(), 0755);
  chmod(outputs.c_str(), 0777);
  for (const auto& e : fs::directory_iterator(data)) chmod(e.path().c_str(), 0644);
  chmod(data.c_str(), 0555);
  auto run_unprivileged = [&](const std::string& args) {
    const std::string command = binary + " " + args;
    if (!as_root) return run_shell(command);
    // fork, drop to nobody, run the command through the shell; its output goes to a file nobody can write.
    CliRun r;
    const fs::path log = outputs / "log.txt";
    fs::remove(log);
    const pid_t child = fork();
    if (child == 0) {
      if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(99);
      const std::string shell = command + " > " + log.string() + " 2>&1";
      execl("/bin/sh", "sh", "-c", shell.c_str(), static_cast<char*>(nullptr));
      _exit(98);
    }
    int status = 0;
    waitpid(child, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.output = file_bytes(log);
    return r;
  };
  const std::string before = file_bytes(db);
  const auto listing = directory_listing(data);
  const std::vector<std::string> commands = {
      "runs --db " + db,
      "log --db " + db,
      "top --db " + db,
      "export --format csv --db " + db,
      "export --format t4 --db " + db + " --out " + (outputs / "run.t4.json").string(),
      "report --db " + db + " -o " + (outputs / "report.html").string(),
  };
  for (const std::string& args : commands) {
    CliRun r = run_unprivileged(args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.output;
    EXPECT_EQ(directory_listing(data), listing) << args << " created a file in the read-only directory";
  }
  EXPECT_NE(file_bytes(outputs / "report.html").find("<html"), std::string::npos);
  EXPECT_EQ(file_bytes(db), before);
  // With its -wal and -shm there, the crashed search's database reads whole, last commits included.
  CliRun whole = run_unprivileged("top -n 100 --format json --db " + crashed);
  EXPECT_EQ(whole.exit_code, 0) << whole.output;
  int rows = 0;
  for (std::size_t at = whole.output.find("\"config_key\""); at != std::string::npos;
       at = whole.output.find("\"config_key\"", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 12) << whole.output;
  // Without the -shm (and no way to make one), its -wal cannot be read: refused, rather than read without
  // the commits in it.
  chmod(data.c_str(), 0755);
  fs::remove(crashed + "-shm");
  chmod(data.c_str(), 0555);
  const auto without_shm = directory_listing(data);
  CliRun refused = run_unprivileged("runs --db " + crashed);
  EXPECT_NE(refused.exit_code, 0) << refused.output;
  EXPECT_EQ(line_count(refused.output), 1) << refused.output;
  EXPECT_NE(refused.output.find("-wal"), std::string::npos) << refused.output;
  EXPECT_EQ(directory_listing(data), without_shm);
  chmod(data.c_str(), 0755);
}
