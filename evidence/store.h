#pragma once
// The evidence store: one SQLite file (WAL) holding devices, runs, every trial and every raw timing
// sample, plus the evo_log view. The store is the only writer; each finished trial is one transaction, so
// a crash loses at most the trial in flight. A database that is locked, corrupt, or from a newer schema
// is reported and never modified.
//
// It depends only on plain data: problems, configs and resources arrive as JSON text; the records are
// core/trial.h's (also named evidence::TrialRecord etc.).
#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/trial.h"

namespace evotune::evidence {

// 1: devices, runs, trials, samples, evo_log. 2: + baselines. 3: trial status compile_timeout (the
// trials table rebuilt), + retimes (written for a while without it). 4: runs.space_path and runs.space_sha256
// (the recorded space a replay run searched), + run_claims (which process is running a run). An older file
// is given what it lacks (by the tables and columns it holds, not only its version) in place, in one
// transaction, when opened for writing; reading one works as is, and reads what is there.
constexpr int kSchemaVersion = 4;

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether `path` is a database evotune has written its schema into: false for a missing file or an empty
// one (another search may have only just created it). Never writes; StoreError for a file it cannot read.
bool holds_evotune_schema(const std::string& path);

// The process that holds a run (Store::claim_run).
struct RunOwner {
  std::int64_t pid = 0;
  std::string host;
  std::string claimed_at;
};

// What a baseline stands for, from its detail's "role" (written by the family that measured it): a library
// kernel the user already has (the headline's bar), a reference pipeline timed like a trial, or a measured
// peak of compute or bandwidth (the roofline's roofs). Records written before roles existed are read by
// their names (sdpa_*, cublas_unfused, peak_gemm, peak_copy).
enum class BaselineRole { library, reference, peak_compute, peak_bandwidth, other };
BaselineRole baseline_role(const BaselineRecord& baseline);

// The fastest library kernel among a run's baselines (PyTorch SDPA's backends, named sdpa_*; measured by
// families/attention/host/library_baseline.h) that has a median, or null: what the report's headline compares with.
const BaselineRecord* strongest_library_baseline(const std::vector<BaselineRecord>& baselines);

struct RunRow {
  std::int64_t id = 0;
  std::string created_at, finished_at, status, family, problem, strategy, device;  // finished_at: empty while running
  int budget = 0, trials = 0, valid = 0;
  std::optional<double> best_us;
  std::uint64_t seed = 0;
};

struct EvoLogRow {
  std::int64_t run_id = 0;
  int generation = 0, evaluated = 0, valid = 0;
  std::optional<double> generation_best_us, best_so_far_us, generation_median_us;
};

class Store {
 public:
  enum class Mode { read_only, read_write };
  // read_write creates the file and schema when missing, at the first create_run (so that a command that
  // fails before it records anything leaves no new database behind; until then the store reads as empty).
  // Several processes may do so at once: the schema is created once, in one write transaction. Throws
  // StoreError for a locked, corrupt or newer-schema database, before writing anything. read_only never
  // writes, refuses an empty file, leaves no -wal or -shm behind that was not there, and reads a WAL database
  // also from a directory this process cannot write (see open_for_reading and open_read_only in store.cpp for
  // how, and when that is safe). `path` is a file's: "" and ":memory:" are refused.
  Store(const std::string& path, Mode mode);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  std::int64_t create_run(const RunInfo& info);
  void record_trial(std::int64_t run_id, const TrialRecord& trial);
  void finish_run(std::int64_t run_id, const std::string& status);
  // Claims the run for this process, so that no other process records trials into it at the same time:
  // returns nullopt when the claim is this process's now, else the live process that holds it. A claim
  // whose owner is gone (it crashed, or was killed with SIGKILL) is taken over: an owner on this host is
  // alive while a process with its pid and its start time runs. An owner on another host cannot be
  // checked and counts as alive. Checked and taken in one write transaction.
  std::optional<RunOwner> claim_run(std::int64_t run_id);
  // Gives up this process's claim on the run (nothing when it holds none).
  void release_run(std::int64_t run_id);
  void record_baseline(std::int64_t run_id, const BaselineRecord& baseline);
  // Every record in one transaction.
  void record_retimes(std::int64_t run_id, const std::vector<RetimeRecord>& retimes);

  std::optional<RunInfo> run_info(std::int64_t run_id) const;
  std::vector<RunRow> runs() const;
  std::optional<std::int64_t> latest_run() const;
  std::vector<TrialRecord> trials(std::int64_t run_id) const;  // in seq order
  std::vector<TrialRecord> top(std::int64_t run_id, int k) const;  // fastest ok trials
  std::vector<EvoLogRow> evo_log(std::optional<std::int64_t> run_id) const;
  // Every baseline recorded for the run, oldest first (a resumed run may have measured them again).
  std::vector<BaselineRecord> baselines(std::int64_t run_id) const;
  std::vector<RetimeRecord> retimes(std::int64_t run_id) const;  // in the order recorded
  // The run's re-timed configs by their median over rounds, fastest first (empty without retimes).
  struct Confirmed {
    std::string config_key;
    double median_us = 0;
  };
  std::vector<Confirmed> confirmed(std::int64_t run_id) const;
  // The fastest ok trial of every run of `family` on `problem` (best first), for seeding new searches.
  std::vector<TrialRecord> best_per_run(const std::string& family, const std::string& problem) const;
  // The winner of every run of `family` on any problem, with that run's problem and device: the config
  // confirmed by re-timing (the lowest median over the `retimes` rounds) where the run has them, else its
  // fastest ok trial.
  struct RunBest {
    std::int64_t run_id = 0;
    std::string problem, device;
    TrialRecord best;
  };
  std::vector<RunBest> best_of_each_run(const std::string& family) const;
  int schema_version() const;

 private:
  void exec(const char* sql) const;
  // Runs `work` between BEGIN IMMEDIATE and COMMIT; if it throws, rolls back and rethrows.
  void in_transaction(const std::function<void()>& work);
  // Opens (or creates) path_ for writing, validated first, and gives it what its schema lacks.
  void open_for_writing();
  void open_and_migrate(int version);
  // StoreError when the file has not been created yet: no run `run_id` can be in it.
  void require_created(std::int64_t run_id) const;
  void migrate_trials_table();
  void set_wal_mode();
  // The parts of the schema that came after version 1, as the file holds them: what a reader may query.
  struct Layout {
    bool baselines = false, retimes = false, run_claims = false, space_columns = false;
    bool trials_admit_compile_timeout = false;
    bool complete() const {
      return baselines && retimes && run_claims && space_columns && trials_admit_compile_timeout;
    }
  };
  Layout read_layout() const;
  bool has_table(const char* name) const;
  bool has_column(const char* table, const char* column) const;
  Layout layout_;
  sqlite3* db_ = nullptr;  // null only for read_write on a file not created yet (see the constructor)
  std::string path_;
};

}  // namespace evotune::evidence
