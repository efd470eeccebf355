// The evotune binary as a user runs it: exit codes and messages.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/cuda_driver.h"
#include "tests/subprocess.h"
#include "tests/test_support.h"

namespace {

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

using evotune::testing::evotune_binary;

CliRun run(const std::string& args) {
  std::string command = evotune_binary() + " " + args + " 2>&1";
  CliRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) r.output += buffer.data();
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

using evotune::testing::line_count;

}  // namespace

TEST(Cli, HelpAndVersionSucceed) {
  CliRun help = run("--help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* sub : {"devices", "selftest", "compile-bench", "cache"}) {
    EXPECT_NE(help.output.find(sub), std::string::npos) << sub;
  }
  EXPECT_EQ(run("devices --help").exit_code, 0);
  EXPECT_EQ(run("cache clear --help").exit_code, 0);
  CliRun version = run("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.output.find("NVRTC 13."), std::string::npos) << version.output;
  EXPECT_NE(version.output.find("SQLite 3."), std::string::npos) << version.output;
}

TEST(Cli, UsageErrorsExitTwoWithOneLine) {
  for (const char* args : {"", "no-such-command", "devices --bogus", "compile-bench --count 0",
                           "compile-bench --target sm_9x", "cache"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(line_count(r.output), 1) << args << ": " << r.output;
    EXPECT_EQ(r.output.rfind("evotune: error: ", 0), 0u) << r.output;
  }
}

TEST(Cli, NoDriverExitsThreeWithAClearMessage) {
  if (evotune::runtime::driver_available()) GTEST_SKIP() << "a CUDA driver is present on this machine";
  for (const char* args : {"devices", "devices --json", "selftest"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 3) << args;
    EXPECT_NE(r.output.find("no CUDA driver"), std::string::npos) << r.output;
  }
}

TEST(Cli, CacheCommandsUseTheGivenDirectory) {
  evotune::testing::TempDir dir;
  std::string cache = "--cache-dir " + dir.path().string();
  CliRun path = run(cache + " cache path");
  EXPECT_EQ(path.exit_code, 0);
  EXPECT_EQ(path.output, dir.path().string() + "\n");
  CliRun info = run(cache + " cache info");
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_NE(info.output.find("0 entries"), std::string::npos) << info.output;
  EXPECT_EQ(run(cache + " cache clear").exit_code, 0);
}

// `compile` without a GPU: the problem-aware default for the target, alone or with tunables changed
// ("default,NAME=VALUE"); a bad assignment after "default," is a usage error.
TEST(Cli, CompileTakesTheDefaultWithChanges) {
  const std::string problem = "--problem b=4,hq=16,sq=4096,d=128 --target sm_90a";
  CliRun plain = run("--no-cache compile " + problem);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("mma=wgmma,"), std::string::npos) << plain.output;
  EXPECT_NE(plain.output.find(",rescale=lazy,skip_idle=off,tile_order=heads\n"), std::string::npos)
      << plain.output;
  CliRun named = run("--no-cache compile " + problem + " --config default");
  ASSERT_EQ(named.exit_code, 0) << named.output;
  EXPECT_EQ(named.output.substr(0, named.output.find('\n')), plain.output.substr(0, plain.output.find('\n')));
  CliRun changed = run("--no-cache compile " + problem + " --config default,rescale=every");
  ASSERT_EQ(changed.exit_code, 0) << changed.output;
  std::string expected = plain.output.substr(0, plain.output.find('\n'));
  expected.replace(expected.find("rescale=lazy"), 12, "rescale=every");
  EXPECT_EQ(changed.output.substr(0, changed.output.find('\n')), expected);
  EXPECT_EQ(run("compile " + problem + " --config default,rescale=sometimes").exit_code, 2);
  EXPECT_EQ(run("compile " + problem + " --config default,bogus=1").exit_code, 2);
}

TEST(Cli, CompileBenchMeasuresColdAndCached) {
  CliRun r = run("compile-bench --count 4 --threads 2 --target sm_80 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"cold_per_second\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"cached_per_second\""), std::string::npos) << r.output;
  // Threads and processes side by side, one row each; attention configs as the search compiles them.
  CliRun both = run("compile-bench --count 2 --threads 1 --processes 1,2 --kernel attention --problem "
                    "b=1,hq=2,sq=128,d=64 --target sm_80");
  ASSERT_EQ(both.exit_code, 0) << both.output;
  EXPECT_NE(both.output.find("threads       1"), std::string::npos) << both.output;
  EXPECT_NE(both.output.find("processes     2"), std::string::npos) << both.output;
  EXPECT_EQ(run("compile-bench --processes 0").exit_code, 2);
  EXPECT_EQ(run("compile-bench --threads 4,x").exit_code, 2);
}

