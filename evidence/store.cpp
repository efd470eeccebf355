#include "evidence/store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace evotune::evidence {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  properties TEXT NOT NULL,          -- JSON, as `evotune devices --json` prints it
  UNIQUE (name, properties)
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  finished_at TEXT,
  status TEXT NOT NULL DEFAULT 'running',  -- running, finished, interrupted, failed
  family TEXT NOT NULL,
  problem TEXT NOT NULL,
  problem_json TEXT NOT NULL,
  strategy TEXT NOT NULL,
  seed INTEGER NOT NULL,
  budget INTEGER NOT NULL,
  device_id INTEGER REFERENCES devices (id),
  versions TEXT NOT NULL,
  options TEXT NOT NULL
);
CREATE TABLE samples (
  trial_id INTEGER NOT NULL REFERENCES trials (id),
  idx INTEGER NOT NULL,
  time_us REAL NOT NULL,
  PRIMARY KEY (trial_id, idx)
) WITHOUT ROWID;
)sql";

// The trials table (schema 3: status may be compile_timeout), its index and the evo_log view over it.
// A version 1 or 2 file gets them by SQLite's table-rebuild procedure (see migrate_trials_table).
// The CHECK list is the names of core::kTrialStatuses (test TrialStatus.StoreCheckListIsTheStatusNames
// holds them equal), and the SQL here and below compares with those names as literals ('ok' is
// status_name(TrialStatus::ok)): a file keeps the names it was written with, so renaming one takes a
// migration, not only an edit of the enum.
constexpr const char* kTrialsTable = R"sql(
CREATE TABLE trials (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  seq INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  config_key TEXT NOT NULL,
  config TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'invalid', 'compile_error', 'compile_timeout', 'launch_error',
                                         'wrong_result', 'timeout', 'crash', 'compiled')),
  resources TEXT,
  max_abs_error REAL,
  rel_l2_error REAL,
  median_us REAL,
  min_us REAL,
  p10_us REAL,
  p90_us REAL,
  tflops REAL,
  gbps REAL,
  compile_seconds REAL,
  error TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (run_id, seq),
  UNIQUE (run_id, config_key)
);
)sql";
constexpr const char* kTrialsIndexAndView = R"sql(
CREATE INDEX trials_by_time ON trials (run_id, status, median_us);
-- One row per run x generation: what was evaluated, how much of it was valid, the generation's best and
-- median (valid trials, lower median), and the best so far.
CREATE VIEW evo_log AS
WITH ranked AS (
  SELECT run_id, generation, median_us,
         ROW_NUMBER() OVER (PARTITION BY run_id, generation ORDER BY median_us) AS position,
         COUNT(*) OVER (PARTITION BY run_id, generation) AS count
  FROM trials WHERE status = 'ok'
), medians AS (
  SELECT run_id, generation, median_us AS generation_median_us FROM ranked WHERE position = (count + 1) / 2
), generations AS (
  SELECT run_id, generation, COUNT(*) AS evaluated, SUM(status = 'ok') AS valid,
         MIN(CASE WHEN status = 'ok' THEN median_us END) AS generation_best_us
  FROM trials GROUP BY run_id, generation
)
SELECT g.run_id, g.generation, g.evaluated, g.valid, g.generation_best_us,
       MIN(g.generation_best_us) OVER (PARTITION BY g.run_id ORDER BY g.generation
                                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS best_so_far_us,
       m.generation_median_us
FROM generations g LEFT JOIN medians m ON m.run_id = g.run_id AND m.generation = g.generation
ORDER BY g.run_id, g.generation;
)sql";

// Schema 3: the search's top configs re-timed interleaved after the search (see RetimeRecord). For a while
// schema 3 was written without it (evidence/results/h100/search-throughput/call3_ab0fd01): IF NOT EXISTS.
constexpr const char* kRetimesTable = R"sql(
CREATE TABLE IF NOT EXISTS retimes (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  config_key TEXT NOT NULL,          -- a trial of the run (trials.config_key)
  round INTEGER NOT NULL,            -- 0, 1, ...: every config is timed once per round, in the same order
  median_us REAL NOT NULL,           -- of that round's flushed samples
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
)sql";

// Schema 2: reference points measured beside the trials of a run (see BaselineRecord).
constexpr const char* kBaselinesTable = R"sql(
CREATE TABLE IF NOT EXISTS baselines (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  name TEXT NOT NULL,                -- cublas_unfused, peak_gemm, peak_copy
  median_us REAL,
  p10_us REAL,
  p90_us REAL,
  tflops REAL,
  gbps REAL,
  max_abs_error REAL,
  detail TEXT NOT NULL DEFAULT '{}', -- JSON
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
)sql";

