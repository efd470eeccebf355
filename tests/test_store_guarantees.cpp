// What evotune guarantees about the evidence database (README, "What evotune guarantees"), tried as a
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

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string t4(const char* name) { return (evotune::testing::t4_dir() / name).string(); }
const char* const kSpaceA = "convolution_milo_A4000_T4.json.gz";
const char* const kSpaceB = "convolution_milo_A100_T4.json.gz";

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
  };
  for (const std::string& args : attempts) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(lines(r.output), 1) << args << ": " << r.output;
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
    EXPECT_EQ(lines(r.output), 1) << args << ": " << r.output;
    EXPECT_EQ(directory_listing(dir.path()), listing) << args << " left something behind";
  }
  // A report into a directory that does not exist: one line, nothing created.
  CliRun missing = run("report --db " + db.string() + " -o " + (dir.path() / "no" / "r.html").string());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(lines(missing.output), 1) << missing.output;
  EXPECT_EQ(directory_listing(dir.path()), listing);
}

// Several processes creating the same new database at once all succeed (the schema is created once, in
// one write transaction that looks at the version again), each with its run.
TEST(Concurrency, ProcessesCreatingOneNewDatabaseAtOnceAllSucceed) {
  constexpr int kProcesses = 6, kRounds = 3;
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
  std::string binary = evotune::testing::evotune_binary();
  const bool as_root = geteuid() == 0;
  if (as_root) {
    // The build tree may be out of nobody's reach: a copy beside the data.
    fs::copy_file(binary, dir.path() / "evotune");
    binary = (dir.path() / "evotune").string();
  }
  chmod(dir.path().c_str(), 0755);
  chmod(outputs.c_str(), 0777);
  chmod(db.c_str(), 0644);
  chmod(data.c_str(), 0555);
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
    const std::string command = binary + " " + args;
    CliRun r;
    if (!as_root) {
      r = run_shell(command);
    } else {
      // fork, drop to nobody, run the command through the shell; its output goes to a file nobody can write.
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
    }
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.output;
    EXPECT_EQ(directory_listing(data), listing) << args << " created a file in the read-only directory";
  }
  EXPECT_NE(file_bytes(outputs / "report.html").find("<html"), std::string::npos);
  EXPECT_EQ(file_bytes(db), before);
  chmod(data.c_str(), 0755);
}