namespace {

using evotune::testing::ProcessResult;

ProcessResult run_args(std::vector<std::string> args, double timeout_seconds = 120) {
  args.insert(args.begin(), evotune_binary());
  return evotune::testing::run_process(args, timeout_seconds);
}

// A database with one replayed run of three trials (no GPU needed).
std::string replay_database(const std::filesystem::path& dir) {
  const std::string db = (dir / "replay.db").string();
  const std::string t4 = (evotune::testing::t4_dir() / "convolution_milo_A100_T4.json.gz").string();
  const ProcessResult made = run_args({"search", "--replay", t4, "--budget", "3", "--db", db});
  EXPECT_EQ(made.exit_code, 0) << made.output;
  return db;
}

}  // namespace

// Outputs replace only regular files: a symlink stays a link and its target gets the text; a FIFO's reader
// and /dev/null get it written straight in; a directory is a usage error.
TEST(Cli, OutputsReplaceOnlyRegularFiles) {
  namespace fs = std::filesystem;
  evotune::testing::TempDir dir;
  const std::string db = replay_database(dir.path());
  const ProcessResult to_stdout = run_args({"export", "--format", "csv", "--db", db, "-o", "-"});
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.output;
  const std::string expected = to_stdout.output;
  ASSERT_NE(expected.find("run_id,seq"), std::string::npos) << expected;

  // A FIFO: a reader gets the whole text, and nothing replaces the FIFO. The reader holds the FIFO open
  // from before the export starts (a rename over it would leave it waiting on the old FIFO) and stops once
  // the writer has closed it, or once the export has ended without ever writing.
  const fs::path fifo = dir.path() / "out.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader_fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader_fd, 0);
  std::string received;
  std::atomic<bool> export_ended{false};
  std::thread reader([&] {
    char buffer[4096];
    for (;;) {
      pollfd p{reader_fd, POLLIN, 0};
      const int ready = poll(&p, 1, 200);
      if (ready == 0) {
        if (export_ended) break;
        continue;
      }
      const ssize_t n = read(reader_fd, buffer, sizeof(buffer));
      if (n > 0) {
        received.append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EAGAIN) {
        break;  // the writer closed it
      }
    }
  });
  const ProcessResult into_fifo = run_args({"export", "--format", "csv", "--db", db, "-o", fifo.string()});
  export_ended = true;
  reader.join();
  close(reader_fd);
  EXPECT_EQ(into_fifo.exit_code, 0) << into_fifo.output;
  EXPECT_EQ(received, expected);
  EXPECT_TRUE(fs::is_fifo(fifo));

  // A symlink to a regular file: the link stays, the target gets the text.
  const fs::path target = dir.path() / "target.csv", link = dir.path() / "link.csv";
  evotune::testing::write_bytes(target, "old\n");
  fs::create_symlink(target, link);
  const ProcessResult through_link = run_args({"export", "--format", "csv", "--db", db, "-o", link.string()});
  EXPECT_EQ(through_link.exit_code, 0) << through_link.output;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(evotune::testing::file_bytes(target), expected);
  // A dangling symlink in an existing directory: its target is created, the link stays a link.
  const fs::path dangling = dir.path() / "dangling.csv", created = dir.path() / "created.csv";
  fs::create_symlink(created, dangling);
  EXPECT_EQ(run_args({"export", "--format", "csv", "--db", db, "-o", dangling.string()}).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_EQ(evotune::testing::file_bytes(created), expected);

  // A directory is refused: one line, exit 2, the directory untouched.
  const fs::path directory = dir.path() / "a-directory";
  fs::create_directory(directory);
  const ProcessResult into_directory = run_args({"export", "--format", "csv", "--db", db, "-o", directory.string()});
  EXPECT_EQ(into_directory.exit_code, 2) << into_directory.output;
  EXPECT_EQ(line_count(into_directory.stderr_text), 1) << into_directory.stderr_text;
  EXPECT_NE(into_directory.stderr_text.find("is a directory"), std::string::npos) << into_directory.stderr_text;
  EXPECT_TRUE(fs::is_empty(directory));

  // Character devices are written into, never renamed over: a private null device first (where mknod is
  // allowed), and the system's /dev/null and /dev/stdout only when everything above held, so that a
  // regression cannot replace the machine's /dev/null with a file.
  const fs::path null_device = dir.path() / "null";
  const bool private_device = mknod(null_device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
                              access(null_device.c_str(), W_OK) == 0 && [&] {
                                const int fd = open(null_device.c_str(), O_WRONLY);  // not on a nodev mount
                                if (fd >= 0) close(fd);
                                return fd >= 0;
                              }();
  if (private_device) {
    const ProcessResult to_device = run_args({"export", "--format", "csv", "--db", db, "-o", null_device.string()});
    EXPECT_EQ(to_device.exit_code, 0) << to_device.output;
    EXPECT_TRUE(fs::is_character_file(null_device));
  }
  if (HasFailure()) return;
  const ProcessResult to_null = run_args({"export", "--format", "csv", "--db", db, "-o", "/dev/null"});
  EXPECT_EQ(to_null.exit_code, 0) << to_null.output;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  const ProcessResult to_dev_stdout = run_args({"export", "--format", "csv", "--db", db, "-o", "/dev/stdout"});
  EXPECT_EQ(to_dev_stdout.exit_code, 0) << to_dev_stdout.output;
  EXPECT_NE(to_dev_stdout.output.find(expected), std::string::npos) << to_dev_stdout.output;
  EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
}

namespace {

// The names listed under "Subcommands:" in a --help text.
std::vector<std::string> subcommands_in(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream lines(help);
  bool in_list = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "Subcommands:") {
      in_list = true;
    } else if (in_list && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (in_list && !line.empty() && line[0] != ' ') {
      in_list = false;
    }
  }
  return names;
}

struct HelpOption {
  std::string names, value, description;  // "--db", "TEXT=evotune.db", "evidence database"
};

// The options of a --help text (CLI11's layout: "  NAMES VALUE" then the description, on the same line
// after two or more spaces or on the next lines, indented).
std::vector<HelpOption> options_in(const std::string& help) {
  std::vector<HelpOption> options;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  -", 0) == 0) {
      const std::string entry = line.substr(2);
      const std::size_t gap = entry.find("  ");
      const std::string head = entry.substr(0, gap);
      HelpOption option;
      option.names = head.substr(0, head.find(' '));
      option.value = head.find(' ') == std::string::npos ? "" : head.substr(head.find(' ') + 1);
      if (gap != std::string::npos) option.description = entry.substr(entry.find_first_not_of(' ', gap));
      options.push_back(option);
    } else if (!options.empty() && line.rfind("    ", 0) == 0) {
      options.back().description.append(" ").append(line, line.find_first_not_of(' '));
    }
  }
  return options;
}

}  // namespace

