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