// Schema 4: the recorded space of a replay run (so a resume can refuse another or a changed one), and the
// process that runs a run (so a second resume of it is refused while the first is alive).
// space_path: the absolute path of the recorded space (replay runs); space_sha256: the SHA-256 of its
// bytes, hex.
constexpr const char* kSpaceColumns[][2] = {
    {"space_path", "ALTER TABLE runs ADD COLUMN space_path TEXT"},
    {"space_sha256", "ALTER TABLE runs ADD COLUMN space_sha256 TEXT"},
};
constexpr const char* kRunClaimsTable = R"sql(
CREATE TABLE IF NOT EXISTS run_claims (
  run_id INTEGER PRIMARY KEY REFERENCES runs (id),
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  process_start TEXT NOT NULL,       -- the owner's start time (/proc/PID/stat), so a reused pid is not taken for it
  claimed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
)sql";

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      throw StoreError(fmt::format("SQLite cannot prepare '{}': {}", sql, sqlite3_errmsg(db)));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, const std::optional<double>& v) {
    if (v) {
      sqlite3_bind_double(stmt_, i, *v);
    } else {
      sqlite3_bind_null(stmt_, i);
    }
    return *this;
  }
  // true while a row is available.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw StoreError(describe(rc));
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string text(int i) const {
    const unsigned char* t = sqlite3_column_text(stmt_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  std::int64_t integer(int i) const { return sqlite3_column_int64(stmt_, i); }
  sqlite3_stmt* get() { return stmt_; }
  std::optional<double> real(int i) const {
    if (sqlite3_column_type(stmt_, i) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(stmt_, i);
  }

 private:
  std::string describe(int rc) const {
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) return "the database is locked by another process (busy)";
    return fmt::format("SQLite error: {}", sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string open_error(const std::string& path, sqlite3* db, int rc) {
  const char* message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
    return fmt::format("{} is not a usable evotune database (corrupt or not SQLite: {}); it was not modified", path,
                       message);
  }
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
    return fmt::format("{} is locked by another process; try again when it is done", path);
  }
  return fmt::format("cannot open {}: {}", path, message);
}

// "file:" URI for `path` (absolute, percent-encoded), for the immutable open below.
std::string file_uri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : std::filesystem::absolute(path).string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return uri + "?immutable=1";
}

// Runs a first read, which is where SQLite opens the WAL's -shm file; returns its result code.
int first_read(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master", -1, &stmt, nullptr);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  return rc;
}

// Opens `path` for reading only. A reader of a WAL database needs the -shm file beside it, and creates it
// when it is missing (SQLite, https://www.sqlite.org/wal.html, "Read-Only Databases"); in a directory this
// process cannot write that fails. Then, and only when there is no -wal file, the database is opened as
// immutable (read as the file is, with neither locks nor -shm). That is safe there: every writer of a WAL
// database has its -wal file open, and with none, everything committed is in the database file itself. A
// writer that starts later, and checkpoints into the file while this short read runs, could be read half
// done: that is the one risk taken, for commands that only read. With a -wal file and no -shm, the
// commits in the -wal cannot be read safely, and the open is refused, saying what to do.
sqlite3* open_read_only(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, 2000);
    rc = first_read(db);
    if (rc == SQLITE_OK) return db;
  }
  const std::string message = open_error(path, db, rc);
  sqlite3_close(db);
  db = nullptr;
  const int primary = rc & 0xff;
  if (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY) throw StoreError(message);
  std::error_code ec;
  if (std::filesystem::exists(path + "-wal", ec)) {
    throw StoreError(fmt::format(
        "cannot read {}: its write-ahead log {}-wal may hold commits not yet in the database, and SQLite cannot "
        "create {}-shm to read them (the directory is not writable); open it once where it can be written, or "
        "copy {} and its -wal to a writable directory",
        path, path, path, path));
  }
  rc = sqlite3_open_v2(file_uri(path).c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  if (rc == SQLITE_OK) rc = first_read(db);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    throw StoreError(message);
  }
  return db;
}

// Whether this process may write `path` and create files in its directory (where SQLite keeps -wal and -shm).
bool writable_here(const std::string& path) {
  const std::filesystem::path file(path);
  const std::string directory = file.has_parent_path() ? file.parent_path().string() : std::string(".");
  return ::access(path.c_str(), W_OK) == 0 && ::access(directory.c_str(), W_OK | X_OK) == 0;
}

// Opens `path` to read, never to write, leaving nothing beside it that was not there.
//
// A reader of a WAL database opens its -wal and -shm files, creating them when they are missing, and only a
// connection that can write removes them when it closes as the last one: a read-only connection leaves an
// empty -wal and a 32 KiB -shm beside a clean database. So where this process can write the file and its
// directory, and there is no -wal or -journal beside it (no writer at work, none that crashed with commits
// not yet in the file), the file is opened read-write under PRAGMA query_only, which refuses every statement
// that would write; closing it removes the -wal and -shm the open created, and nothing else. That is an
// ordinary SQLite connection, with SQLite's own locks, so a writer that starts meanwhile is as safe as beside
// any reader; the one write it can make is the checkpoint a last connection makes on close, of that writer's
// commits: what the writer would have done itself. Everywhere else (a -wal there, or no right to write) the
// read-only open below, which leaves the files as they are.
sqlite3* open_for_reading(const std::string& path) {
  std::error_code ec;
  const bool pending =
      std::filesystem::exists(path + "-wal", ec) || std::filesystem::exists(path + "-journal", ec);
  if (pending || !writable_here(path)) return open_read_only(path);
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA query_only = ON", nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, 2000);
    rc = first_read(db);
  }
  if (rc == SQLITE_OK && sqlite3_db_readonly(db, "main") == 0) return db;
  const std::string message = open_error(path, db, rc);
  sqlite3_close(db);
  const int primary = rc & 0xff;
  if (rc != SQLITE_OK && primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY && primary != SQLITE_PERM) {
    throw StoreError(message);
  }
  return open_read_only(path);
}

