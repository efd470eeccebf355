#include "runtime/cubin_cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/sha256.h"

namespace evotune::runtime {
namespace fs = std::filesystem;

namespace {
// Version 2 entries carry a SHA-256 of everything after their first two lines; version 1 entries (no
// checksum) read as misses and are rewritten by the next compile.
constexpr std::string_view kMagic = "EVOTUNE-CUBIN-2\n";
constexpr std::string_view kFailureMagic = "EVOTUNE-FAILED-2\n";
// Any version of evotune's formats: what `cache clear` recognises as its own.
constexpr std::string_view kMagicFamily = "EVOTUNE-CUBIN-";
constexpr std::string_view kFailureMagicFamily = "EVOTUNE-FAILED-";
constexpr std::string_view kChecksumPrefix = "sha256 ";
constexpr std::string_view kEntrySuffix = ".cubin";
constexpr std::string_view kFailureSuffix = ".failed";

// An entry's bytes; nullopt when there is none, or when what is there is not a regular file (a directory,
// a FIFO, a device: a miss, never a failed compile, and never a read that waits or does not end).
std::optional<std::string> read_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return std::nullopt;
  }
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return bytes;
}

// Something at an entry's path that a write must not replace: anything but a regular file or a symlink
// (rename(2) would fail on a directory; a FIFO or device is someone else's).
bool taken_by_other(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode);
}

// A store skipped because its entry's path holds something else: try_store's warning says so.
struct EntryTaken : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kind_name(CompileFailure::Kind kind) { return kind == CompileFailure::Kind::error ? "error" : "timeout"; }

// magic, "sha256 <hex of payload>\n", payload.
std::string with_checksum(std::string_view magic, const std::string& payload) {
  return fmt::format("{}{}{}\n{}", magic, kChecksumPrefix, sha256_hex(payload), payload);
}

// The payload of a file written by with_checksum, or nullopt when its magic or checksum does not match
// (a torn write, flipped bits, an edit, an older format).
std::optional<std::string> verified_payload(const std::string& file, std::string_view magic) {
  if (!std::string_view(file).starts_with(magic)) return std::nullopt;
  const std::size_t line = magic.size();
  const std::size_t newline = file.find('\n', line);
  if (newline == std::string::npos) return std::nullopt;
  const std::string_view checksum_line = std::string_view(file).substr(line, newline - line);
  if (!checksum_line.starts_with(kChecksumPrefix)) return std::nullopt;
  std::string payload = file.substr(newline + 1);
  if (checksum_line.substr(kChecksumPrefix.size()) != sha256_hex(payload)) return std::nullopt;
  return payload;
}

bool is_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

enum class EntryKind { foreign, kernel, failure, temporary };

// What a file under the cache directory is, judged by evotune's own naming and magic, never by suffix
// alone: <dir>/<key[0:2]>/<key>.cubin (a key is lowercase hex) starting with an EVOTUNE-CUBIN magic,
// <key>.failed with an EVOTUNE-FAILED one, or a writer's temporary <key>.<cubin|failed>.tmp.<pid>.<thread>.
// Anything else is foreign and is neither counted nor removed.
EntryKind entry_kind(const fs::path& path) {
  const std::string name = path.filename().string();
  const std::string parent = path.parent_path().filename().string();
  const std::size_t dot = name.find('.');
  if (dot == std::string::npos || parent.size() != 2) return EntryKind::foreign;
  const std::string_view key = std::string_view(name).substr(0, dot);
  if (key.size() < 2 || !is_hex(key) || !key.starts_with(parent)) return EntryKind::foreign;
  const std::string_view rest = std::string_view(name).substr(dot);
  for (std::string_view suffix : {kEntrySuffix, kFailureSuffix}) {
    if (!rest.starts_with(suffix)) continue;
    std::string_view tail = rest.substr(suffix.size());
    if (tail.empty()) {
      std::ifstream in(path, std::ios::binary);
      std::string start(kFailureMagicFamily.size(), '\0');
      in.read(start.data(), static_cast<std::streamsize>(start.size()));
      const std::string_view family = suffix == kEntrySuffix ? kMagicFamily : kFailureMagicFamily;
      if (!std::string_view(start).substr(0, static_cast<std::size_t>(in.gcount())).starts_with(family)) {
        return EntryKind::foreign;
      }
      return suffix == kEntrySuffix ? EntryKind::kernel : EntryKind::failure;
    }
    if (!tail.starts_with(".tmp.")) return EntryKind::foreign;
    tail.remove_prefix(5);
    const std::size_t separator = tail.find('.');
    if (separator == std::string_view::npos) return EntryKind::foreign;
    const bool writer_suffix = is_digits(tail.substr(0, separator)) && is_digits(tail.substr(separator + 1));
    return writer_suffix ? EntryKind::temporary : EntryKind::foreign;
  }
  return EntryKind::foreign;
}
}  // namespace