// Every option that takes a value shows its default in --help ("=100"), is marked REQUIRED, or says in its
// description what happens without it ("default: ...", "no default: ..."), in every subcommand.
TEST(Cli, HelpShowsTheDefaultOfEveryOption) {
  std::vector<std::string> commands = {""};
  int checked = 0;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const CliRun r = run(commands[i] + " --help");
    ASSERT_EQ(r.exit_code, 0) << commands[i] << ": " << r.output;
    for (const std::string& sub : subcommands_in(r.output)) {
      commands.push_back(commands[i].empty() ? sub : commands[i] + " " + sub);
    }
    for (const HelpOption& option : options_in(r.output)) {
      if (option.value.empty()) continue;  // a flag
      ++checked;
      std::string description = option.description;
      std::transform(description.begin(), description.end(), description.begin(), ::tolower);
      const bool shown = option.value.find('=') != std::string::npos ||
                         option.value.find("REQUIRED") != std::string::npos ||
                         description.find("default") != std::string::npos;
      EXPECT_TRUE(shown) << "evotune " << commands[i] << " " << option.names << " " << option.value << ": "
                         << option.description;
    }
  }
  EXPECT_GE(commands.size(), 15u);
  EXPECT_GE(checked, 50);
  // The options the issue named show the value itself.
  const std::string search = run("search --help").output;
  for (const char* shown : {"=100", "=evo", "=evotune.db", "=sm_90a", "=2", "=3", "=30", "=1", "=60"}) {
    EXPECT_NE(search.find(shown), std::string::npos) << shown << "\n" << search;
  }
  EXPECT_NE(run("top --help").output.find("=10"), std::string::npos);
  EXPECT_NE(run("report --help").output.find("=10"), std::string::npos);
}

// An unknown subcommand or option names the nearest valid one, in one line, exit 2.
TEST(Cli, UnknownCommandsAndOptionsSuggestTheNearestName) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"serach", "evotune: error: unknown command 'serach'; did you mean 'search'?\n"},
      {"rpeort --db x.db", "evotune: error: unknown command 'rpeort'; did you mean 'report'?\n"},
      {"cache claer", "evotune: error: unknown command 'claer' for cache; did you mean 'clear'?\n"},
      {"search --bugdet 5", "evotune: error: unknown option '--bugdet' for search; did you mean '--budget'? (see "
                            "evotune search --help)\n"},
      {"top --formt=json", "evotune: error: unknown option '--formt' for top; did you mean '--format'? (see "
                           "evotune top --help)\n"},
      {"--no-cahce devices", "evotune: error: unknown option '--no-cahce'; did you mean '--no-cache'? (see "
                             "evotune --help)\n"},
      {"no-such-command", "evotune: error: unknown command 'no-such-command' (see evotune --help)\n"},
      {"devices --bogus", "evotune: error: unknown option '--bogus' for devices (see evotune devices --help)\n"},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.output, expected) << args;
  }
  // Hidden commands and options are never suggested.
  const CliRun hidden = run("compile-serve");
  EXPECT_EQ(hidden.exit_code, 2);
  EXPECT_EQ(hidden.output.find("compile-server"), std::string::npos) << hidden.output;
}