// Closes a connection when it goes out of scope.
struct Closer {
  sqlite3* db;
  ~Closer() { sqlite3_close(db); }
};

// Reads user_version and runs a quick integrity check on a connection that never writes, so that nothing is
// written to a database we are about to refuse.
int validated_schema_version(sqlite3* db, const std::string& path) {
  auto scalar = [&](const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    int prc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
    if (prc != SQLITE_OK) throw StoreError(open_error(path, db, sqlite3_errcode(db)));
    int src = sqlite3_step(stmt);
    std::string value = src == SQLITE_ROW && sqlite3_column_text(stmt, 0)
                            ? reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))
                            : "";
    int code = sqlite3_errcode(db);
    sqlite3_finalize(stmt);
    if (src != SQLITE_ROW && src != SQLITE_DONE) throw StoreError(open_error(path, db, code));
    return value;
  };
  // One read transaction: every answer below from the same snapshot, even while another process creates
  // the schema (it would otherwise look like version 0 with tables: "not an evotune database").
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  struct EndRead {
    sqlite3* db;
    ~EndRead() { sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr); }
  } end_read{db};
  std::string check = scalar("PRAGMA quick_check");
  if (check != "ok") {
    throw StoreError(
        fmt::format("{} failed SQLite's integrity check ({}); it was not modified", path, check));
  }
  int version = std::stoi(scalar("PRAGMA user_version"));
  if (version > kSchemaVersion) {
    throw StoreError(fmt::format("{} was written by a newer evotune (schema {}, this build reads up to {}); it was not modified",
                                 path, version, kSchemaVersion));
  }
  if (version == 0 && std::stoi(scalar("SELECT COUNT(*) FROM sqlite_master")) > 0) {
    throw StoreError(fmt::format("{} is an SQLite database but not an evotune one; it was not modified", path));
  }
  return version;
}

// A database file is named by a path; SQLite would take "" for a temporary database and ":memory:" for one
// in memory, gone when the command ends.
void require_file_path(const std::string& path) {
  if (path.empty() || path == ":memory:") {
    throw StoreError(fmt::format(
        "'{}' is not a file evotune can keep evidence in: give the path of a database file", path));
  }
}

}  // namespace

bool holds_evotune_schema(const std::string& path) {
  require_file_path(path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return false;
  sqlite3* db = open_for_reading(path);
  Closer closer{db};
  return validated_schema_version(db, path) > 0;
}

Store::Store(const std::string& path, Mode mode) : path_(path) {
  require_file_path(path);
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (ec) throw StoreError(fmt::format("cannot open {}: {}", path, ec.message()));
  if (!exists && mode == Mode::read_only) throw StoreError(fmt::format("no evotune database at {}", path));
  if (mode == Mode::read_only) {
    db_ = open_for_reading(path);
    try {
      if (validated_schema_version(db_, path) == 0) {
        throw StoreError(
            fmt::format("{} is empty, not an evotune database (no search has recorded into it)", path));
      }
      exec("PRAGMA foreign_keys = ON");
      layout_ = read_layout();
    } catch (...) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw;
    }
    return;
  }
  // A missing file is created by the first record (create_run), not here: a command that fails before it has
  // anything to record leaves no new, empty database behind. Until then the store reads as empty.
  if (exists) open_for_writing();
}

