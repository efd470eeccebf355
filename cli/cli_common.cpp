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
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <vector>

#include "core/errors.h"

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

CLI::Validator WholeNumber(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& input) -> std::string {
        std::int64_t value = 0;
        const char* end = input.data() + input.size();
        const auto [stop, error] = std::from_chars(input.data(), end, value);
        const bool decimal = !input.empty() && stop == end && (input.size() == 1 || input[0] != '0') &&
                             input.rfind("-0", 0) != 0;
        const bool outside = error == std::errc() && (value < lo || value > hi);
        if (error == std::errc::result_out_of_range || (decimal && outside)) {
          return fmt::format("{} is not a whole number from {} to {}", input, lo, hi);
        }
        if (error != std::errc() || !decimal) return fmt::format("{} is not a whole number (decimal digits)", input);
        return {};
      },
      fmt::format("INT in [{} - {}]", lo, hi));
}

const CLI::Validator SeedNumber = WholeNumber(0, std::numeric_limits<std::int64_t>::max());

const CLI::Validator RunNumber = [] {
  CLI::Validator v = WholeNumber(std::numeric_limits<std::int64_t>::min(), kMaxRun);
  v.description("");
  return v;
}();

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

namespace {

// Writes all of `text` to an open descriptor; the error text, or empty.
std::string write_all(int fd, const std::string& text) {
  for (std::size_t written = 0; written < text.size();) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::strerror(n < 0 ? errno : EIO);
    written += static_cast<std::size_t>(n);
  }
  return {};
}

// A stream, not a file: a FIFO or a character device (/dev/null, a terminal) is written straight into,
// opened for writing, never renamed over.
void write_into(const std::string& path, const fs::path& target, const std::string& text) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  std::string failure = write_all(fd, text);
  if (::close(fd) != 0 && failure.empty()) failure = std::strerror(errno);
  if (!failure.empty()) throw std::runtime_error(fmt::format("cannot write {}: {}", path, failure));
}

// One of this process's descriptors named through /proc/self/fd or /dev/fd (/dev/stdout is one): written
// into, as "-" writes standard output. -1 when `link` is not one.
int own_descriptor(const fs::path& link) {
  std::error_code ec;
  const fs::path directory = fs::canonical(link.has_parent_path() ? link.parent_path() : fs::path("."), ec);
  if (ec) return -1;
  if (directory != fs::path("/proc/self/fd") && directory != fs::path(fmt::format("/proc/{}/fd", ::getpid()))) {
    return -1;
  }
  const std::string name = link.filename().string();
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || name.size() > 9 || !std::all_of(name.begin(), name.end(), digit)) return -1;
  return std::stoi(name);
}

void write_to_descriptor(const std::string& path, int fd, const std::string& text) {
  if (fd == STDOUT_FILENO) {
    std::cout << text << std::flush;
    if (!std::cout) throw std::runtime_error(fmt::format("cannot write {}: standard output failed", path));
    return;
  }
  if (const std::string failure = write_all(fd, text); !failure.empty()) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, failure));
  }
}

// Regular files (and paths that do not exist yet) are replaced atomically: a temporary of a unique name in
// the same directory, renamed into place.
void replace_atomically(const std::string& path, const fs::path& target, const std::string& text) {
  std::error_code ec;
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
  std::string failure = write_all(fd, text);
  // fsync before the rename: after a crash the output is the old file or the whole new one.
  if (failure.empty() && (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0)) failure = std::strerror(errno);
  if (::close(fd) != 0 && failure.empty()) failure = std::strerror(errno);
  if (failure.empty() && ::rename(temporary.c_str(), target.c_str()) != 0) failure = std::strerror(errno);
  if (!failure.empty()) {
    ::unlink(temporary.c_str());
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, failure));
  }
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    write_to_descriptor("standard output", STDOUT_FILENO, text);
    return;
  }
  // Symlinks are followed one link at a time (a dangling one too, to the file it names), so the link itself
  // is never replaced; a link into /proc/self/fd is this process's own descriptor.
  fs::path target = path;
  for (int links = 0;; ++links) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
      if (errno == ENOENT) break;
      throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    if (!S_ISLNK(st.st_mode)) break;
    if (const int fd = own_descriptor(target); fd >= 0) {
      write_to_descriptor(path, fd, text);
      return;
    }
    if (links == 40) throw UsageError(fmt::format("cannot write {}: too many levels of symbolic links", path));
    std::error_code ec;
    const fs::path link = fs::read_symlink(target, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot write {}: {}", path, ec.message()));
    target = link.is_absolute() ? link : target.parent_path() / link;
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    if (errno != ENOENT) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    replace_atomically(path, target, text);
  } else if (S_ISREG(st.st_mode)) {
    replace_atomically(path, target, text);
  } else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
    write_into(path, target, text);
  } else {
    const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    throw UsageError(
        fmt::format("cannot write {}: it is {}; give a file, a named pipe or a character device", path, what));
  }
}

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace evotune::cli
