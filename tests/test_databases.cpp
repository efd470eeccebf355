// Databases as users have them, through the real binary on the CPU: every database the project ever committed
// (every schema evotune wrote), read by every reading command without a byte of it changing; the files SQLite
// keeps beside a database; database paths evotune cannot use; and database text that is not one line or not
// UTF-8.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "evidence/store.h"
#include "tests/subprocess.h"
#include "tests/test_support.h"

using evotune::evidence::Store;
using evotune::testing::file_bytes;
using evotune::testing::line_count;
using evotune::testing::ProcessResult;
using evotune::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const char* const kSpace = "convolution_milo_A4000_T4.json.gz";
std::string t4_path(const char* name) {
  return (evotune::testing::t4_dir() / name).string();
}

ProcessResult evotune_run(std::vector<std::string> args, double timeout_seconds = 120) {
  args.insert(args.begin(), evotune::testing::evotune_binary());
  return evotune::testing::run_process(args, timeout_seconds);
}

std::string describe(const std::vector<std::string>& args, const ProcessResult& r) {
  std::string text;
  for (const std::string& a : args) text += a.size() > 80 ? a.substr(0, 80) + "... " : a + " ";
  return text + "-> exit " + std::to_string(r.exit_code) + (r.timed_out ? " (timed out)" : "") + ": " +
         r.stderr_text;
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// Runs SQL on a database with SQLite itself (what another program, or an older evotune, could have written).
void sql(const fs::path& db, const std::string& statements) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(raw, statements.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(raw);
  ASSERT_EQ(rc, SQLITE_OK) << statements << ": " << message;
}

// A database with one replay run of 20 trials, closed cleanly (nothing beside it).
fs::path replay_database(const fs::path& dir, const std::string& name = "e.db") {
  const fs::path db = dir / name;
  const std::vector<std::string> args = {"search", "--replay", t4_path(kSpace), "--budget",
                                         "20",     "--db",     db.string()};
  const ProcessResult r = evotune_run(args);
  EXPECT_EQ(r.exit_code, 0) << describe(args, r);
  return db;
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Every *.db and *.db.gz under the repository's evidence/ and lab/ folders.
std::vector<fs::path> committed_databases() {
  std::vector<fs::path> found;
  for (const char* top : {"evidence", "lab"}) {
    const fs::path root = evotune::testing::source_dir() / top;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_regular_file(ec) && (ends_with(name, ".db") || ends_with(name, ".db.gz")))
        found.push_back(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Copies `from` to `to`, gunzipping a .gz; false when it cannot.
bool copy_database(const fs::path& from, const fs::path& to) {
  if (!ends_with(from.string(), ".gz")) return fs::copy_file(from, to);
  gzFile in = gzopen(from.c_str(), "rb");
  if (in == nullptr) return false;
  std::string bytes;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(in, buffer, sizeof(buffer))) > 0) bytes.append(buffer, static_cast<std::size_t>(n));
  const bool whole = n == 0;
  gzclose(in);
  evotune::testing::write_bytes(to, bytes);
  return whole && fs::file_size(to) == bytes.size();
}

// What schema a database holds, as a reader meets it: user_version, its tables, the columns of runs. Read
// with SQLite's immutable open, which leaves nothing beside the file.
std::string layout_of(const fs::path& db) {
  sqlite3* raw = nullptr;
  std::string layout;
  if (sqlite3_open_v2(("file:" + db.string() + "?immutable=1").c_str(), &raw,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) == SQLITE_OK) {
    for (const char* query :
         {"PRAGMA user_version", "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
          "SELECT name FROM pragma_table_info('runs') ORDER BY name"}) {
      sqlite3_stmt* stmt = nullptr;
      if (sqlite3_prepare_v2(raw, query, -1, &stmt, nullptr) != SQLITE_OK) continue;
      while (sqlite3_step(stmt) == SQLITE_ROW)
        layout += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)) + std::string(" ");
      sqlite3_finalize(stmt);
      layout += "| ";
    }
  }
  sqlite3_close(raw);
  return layout;
}