void Store::open_for_writing() {
  int version = 0;
  std::error_code ec;
  if (std::filesystem::exists(path_, ec)) {  // (again: another process may have created it meanwhile)
    sqlite3* probe = open_for_reading(path_);
    Closer closer{probe};
    version = validated_schema_version(probe, path_);
  }
  try {
    open_and_migrate(version);
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

void Store::open_and_migrate(int version) {
  const std::string& path = path_;
  int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) throw StoreError(open_error(path, db_, rc));
  sqlite3_busy_timeout(db_, 5000);
  exec("PRAGMA foreign_keys = ON");
  set_wal_mode();
  exec("PRAGMA synchronous = NORMAL");  // with WAL: a committed trial survives a process crash
  if (version < kSchemaVersion || !read_layout().complete()) {
    // A new file gets every table; an older one gets what it lacks, decided by what it holds (a schema-3
    // file may lack retimes), in one transaction, so a failed migration leaves it exactly as it was.
    // Nothing recorded is lost. Foreign keys are off while the trials table is rebuilt (SQLite's
    // procedure; the pragma is a no-op inside a transaction) and checked before the commit.
    exec("PRAGMA foreign_keys = OFF");
    try {
      in_transaction([&] {
        // The version again, under the write lock: another process may have created or migrated the
        // file since it was read above (two searches starting on one new database at once).
        version = schema_version();
        if (version > kSchemaVersion) {
          throw StoreError(
              fmt::format("{} was written by a newer evotune (schema {}, this build reads up to {}); "
                          "it was not modified",
                          path, version, kSchemaVersion));
        }
        if (version == 0) {
          Statement tables(db_, "SELECT COUNT(*) FROM sqlite_master");
          if (tables.step() && tables.integer(0) > 0) {
            throw StoreError(fmt::format("{} is an SQLite database but not an evotune one; it was not modified", path));
          }
          exec(kSchema);
          exec(kTrialsTable);
          exec(kTrialsIndexAndView);
        }
        const Layout has = read_layout();
        if (!has.trials_admit_compile_timeout) migrate_trials_table();
        if (!has.baselines) exec(kBaselinesTable);
        if (!has.retimes) exec(kRetimesTable);
        if (!has.run_claims) exec(kRunClaimsTable);
        if (!has.space_columns) {
          for (const auto& [column, add] : kSpaceColumns) {
            if (!has_column("runs", column)) exec(add);
          }
        }
        if (version < kSchemaVersion) exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str());
      });
    } catch (...) {
      exec("PRAGMA foreign_keys = ON");
      throw;
    }
    exec("PRAGMA foreign_keys = ON");
  }
  layout_ = read_layout();
}