fs::path default_cache_dir() {
  if (const char* dir = std::getenv("EVOTUNE_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') return fs::path(xdg) / "evotune";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".cache" / "evotune";
  }
  return fs::temp_directory_path() / "evotune-cache";
}

CubinCache::CubinCache(fs::path dir) : dir_(std::move(dir)) {}

fs::path CubinCache::entry_path(const std::string& key, std::string_view suffix) const {
  return dir_ / key.substr(0, 2) / (key + std::string(suffix));
}

void CubinCache::write_atomically(const fs::path& path, const std::string& bytes) const {
  fs::create_directories(path.parent_path());
  if (taken_by_other(path)) {
    throw EntryTaken(fmt::format("cubin cache entry {} is not a regular file; it is left as it is, and that "
                                 "compile is not cached",
                                 path.string()));
  }
  // Unique per process and thread, so concurrent writers of the same key never share a temp file.
  fs::path temp = path;
  temp += fmt::format(".tmp.{}.{}", static_cast<long>(getpid()), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw std::runtime_error(fmt::format("cannot write cubin cache entry {}", temp.string()));
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);  // atomic replace on POSIX
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw std::runtime_error(fmt::format("cannot write cubin cache entry {}: {}", path.string(), ec.message()));
  }
}

std::optional<CompileResult> CubinCache::load(const std::string& key) const {
  std::optional<std::string> file = read_file(entry_path(key, kEntrySuffix));
  if (!file) return std::nullopt;
  // Everything that is served (CUBIN, lowered names, resources the verdicts read, log) is under the checksum.
  std::optional<std::string> payload = verified_payload(*file, kMagic);
  if (!payload) return std::nullopt;
  const std::string& bytes = *payload;
  // Payload: header length in decimal, '\n', JSON header, CUBIN bytes.
  std::size_t newline = bytes.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  try {
    std::size_t header_length = std::stoull(bytes.substr(0, newline));
    std::size_t header_start = newline + 1;
    if (header_length > bytes.size() - header_start) return std::nullopt;
    auto header = nlohmann::json::parse(bytes.substr(header_start, header_length));
    // An entry copied or renamed under another key answers for a request it was not compiled from.
    if (header.at("key").get<std::string>() != key) return std::nullopt;
    std::size_t cubin_start = header_start + header_length;
    if (bytes.size() - cubin_start != header.at("cubin_bytes").get<std::size_t>()) return std::nullopt;
    CompileResult result;
    result.cubin.assign(bytes.begin() + static_cast<std::ptrdiff_t>(cubin_start), bytes.end());
    result.lowered_names = header.at("lowered_names").get<std::map<std::string, std::string>>();
    for (const auto& [name, usage] : header.at("resources").items()) {
      result.resources[name] = resource_usage_from_json(usage);
    }
    result.log = header.at("log");
    result.compile_seconds = header.at("compile_seconds");
    read_log_warnings(result);
    result.from_cache = true;
    return result;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged entry: a miss; the recompile overwrites it
  }
}

void CubinCache::store(const std::string& key, const CompileResult& result) const {
  nlohmann::json resources = nlohmann::json::object();
  for (const auto& [name, usage] : result.resources) resources[name] = to_json(usage);
  nlohmann::json header = {{"key", key},
                           {"lowered_names", result.lowered_names},
                           {"resources", resources},
                           {"log", result.log},
                           {"compile_seconds", result.compile_seconds},
                           {"cubin_bytes", result.cubin.size()}};
  const std::string header_text = header.dump();
  std::string payload = fmt::format("{}\n{}", header_text.size(), header_text);
  payload.append(result.cubin.data(), result.cubin.size());
  write_atomically(entry_path(key, kEntrySuffix), with_checksum(kMagic, payload));
  std::error_code ignored;
  if (!taken_by_other(entry_path(key, kFailureSuffix))) fs::remove(entry_path(key, kFailureSuffix), ignored);
}

std::optional<CompileFailure> CubinCache::load_failure(const std::string& key) const {
  std::optional<std::string> file = read_file(entry_path(key, kFailureSuffix));
  if (!file) return std::nullopt;
  std::optional<std::string> payload = verified_payload(*file, kFailureMagic);
  if (!payload) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(*payload);
    if (j.at("key").get<std::string>() != key) return std::nullopt;
    CompileFailure f;
    const std::string kind = j.at("kind");
    if (kind != "error" && kind != "timeout") return std::nullopt;
    f.kind = kind == "error" ? CompileFailure::Kind::error : CompileFailure::Kind::timeout;
    f.message = j.at("message");
    f.log = j.at("log");
    f.compile_seconds = j.at("compile_seconds");
    f.limit_seconds = j.at("limit_seconds");
    return f;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged: a miss, as for kernels
  }
}