// A reading command's clean refusal of a database with nothing for it (a documented exit 2 in one line): a
// header export of a database without an attention run with a valid trial, say.
bool clean_refusal(const ProcessResult& r) {
  return r.exit_code == 2 && line_count(r.stderr_text) == 1 &&
         r.stderr_text.rfind("evotune: error: ", 0) == 0 &&
         (r.stderr_text.find("holds no") != std::string::npos ||
          r.stderr_text.find("nothing in") != std::string::npos);
}

}  // namespace

// Every database the project committed, of every schema evotune ever wrote (user_version 1, 2, 3 with and
// without retimes, 4), is read by the reading commands: exit 0 (or a clean "holds no ..."), and the file is
// byte for byte as it was, with nothing left beside it. A command costs its start-up mostly, so not every
// file gets every command: the first file of each schema layout does, every other file gets `runs` and one
// of the others in turn. Files run in parallel, a few at a time.
TEST(CommittedDatabases, EveryReadingCommandReadsEachAndChangesNothing) {
  const std::vector<fs::path> databases = committed_databases();
  ASSERT_GE(databases.size(), 20u) << "the committed databases were not found under "
                                   << evotune::testing::source_dir();
  TempDir dir;
  const fs::path outputs = dir.path() / "outputs";
  fs::create_directories(outputs);
  std::mutex lock;
  std::vector<std::string> failures;
  std::set<int> versions;
  std::set<std::string> layouts_seen;
  std::size_t next = 0, turn = 0;
  auto work = [&] {
    for (;;) {
      std::size_t i = 0;
      {
        std::lock_guard<std::mutex> guard(lock);
        if (next == databases.size()) return;
        i = next++;
      }
      const fs::path& source = databases[i];
      const fs::path home = dir.path() / std::to_string(i);
      fs::create_directories(home);
      const fs::path db = home / "copy.db";
      if (!copy_database(source, db)) {
        std::lock_guard<std::mutex> guard(lock);
        failures.push_back(source.string() + ": cannot copy");
        continue;
      }
      const std::string before = file_bytes(db);
      const std::string out = (outputs / std::to_string(i)).string();
      std::vector<std::vector<std::string>> commands = {
          {"runs"},
          {"log"},
          {"top"},
          {"export", "--format", "csv", "--out", out + ".csv"},
          {"export", "--format", "t4", "--out", out + ".t4.json"},
          {"export", "--no-cubin", "--skip-verify", "--out", out + ".h"},
          {"report", "-o", out + ".html"},
      };
      {
        std::lock_guard<std::mutex> guard(lock);
        if (!layouts_seen.insert(layout_of(db)).second) {
          commands = {commands[0], commands[1 + turn++ % (commands.size() - 1)]};
        }
      }
      std::vector<std::string> problems;
      for (std::vector<std::string> args : commands) {
        args.insert(args.begin(), "--no-cache");
        args.insert(args.end(), {"--db", db.string()});
        const ProcessResult r = evotune_run(args);
        if (r.exit_code != 0 && !clean_refusal(r)) problems.push_back(describe(args, r));
        if (listing(home) != std::set<std::string>{"copy.db"}) {
          problems.push_back(describe(args, r) + " left files beside the database");
          for (const auto& e : fs::directory_iterator(home)) {
            if (e.path() != db) fs::remove(e.path());
          }
        }
      }
      if (file_bytes(db) != before) problems.push_back("its bytes changed");
      int version = -1;
      try {
        version = Store(db.string(), Store::Mode::read_only).schema_version();
      } catch (const std::exception& e) {
        problems.push_back(e.what());
      }
      std::lock_guard<std::mutex> guard(lock);
      versions.insert(version);
      for (const std::string& p : problems) failures.push_back(source.string() + ": " + p);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
  // The schemas the committed files span (a check that the test reads what it means to read).
  for (int v : {1, 2, 3, 4}) EXPECT_TRUE(versions.count(v)) << "no committed database of schema " << v;
}

// A schema-3 file written before the retimes table existed (the committed call3_ab0fd01 search) reads as it
// is, without re-timings; opened for writing it gains what it lacks in one go, and loses nothing.
TEST(Schema, AVersionThreeFileWithoutRetimesReadsAsItIsAndGainsThemWhenWritten) {
  TempDir dir;
  const fs::path db = dir.path() / "old.db";
  fs::copy_file(
      evotune::testing::source_dir() / "evidence/results/h100/search-throughput/call3_ab0fd01/search.db", db);
  auto count = [&](const char* query) {
    sqlite3* raw = nullptr;
    sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READWRITE,
                    nullptr);  // (read-only would leave -wal and -shm)
    sqlite3_stmt* stmt = nullptr;
    std::int64_t n = -1;
    if (sqlite3_prepare_v2(raw, query, -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
      n = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(raw);
    return n;
  };
  ASSERT_EQ(count("SELECT COUNT(*) FROM sqlite_master WHERE name = 'retimes'"), 0)
      << "the fixture has retimes now";
  const std::string before = file_bytes(db);
  const std::int64_t trials = count("SELECT COUNT(*) FROM trials"),
                     samples = count("SELECT COUNT(*) FROM samples");
  const std::int64_t baselines = count("SELECT COUNT(*) FROM baselines");
  std::int64_t run = 0;
  std::string winner;
  {
    Store store(db.string(), Store::Mode::read_only);
    EXPECT_EQ(store.schema_version(), 3);
    ASSERT_FALSE(store.runs().empty());
    run = store.runs().back().id;
    EXPECT_TRUE(store.retimes(run).empty());
    EXPECT_TRUE(store.confirmed(run).empty());
    const auto best = store.best_of_each_run("attention");
    ASSERT_FALSE(best.empty());
    winner = best.back().best.config_key;
    EXPECT_EQ(store.run_info(run)->space_sha256, "");
  }
  EXPECT_EQ(file_bytes(db), before) << "a read changed the file";
  EXPECT_FALSE(fs::exists(db.string() + "-wal"));
  {
    Store store(db.string(), Store::Mode::read_write);
    EXPECT_EQ(store.schema_version(), evotune::evidence::kSchemaVersion);
    store.record_retimes(run, {{winner, 0, 1.5}, {winner, 1, 1.25}});
    ASSERT_EQ(store.retimes(run).size(), 2u);
    EXPECT_EQ(store.confirmed(run).at(0).config_key, winner);
    EXPECT_FALSE(store.claim_run(run).has_value());
    store.release_run(run);
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM trials"), trials);
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples"), samples);
  EXPECT_EQ(count("SELECT COUNT(*) FROM baselines"), baselines);
  EXPECT_EQ(count("SELECT COUNT(*) FROM retimes"), 2);
}

// The reading commands leave nothing beside a database that had nothing beside it (SQLite's read-only
// connections used to leave an empty -wal and a 32 KiB -shm), and change none of its bytes.
TEST(Reading, LeavesNothingBesideACleanDatabase) {
  TempDir dir;
  const fs::path data = dir.path() / "data", outputs = dir.path() / "outputs";
  fs::create_directories(data);
  fs::create_directories(outputs);
  const fs::path db = replay_database(data);
  ASSERT_EQ(listing(data), std::set<std::string>{"e.db"});
  const std::string before = file_bytes(db);
  const std::vector<std::vector<std::string>> commands = {
      {"runs"},
      {"log"},
      {"top", "--format", "json"},
      {"export", "--format", "csv"},
      {"export", "--format", "t4", "--out", (outputs / "run.t4.json").string()},
      {"export", "--skip-verify", "--no-cubin", "--out",
       (outputs / "t.h").string()},  // no attention run: exit 2
      {"report", "-o", (outputs / "report.html").string()},
  };
  for (std::vector<std::string> args : commands) {
    args.insert(args.end(), {"--db", db.string()});
    const ProcessResult r = evotune_run(args);
    EXPECT_TRUE(r.exit_code == 0 || clean_refusal(r)) << describe(args, r);
    EXPECT_EQ(listing(data), std::set<std::string>{"e.db"}) << describe(args, r);
  }
  {
    Store store(db.string(), Store::Mode::read_only);
    EXPECT_EQ(store.trials(1).size(), 20u);
  }
  EXPECT_EQ(listing(data), std::set<std::string>{"e.db"});
  EXPECT_EQ(file_bytes(db), before);
}

// Beside a writer at work (its -wal there), a reading command reads its latest commits and leaves its files
// alone; beside a crashed search's -wal, it reads the commits in it and writes none of them into the file.
TEST(Reading, BesideAWriterOrACrashedOneReadsEverythingAndTouchesNothing) {
  TempDir dir;
  const fs::path db = replay_database(dir.path());
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(
                writer,
                "INSERT INTO runs (family, problem, problem_json, strategy, seed, budget, versions, options)"
                " VALUES ('replay', 'written beside the reader', '{}', 'evo', 1, 1, 'test', '{}')",
                nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_TRUE(fs::exists(db.string() + "-wal"));
  const ProcessResult r = evotune_run({"runs", "--db", db.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("written beside the reader"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(db.string() + "-wal"));
  EXPECT_TRUE(fs::exists(db.string() + "-shm"));
  sqlite3_close(writer);

  const fs::path crashed = dir.path() / "crashed.db";
  const ProcessResult killed = evotune_run({"search", "--replay", t4_path(kSpace), "--budget", "30",
                                            "--test-kill-after", "12", "--db", crashed.string()});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.output;
  ASSERT_TRUE(fs::exists(crashed.string() + "-wal"));
  const std::string file = file_bytes(crashed), wal = file_bytes(crashed.string() + "-wal");
  const ProcessResult read = evotune_run({"runs", "--db", crashed.string()});
  EXPECT_EQ(read.exit_code, 0) << read.output;
  EXPECT_NE(read.output.find("12/30"), std::string::npos) << read.output;
  EXPECT_EQ(file_bytes(crashed), file) << "a read checkpointed the crashed search's commits into the file";
  EXPECT_EQ(file_bytes(crashed.string() + "-wal"), wal);
}

// A database path evotune cannot use is a usage error in one line, said at once (--db '' and :memory: used to
// stall for 10 s; an over-long path gave the filesystem's raw error), and nothing is created.
TEST(Paths, UnusableDatabasePathsAreUsageErrorsSaidAtOnce) {
  TempDir dir;
  const fs::path outputs = dir.path() / "outputs";
  fs::create_directories(outputs);
  // Directories that exist, so that only the length is wrong: 3 x 200 bytes.
  fs::path deep = dir.path();
  for (int i = 0; i < 3; ++i) deep /= std::string(200, 'd');
  fs::create_directories(deep);
  const std::vector<std::string> paths = {
      "",
      ":memory:",
      std::string(5000, 'a'),
      (dir.path() / (std::string(300, 'n') + ".db")).string(),
      (deep / "e.db").string(),
  };
  const std::vector<std::vector<std::string>> commands = {
      {"runs"},
      {"log"},
      {"top"},
      {"export", "--format", "csv"},
      {"export", "--skip-verify", "--no-cubin", "--out", (outputs / "t.h").string()},
      {"report", "-o", (outputs / "r.html").string()},
      {"search", "--replay", t4_path(kSpace), "--budget", "3"},
  };
  for (const std::string& path : paths) {
    for (std::vector<std::string> args : commands) {
      args.insert(args.end(), {"--db", path});
      // Generous against a busy machine, and still far below the old 10 s stall.
      const ProcessResult r = evotune_run(args, 8);
      EXPECT_FALSE(r.timed_out) << describe(args, r);
      EXPECT_EQ(r.exit_code, 2) << describe(args, r);
      EXPECT_EQ(line_count(r.stderr_text), 1) << describe(args, r);
      EXPECT_EQ(r.stderr_text.rfind("evotune: error: ", 0), 0u) << describe(args, r);
      EXPECT_EQ(r.stderr_text.find("filesystem error"), std::string::npos) << describe(args, r);
    }
  }
  EXPECT_TRUE(fs::is_empty(deep));
  EXPECT_EQ(listing(dir.path()), (std::set<std::string>{"outputs", std::string(200, 'd')}));
  EXPECT_TRUE(fs::is_empty(outputs));
}

// A 0-byte file is not an evotune database: every reading command says so in one line (exit 1, as for any
// file that is not an evotune database), without SQL, and leaves it as it was.
TEST(Paths, AnEmptyFileIsNotAnEvotuneDatabase) {
  TempDir dir;
  const fs::path db = dir.path() / "empty.db", outputs = dir.path() / "outputs";
  evotune::testing::write_bytes(db, "");
  fs::create_directories(outputs);
  const std::vector<std::vector<std::string>> commands = {
      {"runs"},
      {"log"},
      {"top"},
      {"export", "--format", "csv"},
      {"export", "--format", "t4"},
      {"export", "--skip-verify", "--no-cubin", "--out", (outputs / "t.h").string()},
      {"report", "-o", (outputs / "r.html").string()},
  };
  for (std::vector<std::string> args : commands) {
    args.insert(args.end(), {"--db", db.string()});
    const ProcessResult r = evotune_run(args, 30);
    EXPECT_EQ(r.exit_code, 1) << describe(args, r);
    EXPECT_EQ(line_count(r.stderr_text), 1) << describe(args, r);
    EXPECT_NE(r.stderr_text.find("is empty, not an evotune database"), std::string::npos)
        << describe(args, r);
    EXPECT_EQ(r.stderr_text.find("SELECT"), std::string::npos) << describe(args, r);
  }
  EXPECT_EQ(listing(dir.path()), (std::set<std::string>{"empty.db", "outputs"}));
  EXPECT_EQ(fs::file_size(db), 0u);
  // A search into it records there, as into a new file.
  const ProcessResult search =
      evotune_run({"search", "--replay", t4_path(kSpace), "--budget", "3", "--db", db.string()});
  EXPECT_EQ(search.exit_code, 0) << search.output;
  EXPECT_EQ(Store(db.string(), Store::Mode::read_only).trials(1).size(), 3u);
}

// What every error message quotes, from a database or a path, stays on one line: a problem or config text
// with a line break in it (a header export skips such a run, saying why), a path with one.
TEST(Messages, DatabaseTextAndPathsWithLineBreaksStayOnOneLine) {
  TempDir dir;
  const fs::path db = dir.path() / "h100.db";
  fs::copy_file(evotune::testing::source_dir() / "evidence/results/h100/issue4-search/search_fp16/search.db",
                db);
  sql(db, "UPDATE runs SET problem = problem || char(10) || 'second line'");
  auto every_line_is_evotunes = [](const ProcessResult& r) {
    std::size_t start = 0;
    while (start < r.stderr_text.size()) {
      const std::size_t end = r.stderr_text.find('\n', start);
      const std::string line = r.stderr_text.substr(start, end - start);
      if (line.rfind("evotune: ", 0) != 0 && line.rfind("export: ", 0) != 0) return false;
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return true;
  };
  const std::vector<std::string> header = {
      "--no-cache", "export",    "--skip-verify", "--no-cubin",
      "--db",       db.string(), "--out",         (dir.path() / "t.h").string()};
  ProcessResult r = evotune_run(header);
  EXPECT_EQ(r.exit_code, 2) << describe(header, r);
  EXPECT_TRUE(every_line_is_evotunes(r)) << describe(header, r);
  EXPECT_NE(r.stderr_text.find("second line"), std::string::npos) << describe(header, r);
  // The same with a config text that has a line break: the problem put right, the winner's config broken.
  sql(db,
      "UPDATE runs SET problem = substr(problem, 1, instr(problem, char(10)) - 1);"
      "UPDATE trials SET config = config || char(10) || 'second line'");
  r = evotune_run(header);
  EXPECT_EQ(r.exit_code, 2) << describe(header, r);
  EXPECT_TRUE(every_line_is_evotunes(r)) << describe(header, r);
  // A database path with a line break, that is not a database (StoreError), and an output that cannot be
  // created (std::runtime_error: no file can be made in /proc).
  const fs::path broken = dir.path() / "two\nlines.db";
  evotune::testing::write_bytes(broken, std::string(8192, 'x'));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"runs", "--db", broken.string()},
        std::vector<std::string>{"export", "--format", "csv", "--db", db.string(), "--out",
                                 "/proc/two\nlines.csv"}}) {
    r = evotune_run(args);
    EXPECT_EQ(r.exit_code, 1) << describe(args, r);
    EXPECT_EQ(line_count(r.stderr_text), 1) << describe(args, r);
    EXPECT_NE(r.stderr_text.find("two\\nlines"), std::string::npos) << describe(args, r);
  }
}

// Bytes that are not UTF-8, in a path or in a database's text, are printed and stored as valid JSON (each
// such byte as U+FFFD) instead of failing with nlohmann-json's error: a search of a recorded space whose name
// has one records its run, and the JSON outputs of a database whose text has them parse.
TEST(Utf8, NonUtf8PathsAndDatabaseTextGiveValidJson) {
  TempDir dir;
  const fs::path space = dir.path() / "\xfe space.json.gz";
  fs::copy_file(t4_path(kSpace), space);
  const fs::path db = dir.path() / "\xff.db";
  const std::vector<std::string> search = {"search", "--replay", space.string(), "--budget",
                                           "5",      "--db",     db.string()};
  ProcessResult r = evotune_run(search);
  ASSERT_EQ(r.exit_code, 0) << describe(search, r);
  {
    Store store(db.string(), Store::Mode::read_only);
    ASSERT_EQ(store.trials(1).size(), 5u);
    EXPECT_FALSE(nlohmann::json::parse(store.run_info(1)->options_json, nullptr, false).is_discarded());
  }
  // char(255) would be U+00FF, valid UTF-8: the raw bytes are cast from blobs.
  sql(db,
      "UPDATE trials SET error = 'bad ' || CAST(X'FF' AS TEXT) || ' byte',"
      " resources = '{\"x\": \"' || CAST(X'FE' AS TEXT) || '\"}', config = config || CAST(X'FF' AS TEXT)"
      " WHERE seq = 0");
  const fs::path outputs = dir.path() / "outputs";
  fs::create_directories(outputs);
  const std::vector<std::vector<std::string>> commands = {
      {"top", "--format", "json", "--db", db.string()},
      {"log", "--format", "json", "--db", db.string()},
      {"export", "--format", "t4", "--db", db.string()},
      {"export", "--format", "csv", "--db", db.string(), "--out", (outputs / "t.csv").string()},
      {"report", "--db", db.string(), "-o", (outputs / "r.html").string()},
  };
  for (const std::vector<std::string>& args : commands) {
    r = evotune_run(args);
    EXPECT_EQ(r.exit_code, 0) << describe(args, r);
    EXPECT_EQ(r.stderr_text.find("json.exception"), std::string::npos) << describe(args, r);
    if (args[1] == "--format" && args[2] == "json") {
      EXPECT_FALSE(
          nlohmann::json::parse(r.output.substr(0, r.output.rfind(']') + 1), nullptr, false).is_discarded())
          << describe(args, r);
    }
  }
}

// A search that fails before it records anything leaves no new database behind: the file is created by the
// first record, not by opening the store for writing; until then the store reads as empty.
TEST(Store, ANewDatabaseIsCreatedByItsFirstRecordOnly) {
  TempDir dir;
  const fs::path db = dir.path() / "new.db";
  {
    Store store(db.string(), Store::Mode::read_write);
    EXPECT_TRUE(store.runs().empty());
    EXPECT_FALSE(store.latest_run().has_value());
    EXPECT_TRUE(store.best_of_each_run("attention").empty());
    EXPECT_FALSE(fs::exists(db));
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  {
    Store store(db.string(), Store::Mode::read_write);
    evotune::evidence::RunInfo info;
    info.family = "replay";
    info.problem = "p";
    info.problem_json = "{}";
    info.strategy = "random";
    const std::int64_t run = store.create_run(info);
    EXPECT_TRUE(fs::exists(db));
    EXPECT_EQ(store.runs().size(), 1u);
    EXPECT_TRUE(store.run_info(run).has_value());
  }
  EXPECT_EQ(Store(db.string(), Store::Mode::read_only).schema_version(), evotune::evidence::kSchemaVersion);
}
