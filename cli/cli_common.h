#pragma once
// What every subcommand shares: global options, the compiler stack they imply, and output helpers.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "evidence/store.h"
#include "runtime/cubin_cache.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/target.h"

namespace evotune::cli {

struct GlobalOptions {
  std::string cache_dir;  // empty: runtime::default_cache_dir()
  bool no_cache = false;
};

// NVRTC, wrapped in the disk cache unless --no-cache.
class CompilerStack {
 public:
  explicit CompilerStack(const GlobalOptions& options);
  runtime::Compiler& compiler();
  const runtime::CubinCache* cache() const { return cache_ ? &*cache_ : nullptr; }

 private:
  runtime::NvrtcCompiler nvrtc_;
  std::optional<runtime::CubinCache> cache_;
  std::optional<runtime::CachingCompiler> caching_;
};

std::filesystem::path cache_dir(const GlobalOptions& options);

// A compile target this NVRTC can build: "sm_80", "sm_90a"; UsageError naming the ones it can otherwise
// (Target::parse alone takes any sm_<digits>, and NVRTC would refuse it only at the first compile).
runtime::Target compile_target(const std::string& text);

// For every floating-point option: CLI11 reads "nan" and "inf" as numbers, and a range check lets nan
// through (every comparison with it is false).
extern const CLI::Validator FiniteNumber;
// For every integer option: a whole number written in decimal, from lo to hi. CLI11 alone reads "-1" into
// an unsigned option as 2^64-1, saturates 99999999999999999999 to the type's maximum, and reads "010" as
// octal and "0x10" as hex; these are refused here, and so is anything outside [lo, hi].
CLI::Validator WholeNumber(std::int64_t lo, std::int64_t hi);
// Run ids as reading commands take them: any 64-bit integer (one the database lacks is its own error,
// "holds no run"), but not one beyond (CLI11 would saturate it to the maximum); --help shows just INT.
extern const CLI::Validator RunNumber;
inline constexpr std::int64_t kMaxRun = std::numeric_limits<std::int64_t>::max();
// Seeds: 0 to 2^63-1, exactly (the database keeps a seed as a signed 64-bit integer).
extern const CLI::Validator SeedNumber;
// The longest a trial or a compile may be given (one day): beyond it a deadline overflows the clock.
inline constexpr double kMaxTimeoutSeconds = 86400;

// The run a reading command works on: `requested` when given (UsageError when the database lacks it),
// else the latest (UsageError when there is none).
std::int64_t requested_or_latest_run(const evidence::Store& store, std::int64_t requested, const std::string& db);
// Refuses (UsageError) an output path that names the database `db` or one of SQLite's files beside it
// (-wal, -shm, -journal), by any name: relative, through symlinks, or a hard link to it. Every command
// that writes a file and reads a database calls it before it opens the database.
void refuse_database_as_output(const std::string& output, const std::string& db);

// --db must be a path SQLite can open as a file: not empty, not ":memory:", no name in it longer than the
// system allows, not longer than SQLite takes, not a directory. Otherwise a usage error (exit 2) in one line,
// before anything is opened or created (SQLite would take "" for a temporary database and answer the others
// late and raw).
void check_database_path(const std::string& db);
// A reading command's --db must name an existing file (and pass check_database_path): otherwise a usage error
// (exit 2), said in one line, before the store is opened.
void require_database(const std::string& db);
// `text` on one line, for a message: line breaks become \n and \r, other control bytes '?'. Every error
// message goes through it (cli/main.cpp), and so does whatever a progress message quotes from a database.
std::string one_line(const std::string& text);
// Writes `text` to `path`. A regular file, or a path that does not exist yet, is written to a temporary file
// of a unique name in its directory and renamed into place, so a reader never sees half a file, a failed
// write leaves an earlier file untouched and no temporary behind, and two writers never share a temporary.
// A symlink is never replaced itself: what it resolves to is written (a dangling one's target is created).
// A FIFO or a character device (/dev/null, a terminal, a named pipe) is written straight into, and
// /dev/stdout, /dev/fd/N and /proc/self/fd/N write into this process's descriptor, as "-" (or empty)
// writes standard output. A directory, block device or socket is a UsageError.
void write_output_file(const std::string& path, const std::string& text);
// Now, UTC, ISO 8601 to the second: "2026-11-21T19:03:47Z".
std::string utc_timestamp();

void add_devices_command(CLI::App& app, const GlobalOptions& globals);
void add_cache_command(CLI::App& app, const GlobalOptions& globals);
void add_families_command(CLI::App& app, const GlobalOptions& globals);
void add_compile_bench_command(CLI::App& app, const GlobalOptions& globals);
void add_compile_server_command(CLI::App& app, const GlobalOptions& globals);
void add_selftest_command(CLI::App& app, const GlobalOptions& globals);
void add_bench_command(CLI::App& app, const GlobalOptions& globals);
void add_compile_command(CLI::App& app, const GlobalOptions& globals);
void add_strategy_bench_command(CLI::App& app, const GlobalOptions& globals);
void add_search_command(CLI::App& app, const GlobalOptions& globals);
void add_worker_command(CLI::App& app, const GlobalOptions& globals);
void add_evidence_commands(CLI::App& app, const GlobalOptions& globals);
void add_export_command(CLI::App& app, const GlobalOptions& globals);
void add_report_command(CLI::App& app, const GlobalOptions& globals);

}  // namespace evotune::cli
