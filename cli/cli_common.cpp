#include "cli/cli_common.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <vector>

#include "runtime/errors.h"

namespace evotune::cli {

std::filesystem::path cache_dir(const GlobalOptions& options) {
  return options.cache_dir.empty() ? runtime::default_cache_dir() : std::filesystem::path(options.cache_dir);
}

runtime::Target compile_target(const std::string& text) {
  const runtime::Target target = runtime::Target::parse(text);
  const std::vector<int> supported = runtime::nvrtc_supported_architectures();
  const int cc = target.compute_capability();
  const bool known = std::find(supported.begin(), supported.end(), cc) != supported.end();
  // Arch-specific targets (the 'a' suffix) exist from Hopper on.
  if (!known || (target.arch_specific && cc < 90)) {
    std::vector<std::string> names;
    for (int arch : supported) names.push_back(fmt::format("sm_{}", arch));
    throw UsageError(fmt::format("unknown compile target '{}': NVRTC {} compiles for {} (and sm_90a or later with 'a')",
                                 text, runtime::nvrtc_version(), fmt::join(names, ", ")));
  }
  return target;
}

const CLI::Validator FiniteNumber(
    [](std::string& input) -> std::string {
      double value = 0;
      if (!CLI::detail::lexical_cast(input, value)) return fmt::format("{} is not a number", input);
      if (!std::isfinite(value)) return fmt::format("{} is not a finite number", input);
      return {};
    },
    "FINITE", "finite number");

CompilerStack::CompilerStack(const GlobalOptions& options) {
  if (!options.no_cache) {
    cache_.emplace(cache_dir(options));
    caching_.emplace(nvrtc_, *cache_);
  }
}

runtime::Compiler& CompilerStack::compiler() {
  if (caching_) return *caching_;
  return nvrtc_;
}

std::int64_t requested_or_latest_run(const evidence::Store& store, std::int64_t requested, const std::string& db) {
  if (requested != 0) {
    if (!store.run_info(requested)) {
      throw UsageError(fmt::format("{} holds no run {} (see evotune runs --db {})", db, requested, db));
    }
    return requested;
  }
  std::optional<std::int64_t> latest = store.latest_run();
  if (!latest) throw UsageError(fmt::format("{} holds no runs", db));
  return *latest;
}

namespace {

namespace fs = std::filesystem;

// Whether `a` and `b` are one file: the same inode when both exist (hard links, symlinks), else the same
// path once made absolute and stripped of symlinks, "." and "..".
bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  std::error_code ec1, ec2;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a), ec1), cb = fs::weakly_canonical(fs::absolute(b), ec2);
  return !ec1 && !ec2 && ca == cb;
}

// The process's umask, read without changing it (umask(2) would, for a moment, for every thread).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

}  // namespace

void refuse_database_as_output(const std::string& output, const std::string& db) {
  if (output.empty() || output == "-" || db.empty()) return;
  // SQLite keeps -wal and -shm beside the file a symlinked database name points to.
  std::vector<fs::path> bases = {db};
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(db), ec);
  if (!ec) bases.push_back(resolved);
  for (const fs::path& base : bases) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      if (same_file(output, base.string() + suffix)) {
        throw UsageError(fmt::format("refusing to write {}: it is {}the evidence database {}; choose another output",
                                     output, *suffix ? fmt::format("SQLite's {} file of ", suffix) : std::string(), db));
      }
    }
  }
}

std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == '\x7f') {
      out += '?';
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// The start of a long text, to quote in a message.
std::string abridged(const std::string& text) {
  constexpr std::size_t kShown = 48;
  return text.size() <= kShown ? text : text.substr(0, kShown) + "...";
}

}  // namespace

void check_database_path(const std::string& db) {
  if (db.empty()) throw UsageError("--db is empty: give the path of the evidence database");
  if (db == ":memory:") {
    throw UsageError(
        "--db :memory: would be SQLite's in-memory database, gone when evotune exits: give the path of "
        "a database file");
  }
  // The operating system and SQLite would refuse these only with their own words ("File name too long",
  // "unable to open database file"); said here, before anything is opened or created.
  for (const fs::path& part : fs::path(db)) {
    if (part.native().size() > NAME_MAX) {
      throw UsageError(
          fmt::format("--db {}: a name in it ({}) is {} bytes long; a file or directory name has at most {}",
                      abridged(db), abridged(part.native()), part.native().size(), NAME_MAX));
    }
  }
  // SQLite opens a database by its full path (symlinks resolved) only when that path and the suffix of its
  // journal ("-journal", 8 bytes) fit its VFS's limit (512 bytes on Unix).
  std::error_code ec;
  fs::path full = fs::weakly_canonical(fs::absolute(db, ec), ec);
  if (ec) full = fs::absolute(db, ec);
  const sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  const std::size_t longest = (vfs != nullptr ? static_cast<std::size_t>(vfs->mxPathname) : 512) - 8;
  if (!ec && full.native().size() > longest) {
    throw UsageError(
        fmt::format("--db {}: the path is {} bytes long made absolute; SQLite opens databases by paths of "
                    "at most {} bytes",
                    abridged(db), full.native().size(), longest));
  }
  if (fs::is_directory(db, ec))
    throw UsageError(fmt::format("--db {} is a directory, not a database file", db));
}

void require_database(const std::string& db) {
  check_database_path(db);
  std::error_code ec;
  if (!fs::exists(db, ec)) {
    throw UsageError(fmt::format("no evotune database at {} (a search writes one; --db names it)", db));
  }
}

void write_output_file(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  fs::path target = path;
  std::error_code ec;
  if (fs::is_symlink(target, ec)) {
    const fs::path through = fs::weakly_canonical(fs::absolute(target), ec);
    if (!ec) target = through;
  }
  if (fs::is_directory(target, ec)) throw UsageError(fmt::format("cannot write {}: it is a directory", path));
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(directory, ec)) {
    throw UsageError(fmt::format("cannot write {}: there is no directory {}", path, directory.string()));
  }
  // An existing output keeps its permissions; a new one gets what the umask allows (mkstemp's are 0600).
  struct stat existing {};
  mode_t mode = 0;
  if (::stat(target.c_str(), &existing) == 0) {
    mode = existing.st_mode & 07777;
  } else {
    mode = 0666 & ~current_umask();
  }
  std::string temporary = (directory / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    throw std::runtime_error(fmt::format("cannot write {}: cannot create a file in {}: {}", path, directory.string(),
                                         std::strerror(errno)));
  }
  std::string failure;
  for (std::size_t written = 0; failure.empty() && written < text.size();) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failure = std::strerror(errno);
    } else {
      written += static_cast<std::size_t>(n);
    }
  }
  // fsync before the rename: after a crash the output is the old file or the whole new one.
  if (failure.empty() && (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0)) failure = std::strerror(errno);
  if (::close(fd) != 0 && failure.empty()) failure = std::strerror(errno);
  if (failure.empty() && ::rename(temporary.c_str(), target.c_str()) != 0) failure = std::strerror(errno);
  if (!failure.empty()) {
    ::unlink(temporary.c_str());
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, failure));
  }
}

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace evotune::cli