bool Store::has_table(const char* name) const {
  Statement s(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  s.bind(1, std::string(name));
  return s.step();
}

bool Store::has_column(const char* table, const char* column) const {
  Statement s(db_, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
  s.bind(1, std::string(table)).bind(2, std::string(column));
  return s.step();
}

Store::Layout Store::read_layout() const {
  Layout has;
  has.baselines = has_table("baselines");
  has.retimes = has_table("retimes");
  has.run_claims = has_table("run_claims");
  has.space_columns = has_column("runs", "space_path") && has_column("runs", "space_sha256");
  Statement trials(db_, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'trials'");
  has.trials_admit_compile_timeout =
      trials.step() && trials.text(0).find("'compile_timeout'") != std::string::npos;
  return has;
}

Store::~Store() { sqlite3_close(db_); }

void Store::set_wal_mode() {
  // WAL is a property of the file: once one process has set it, the others find it set. Setting it needs
  // the file to itself for a moment, and SQLite answers "busy" at once (no busy handler) while another
  // process has it open in the old mode, as when several searches create one new database together: so
  // it is tried again for a while.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    // The pragma answers with the mode the file is in afterwards.
    Statement set(db_, "PRAGMA journal_mode = WAL");
    const int rc = sqlite3_step(set.get());
    if (rc == SQLITE_ROW && set.text(0) == "wal") return;
    const int primary = rc & 0xff;
    const bool busy = primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
    if (std::chrono::steady_clock::now() > give_up || (!busy && rc != SQLITE_ROW)) {
      throw StoreError(busy ? fmt::format("{} is locked by another process; try again when it is done", path_)
                            : fmt::format("cannot put {} in WAL mode: {}", path_, sqlite3_errmsg(db_)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void Store::exec(const char* sql) const {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
      throw StoreError(fmt::format("{} is locked by another process; try again when it is done", path_));
    }
    throw StoreError(fmt::format("SQLite error on {}: {}", path_, message));
  }
}

void Store::migrate_trials_table() {
  // Schema 3 admits the status compile_timeout. SQLite cannot change a CHECK constraint in place, so the
  // table is rebuilt as its documentation prescribes: new table, copy every row, drop the old one (and
  // the view over it), rename, recreate index and view, check the foreign keys (samples -> trials).
  std::string create = kTrialsTable;
  create.replace(create.find("CREATE TABLE trials ("), 21, "CREATE TABLE trials_v3 (");
  exec(create.c_str());
  exec("INSERT INTO trials_v3 (id, run_id, seq, generation, config_key, config, status, resources, max_abs_error, "
       "rel_l2_error, median_us, min_us, p10_us, p90_us, tflops, gbps, compile_seconds, error, created_at) "
       "SELECT id, run_id, seq, generation, config_key, config, status, resources, max_abs_error, rel_l2_error, "
       "median_us, min_us, p10_us, p90_us, tflops, gbps, compile_seconds, error, created_at FROM trials");
  exec("DROP VIEW IF EXISTS evo_log");
  exec("DROP TABLE trials");
  exec("ALTER TABLE trials_v3 RENAME TO trials");
  exec(kTrialsIndexAndView);
  Statement check(db_, "PRAGMA foreign_key_check");
  if (check.step()) throw StoreError(fmt::format("migrating {} would break a foreign key; nothing was changed", path_));
}

void Store::require_created(std::int64_t run_id) const {
  if (!db_)
    throw StoreError(fmt::format("{} holds no run {}: nothing has been recorded into it", path_, run_id));
}

int Store::schema_version() const {
  if (!db_) return 0;  // not created yet
  Statement s(db_, "PRAGMA user_version");
  s.step();
  return static_cast<int>(s.integer(0));
}

std::int64_t Store::create_run(const RunInfo& info) {
  if (!db_) open_for_writing();
  std::int64_t id = 0;
  in_transaction([&] {
    std::optional<std::int64_t> device_id;
    if (!info.device.empty()) {
      Statement insert(db_, "INSERT OR IGNORE INTO devices (name, properties) VALUES (?, ?)");
      insert.bind(1, info.device).bind(2, info.device_json.empty() ? std::string("{}") : info.device_json).step();
      Statement find(db_, "SELECT id FROM devices WHERE name = ? AND properties = ?");
      find.bind(1, info.device).bind(2, info.device_json.empty() ? std::string("{}") : info.device_json);
      if (find.step()) device_id = find.integer(0);
    }
    Statement s(db_,
                "INSERT INTO runs (family, problem, problem_json, strategy, seed, budget, device_id, versions, options,"
                " space_path, space_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''))");
    s.bind(1, info.family).bind(2, info.problem).bind(3, info.problem_json).bind(4, info.strategy);
    s.bind(5, static_cast<std::int64_t>(info.seed)).bind(6, static_cast<std::int64_t>(info.budget));
    if (device_id) s.bind(7, *device_id);
    s.bind(8, info.versions).bind(9, info.options_json.empty() ? std::string("{}") : info.options_json);
    s.bind(10, info.space_path).bind(11, info.space_sha256);
    s.step();
    id = sqlite3_last_insert_rowid(db_);
  });
  return id;
}

void Store::record_trial(std::int64_t run_id, const TrialRecord& t) {
  require_created(run_id);
  in_transaction([&] {
    Statement s(db_,
                "INSERT INTO trials (run_id, seq, generation, config_key, config, status, resources, max_abs_error,"
                " rel_l2_error, median_us, min_us, p10_us, p90_us, tflops, gbps, compile_seconds, error)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, run_id).bind(2, static_cast<std::int64_t>(t.seq)).bind(3, static_cast<std::int64_t>(t.generation));
    s.bind(4, t.config_key).bind(5, t.config).bind(6, std::string(core::status_name(t.status)));
    s.bind(7, t.resources_json.empty() ? std::string("{}") : t.resources_json);
    s.bind(8, t.max_abs_error).bind(9, t.rel_l2_error).bind(10, t.median_us).bind(11, t.min_us);
    s.bind(12, t.p10_us).bind(13, t.p90_us).bind(14, t.tflops).bind(15, t.gbps).bind(16, t.compile_seconds);
    s.bind(17, t.error);
    s.step();
    std::int64_t trial_id = sqlite3_last_insert_rowid(db_);
    Statement sample(db_, "INSERT INTO samples (trial_id, idx, time_us) VALUES (?, ?, ?)");
    for (std::size_t i = 0; i < t.samples_us.size(); ++i) {
      sample.bind(1, trial_id).bind(2, static_cast<std::int64_t>(i)).bind(3, t.samples_us[i]);
      sample.step();
      sample.reset();
    }
  });
}

void Store::finish_run(std::int64_t run_id, const std::string& status) {
  require_created(run_id);
  Statement s(db_, "UPDATE runs SET status = ?, finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?");
  s.bind(1, status).bind(2, run_id).step();
}

void Store::record_baseline(std::int64_t run_id, const BaselineRecord& b) {
  require_created(run_id);
  Statement s(db_,
              "INSERT INTO baselines (run_id, name, median_us, p10_us, p90_us, tflops, gbps, max_abs_error, detail)"
              " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, run_id).bind(2, b.name).bind(3, b.median_us).bind(4, b.p10_us).bind(5, b.p90_us).bind(6, b.tflops);
  s.bind(7, b.gbps).bind(8, b.max_abs_error).bind(9, b.detail_json.empty() ? std::string("{}") : b.detail_json);
  s.step();
}

void Store::record_retimes(std::int64_t run_id, const std::vector<RetimeRecord>& retimes) {
  require_created(run_id);
  in_transaction([&] {
    Statement s(db_, "INSERT INTO retimes (run_id, config_key, round, median_us) VALUES (?, ?, ?, ?)");
    for (const RetimeRecord& r : retimes) {
      s.bind(1, run_id).bind(2, r.config_key).bind(3, static_cast<std::int64_t>(r.round)).bind(4, r.median_us);
      s.step();
      s.reset();
    }
  });
}

void Store::in_transaction(const std::function<void()>& work) {
  exec("BEGIN IMMEDIATE");
  try {
    work();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<RetimeRecord> Store::retimes(std::int64_t run_id) const {
  if (!db_) return {};  // not created yet: nothing recorded
  std::vector<RetimeRecord> out;
  if (!layout_.retimes) return out;  // a file from before retimes (opened read-only): none were made
  Statement s(db_, "SELECT config_key, round, median_us FROM retimes WHERE run_id = ? ORDER BY id");
  s.bind(1, run_id);
  while (s.step()) out.push_back({s.text(0), static_cast<int>(s.integer(1)), *s.real(2)});
  return out;
}

std::vector<BaselineRecord> Store::baselines(std::int64_t run_id) const {
  if (!db_) return {};  // not created yet: nothing recorded
  std::vector<BaselineRecord> out;
  if (!layout_.baselines) return out;  // a version-1 file opened read-only: none were measured
  Statement s(db_,
              "SELECT name, median_us, p10_us, p90_us, tflops, gbps, max_abs_error, detail, created_at FROM baselines"
              " WHERE run_id = ? ORDER BY id");
  s.bind(1, run_id);
  while (s.step()) {
    BaselineRecord b;
    b.name = s.text(0);
    b.median_us = s.real(1);
    b.p10_us = s.real(2);
    b.p90_us = s.real(3);
    b.tflops = s.real(4);
    b.gbps = s.real(5);
    b.max_abs_error = s.real(6);
    b.detail_json = s.text(7);
    b.created_at = s.text(8);
    out.push_back(std::move(b));
  }
  return out;
}

std::optional<RunInfo> Store::run_info(std::int64_t run_id) const {
  if (!db_) return {};  // not created yet: nothing recorded
  // Before schema 4 (an older file opened read-only) no run recorded its space.
  const char* space =
      layout_.space_columns ? "COALESCE(r.space_path, ''), COALESCE(r.space_sha256, '')" : "'', ''";
  Statement s(db_, fmt::format("SELECT r.family, r.problem, r.problem_json, r.strategy, r.seed, r.budget, COALESCE(d.name, ''),"
                               " COALESCE(d.properties, ''), r.versions, r.options, {}, r.status FROM runs r"
                               " LEFT JOIN devices d ON d.id = r.device_id WHERE r.id = ?",
                               space)
                       .c_str());
  s.bind(1, run_id);
  if (!s.step()) return std::nullopt;
  RunInfo i;
  i.family = s.text(0);
  i.problem = s.text(1);
  i.problem_json = s.text(2);
  i.strategy = s.text(3);
  i.seed = static_cast<std::uint64_t>(s.integer(4));
  i.budget = static_cast<int>(s.integer(5));
  i.device = s.text(6);
  i.device_json = s.text(7);
  i.versions = s.text(8);
  i.options_json = s.text(9);
  i.space_path = s.text(10);
  i.space_sha256 = s.text(11);
  i.status = s.text(12);
  return i;
}

namespace {

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

// The start time of a running process (field 22 of /proc/PID/stat, in clock ticks since boot), which
// tells it from a later process that got the same pid; nullopt when no such process runs (or it is a
// zombie), "" when /proc cannot tell (then the pid alone decides).
std::optional<std::string> running_process_start(std::int64_t pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!in || !std::getline(in, stat)) {
    if (!std::filesystem::exists("/proc/self/stat")) {
      if (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) return std::string();
    }
    return std::nullopt;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields count from the last ')'.
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field, state, start;
  for (int i = 3; fields >> field; ++i) {
    if (i == 3) state = field;
    if (i == 22) {
      start = field;
      break;
    }
  }
  if (state == "Z" || state == "X") return std::nullopt;
  return start;
}

}  // namespace

std::optional<RunOwner> Store::claim_run(std::int64_t run_id) {
  require_created(run_id);
  const std::int64_t me = getpid();
  const std::string host = this_host();
  const std::string my_start = running_process_start(me).value_or("");
  std::optional<RunOwner> holder;
  in_transaction([&] {
    Statement find(db_, "SELECT pid, host, process_start, claimed_at FROM run_claims WHERE run_id = ?");
    find.bind(1, run_id);
    if (find.step()) {
      RunOwner owner{find.integer(0), find.text(1), find.text(3)};
      const std::string owner_start = find.text(2);
      if (owner.pid == me && owner.host == host && owner_start == my_start) return;  // ours already
      const bool alive = owner.host != host || running_process_start(owner.pid) == owner_start;
      if (alive) {
        holder = owner;
        return;
      }
    }
    Statement take(db_, "INSERT OR REPLACE INTO run_claims (run_id, pid, host, process_start) VALUES (?, ?, ?, ?)");
    take.bind(1, run_id).bind(2, me).bind(3, host).bind(4, my_start).step();
  });
  return holder;
}

void Store::release_run(std::int64_t run_id) {
  if (!db_) return;
  Statement s(db_, "DELETE FROM run_claims WHERE run_id = ? AND pid = ? AND host = ?");
  s.bind(1, run_id).bind(2, static_cast<std::int64_t>(getpid())).bind(3, this_host()).step();
}

std::vector<RunRow> Store::runs() const {
  if (!db_) return {};  // not created yet: nothing recorded
  Statement s(db_,
              "SELECT r.id, r.created_at, r.status, r.family, r.problem, r.strategy, COALESCE(d.name, ''), r.budget,"
              " r.seed, COUNT(t.id), COALESCE(SUM(t.status = 'ok'), 0), MIN(CASE WHEN t.status = 'ok' THEN t.median_us END),"
              " COALESCE(r.finished_at, '') FROM runs r LEFT JOIN devices d ON d.id = r.device_id LEFT JOIN trials t ON t.run_id = r.id"
              " GROUP BY r.id ORDER BY r.id");
  std::vector<RunRow> rows;
  while (s.step()) {
    RunRow r;
    r.id = s.integer(0);
    r.created_at = s.text(1);
    r.status = s.text(2);
    r.family = s.text(3);
    r.problem = s.text(4);
    r.strategy = s.text(5);
    r.device = s.text(6);
    r.budget = static_cast<int>(s.integer(7));
    r.seed = static_cast<std::uint64_t>(s.integer(8));
    r.trials = static_cast<int>(s.integer(9));
    r.valid = static_cast<int>(s.integer(10));
    r.best_us = s.real(11);
    r.finished_at = s.text(12);
    rows.push_back(r);
  }
  return rows;
}

std::optional<std::int64_t> Store::latest_run() const {
  if (!db_) return {};  // not created yet: nothing recorded
  Statement s(db_, "SELECT MAX(id) FROM runs");
  if (s.step() && s.real(0)) return s.integer(0);
  return std::nullopt;
}

namespace {
constexpr const char* kTrialColumns =
    "t.id, t.seq, t.generation, t.config_key, t.config, t.status, COALESCE(t.resources, ''), t.max_abs_error,"
    " t.rel_l2_error, t.median_us, t.min_us, t.p10_us, t.p90_us, t.tflops, t.gbps, COALESCE(t.compile_seconds, 0),"
    " COALESCE(t.error, ''), t.created_at";

TrialRecord read_trial(sqlite3* db, Statement& s) {
  TrialRecord t;
  std::int64_t id = s.integer(0);
  t.seq = static_cast<int>(s.integer(1));
  t.generation = static_cast<int>(s.integer(2));
  t.config_key = s.text(3);
  t.config = s.text(4);
  const std::string status = s.text(5);
  const std::optional<TrialStatus> parsed = core::parse_status(status);
  // The table's CHECK admits only kTrialStatuses' names (a test holds them equal), so this is a file
  // edited by hand.
  if (!parsed) {
    throw StoreError(fmt::format("trial {} has status '{}', which evotune does not know", t.seq, status));
  }
  t.status = *parsed;
  t.resources_json = s.text(6);
  t.max_abs_error = s.real(7);
  t.rel_l2_error = s.real(8);
  t.median_us = s.real(9);
  t.min_us = s.real(10);
  t.p10_us = s.real(11);
  t.p90_us = s.real(12);
  t.tflops = s.real(13);
  t.gbps = s.real(14);
  t.compile_seconds = s.real(15).value_or(0);
  t.error = s.text(16);
  t.created_at = s.text(17);
  Statement samples(db, "SELECT time_us FROM samples WHERE trial_id = ? ORDER BY idx");
  samples.bind(1, id);
  while (samples.step()) t.samples_us.push_back(*samples.real(0));
  return t;
}
}  // namespace

std::vector<TrialRecord> Store::trials(std::int64_t run_id) const {
  if (!db_) return {};  // not created yet: nothing recorded
  Statement s(db_, fmt::format("SELECT {} FROM trials t WHERE t.run_id = ? ORDER BY t.seq", kTrialColumns).c_str());
  s.bind(1, run_id);
  std::vector<TrialRecord> out;
  while (s.step()) out.push_back(read_trial(db_, s));
  return out;
}

std::vector<TrialRecord> Store::top(std::int64_t run_id, int k) const {
  if (!db_) return {};  // not created yet: nothing recorded
  Statement s(db_, fmt::format("SELECT {} FROM trials t WHERE t.run_id = ? AND t.status = 'ok' ORDER BY t.median_us, t.seq"
                               " LIMIT ?", kTrialColumns)
                       .c_str());
  s.bind(1, run_id).bind(2, static_cast<std::int64_t>(k));
  std::vector<TrialRecord> out;
  while (s.step()) out.push_back(read_trial(db_, s));
  return out;
}

std::vector<TrialRecord> Store::best_per_run(const std::string& family, const std::string& problem) const {
  if (!db_) return {};  // not created yet: nothing recorded
  Statement s(db_, fmt::format("SELECT {} FROM trials t JOIN runs r ON r.id = t.run_id"
                               " WHERE r.family = ? AND r.problem = ? AND t.status = 'ok'"
                               " AND t.median_us = (SELECT MIN(u.median_us) FROM trials u"
                               "                    WHERE u.run_id = t.run_id AND u.status = 'ok')"
                               " GROUP BY t.run_id ORDER BY t.median_us",
                               kTrialColumns)
                       .c_str());
  s.bind(1, family).bind(2, problem);
  std::vector<TrialRecord> out;
  while (s.step()) out.push_back(read_trial(db_, s));
  return out;
}

std::vector<Store::RunBest> Store::best_of_each_run(const std::string& family) const {
  if (!db_) return {};  // not created yet: nothing recorded
  // Trial columns first (read_trial reads them by position), then the run's problem and device.
  Statement s(db_, fmt::format("SELECT {}, r.id, r.problem, COALESCE(d.name, '') FROM trials t"
                               " JOIN runs r ON r.id = t.run_id LEFT JOIN devices d ON d.id = r.device_id"
                               " WHERE r.family = ? AND t.status = 'ok'"
                               " AND t.median_us = (SELECT MIN(u.median_us) FROM trials u"
                               "                    WHERE u.run_id = t.run_id AND u.status = 'ok')"
                               " GROUP BY t.run_id ORDER BY r.id",
                               kTrialColumns)
                       .c_str());
  s.bind(1, family);
  std::vector<RunBest> out;
  while (s.step()) {
    RunBest r;
    r.best = read_trial(db_, s);
    r.run_id = s.integer(18);
    r.problem = s.text(19);
    r.device = s.text(20);
    out.push_back(std::move(r));
  }
  // Where the run's top configs were re-timed interleaved, the winner is the confirmed one.
  for (RunBest& r : out) {
    const std::vector<Confirmed> ranking = confirmed(r.run_id);
    if (ranking.empty() || ranking[0].config_key == r.best.config_key) continue;
    Statement t(db_, fmt::format("SELECT {} FROM trials t WHERE t.run_id = ? AND t.config_key = ? AND t.status = 'ok'",
                                 kTrialColumns)
                         .c_str());
    t.bind(1, r.run_id).bind(2, ranking[0].config_key);
    if (t.step()) r.best = read_trial(db_, t);
  }
  return out;
}

std::vector<Store::Confirmed> Store::confirmed(std::int64_t run_id) const {
  std::map<std::string, std::vector<double>> rounds;
  for (const RetimeRecord& t : retimes(run_id)) rounds[t.config_key].push_back(t.median_us);
  std::vector<Confirmed> out;
  for (auto& [key, medians] : rounds) {
    std::sort(medians.begin(), medians.end());
    const std::size_t n = medians.size();
    out.push_back({key, n % 2 ? medians[n / 2] : 0.5 * (medians[n / 2 - 1] + medians[n / 2])});
  }
  std::sort(out.begin(), out.end(), [](const Confirmed& a, const Confirmed& b) { return a.median_us < b.median_us; });
  return out;
}

std::vector<EvoLogRow> Store::evo_log(std::optional<std::int64_t> run_id) const {
  if (!db_) return {};  // not created yet: nothing recorded
  Statement s(db_,
              "SELECT run_id, generation, evaluated, valid, generation_best_us, best_so_far_us, generation_median_us"
              " FROM evo_log WHERE ?1 IS NULL OR run_id = ?1");
  if (run_id) s.bind(1, *run_id);
  std::vector<EvoLogRow> out;
  while (s.step()) {
    EvoLogRow r;
    r.run_id = s.integer(0);
    r.generation = static_cast<int>(s.integer(1));
    r.evaluated = static_cast<int>(s.integer(2));
    r.valid = static_cast<int>(s.integer(3));
    r.generation_best_us = s.real(4);
    r.best_so_far_us = s.real(5);
    r.generation_median_us = s.real(6);
    out.push_back(r);
  }
  return out;
}

BaselineRole baseline_role(const BaselineRecord& b) {
  const nlohmann::json detail = nlohmann::json::parse(b.detail_json.empty() ? "{}" : b.detail_json, nullptr, false);
  if (detail.is_object() && detail.contains("role") && detail["role"].is_string()) {
    const std::string role = detail["role"];
    if (role == "library") return BaselineRole::library;
    if (role == "reference") return BaselineRole::reference;
    if (role == "peak_compute") return BaselineRole::peak_compute;
    if (role == "peak_bandwidth") return BaselineRole::peak_bandwidth;
    return BaselineRole::other;
  }
  if (b.name.rfind("sdpa_", 0) == 0) return BaselineRole::library;
  if (b.name == "cublas_unfused") return BaselineRole::reference;
  if (b.name == "peak_gemm") return BaselineRole::peak_compute;
  if (b.name == "peak_copy") return BaselineRole::peak_bandwidth;
  return BaselineRole::other;
}

const BaselineRecord* strongest_library_baseline(const std::vector<BaselineRecord>& baselines) {
  const BaselineRecord* best = nullptr;
  for (const BaselineRecord& b : baselines) {
    if (baseline_role(b) != BaselineRole::library || !b.median_us || *b.median_us <= 0) continue;
    if (!best || *b.median_us < *best->median_us) best = &b;
  }
  return best;
}

}  // namespace evotune::evidence