void CubinCache::store_failure(const std::string& key, const CompileFailure& f) const {
  const nlohmann::json j = {{"key", key},
                            {"kind", kind_name(f.kind)},
                            {"message", f.message},
                            {"log", f.log},
                            {"compile_seconds", f.compile_seconds},
                            {"limit_seconds", f.limit_seconds}};
  write_atomically(entry_path(key, kFailureSuffix), with_checksum(kFailureMagic, j.dump()));
}

std::uint64_t CubinCache::clear() const {
  std::uint64_t removed = 0;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return 0;
  std::vector<fs::path> doomed;
  std::vector<fs::path> key_directories;
  for (const auto& entry : fs::recursive_directory_iterator(dir_, ec)) {
    if (entry.is_directory(ec) && entry.path().parent_path() == dir_) key_directories.push_back(entry.path());
    if (!entry.is_regular_file(ec) || entry.is_symlink(ec)) continue;
    const EntryKind kind = entry_kind(entry.path());
    if (kind == EntryKind::foreign) continue;
    doomed.push_back(entry.path());
    if (kind != EntryKind::temporary) ++removed;
  }
  for (const fs::path& path : doomed) fs::remove(path, ec);
  // The two-hex-digit directories evotune made, once nothing else is left in them.
  for (const fs::path& directory : key_directories) {
    const std::string name = directory.filename().string();
    if (name.size() == 2 && is_hex(name) && fs::is_empty(directory, ec)) fs::remove(directory, ec);
  }
  return removed;
}

CacheStats CubinCache::stats() const {
  CacheStats s;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return s;
  for (const auto& entry : fs::recursive_directory_iterator(dir_, ec)) {
    if (!entry.is_regular_file(ec) || entry.is_symlink(ec)) continue;
    const EntryKind kind = entry_kind(entry.path());
    if (kind == EntryKind::kernel) {
      ++s.entries;
      s.bytes += entry.file_size(ec);
    } else if (kind == EntryKind::failure) {
      ++s.failures;
      s.bytes += entry.file_size(ec);
    }
  }
  return s;
}

void CubinCache::warn_write_failure(const std::exception& e) const {
  // Once per cache: a full disk or a read-only directory would otherwise print a line per compile.
  if (write_warned_.exchange(true)) return;
  if (dynamic_cast<const EntryTaken*>(&e) != nullptr) {
    std::fprintf(stderr, "evotune: warning: %s\n", e.what());
    return;
  }
  std::fprintf(stderr, "evotune: warning: the cubin cache in %s is not written (%s); compiles go on uncached\n",
               dir_.string().c_str(), e.what());
}

std::optional<std::string> CubinCache::write_problem() const {
  const fs::path probe = dir_ / fmt::format("write-probe.{}", static_cast<long>(getpid()));
  try {
    write_atomically(probe, "probe");
    fs::remove(probe);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

bool CubinCache::try_store(const std::string& key, const CompileResult& result) const {
  try {
    store(key, result);
    return true;
  } catch (const std::exception& e) {
    warn_write_failure(e);
    return false;
  }
}

bool CubinCache::try_store_failure(const std::string& key, const CompileFailure& failure) const {
  try {
    store_failure(key, failure);
    return true;
  } catch (const std::exception& e) {
    warn_write_failure(e);
    return false;
  }
}

std::string CachingCompiler::key(const CompileRequest& request) const { return cache_key(inner_, request); }

CompileResult CachingCompiler::compile(const CompileRequest& request) {
  const std::string k = key(request);
  if (std::optional<CompileResult> cached = cache_.load(k)) {
    ++hits_;
    return std::move(*cached);
  }
  if (std::optional<CompileFailure> failed = cache_.load_failure(k)) {
    if (failed->kind == CompileFailure::Kind::error) {
      ++failure_hits_;
      throw CompileError(failed->message, failed->log, failed->compile_seconds, true);
    }
    // A timeout stands for any limit up to the one it ran into; a longer limit (or none) tries again.
    const std::optional<double> limit = inner_.time_limit_seconds();
    if (limit && *limit <= failed->limit_seconds) {
      ++failure_hits_;
      throw CompileTimeout(failed->message, failed->limit_seconds, true);
    }
  }
  ++misses_;
  CompileResult result;
  try {
    result = inner_.compile(request);
  } catch (const CompileTimeout& e) {
    cache_.try_store_failure(k, {CompileFailure::Kind::timeout, e.what(), e.log(), e.compile_seconds(), e.limit_seconds()});
    throw;
  } catch (const CompileError& e) {
    cache_.try_store_failure(k, {CompileFailure::Kind::error, e.what(), e.log(), e.compile_seconds(), 0.0});
    throw;
  }
  cache_.try_store(k, result);  // a cache that cannot be written costs speed, never the compile
  return result;
}

}  // namespace evotune::runtime
