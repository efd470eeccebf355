#include "runtime/cubin_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "runtime/sha256.h"

namespace evotune::runtime {
namespace fs = std::filesystem;

namespace {
constexpr std::string_view kMagic = "EVOTUNE-CUBIN-1\n";
constexpr std::string_view kFailureMagic = "EVOTUNE-FAILED-1\n";
constexpr std::string_view kEntrySuffix = ".cubin";
constexpr std::string_view kFailureSuffix = ".failed";

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const char* kind_name(CompileFailure::Kind kind) { return kind == CompileFailure::Kind::error ? "error" : "timeout"; }
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
  fs::rename(temp, path);  // atomic replace on POSIX
}

std::optional<CompileResult> CubinCache::load(const std::string& key) const {
  std::optional<std::string> file = read_file(entry_path(key, kEntrySuffix));
  if (!file) return std::nullopt;
  const std::string& bytes = *file;
  // Layout: magic, header length in decimal, '\n', JSON header, CUBIN bytes.
  if (!std::string_view(bytes).starts_with(kMagic)) return std::nullopt;
  std::size_t newline = bytes.find('\n', kMagic.size());
  if (newline == std::string::npos) return std::nullopt;
  try {
    std::size_t header_length = std::stoull(bytes.substr(kMagic.size(), newline - kMagic.size()));
    std::size_t header_start = newline + 1;
    if (header_start + header_length > bytes.size()) return std::nullopt;
    auto header = nlohmann::json::parse(bytes.substr(header_start, header_length));
    std::size_t cubin_start = header_start + header_length;
    if (bytes.size() - cubin_start != header.at("cubin_bytes").get<std::size_t>()) return std::nullopt;
    CompileResult result;
    result.cubin.assign(bytes.begin() + static_cast<std::ptrdiff_t>(cubin_start), bytes.end());
    result.lowered_names = header.at("lowered_names").get<std::map<std::string, std::string>>();
    for (const auto& [name, usage] : header.at("resources").items()) {
      result.resources[name] = resource_usage_from_json(usage);
    }
    result.log = header.at("log");
    result.compile_seconds = header.value("compile_seconds", 0.0);  // entries before it was kept: unknown, 0
    result.from_cache = true;
    return result;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged entry: a miss; the recompile overwrites it
  }
}

void CubinCache::store(const std::string& key, const CompileResult& result) const {
  nlohmann::json resources = nlohmann::json::object();
  for (const auto& [name, usage] : result.resources) resources[name] = to_json(usage);
  nlohmann::json header = {{"lowered_names", result.lowered_names},
                           {"resources", resources},
                           {"log", result.log},
                           {"compile_seconds", result.compile_seconds},
                           {"cubin_bytes", result.cubin.size()}};
  const std::string header_text = header.dump();
  std::string bytes = fmt::format("{}{}\n{}", kMagic, header_text.size(), header_text);
  bytes.append(result.cubin.data(), result.cubin.size());
  write_atomically(entry_path(key, kEntrySuffix), bytes);
  std::error_code ignored;
  fs::remove(entry_path(key, kFailureSuffix), ignored);
}

std::optional<CompileFailure> CubinCache::load_failure(const std::string& key) const {
  std::optional<std::string> file = read_file(entry_path(key, kFailureSuffix));
  if (!file || !std::string_view(*file).starts_with(kFailureMagic)) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(file->substr(kFailureMagic.size()));
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
  const nlohmann::json j = {{"kind", kind_name(f.kind)},
                            {"message", f.message},
                            {"log", f.log},
                            {"compile_seconds", f.compile_seconds},
                            {"limit_seconds", f.limit_seconds}};
  write_atomically(entry_path(key, kFailureSuffix), std::string(kFailureMagic) + j.dump());
}

std::uint64_t CubinCache::clear() const {
  std::uint64_t removed = 0;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
    if (!entry.is_regular_file()) continue;
    std::string name = entry.path().filename().string();
    bool is_entry = name.ends_with(kEntrySuffix) || name.ends_with(kFailureSuffix);
    if (is_entry || name.find(".cubin.tmp.") != std::string::npos || name.find(".failed.tmp.") != std::string::npos) {
      fs::remove(entry.path(), ec);
      if (is_entry && !ec) ++removed;
    }
  }
  return removed;
}

CacheStats CubinCache::stats() const {
  CacheStats s;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return s;
  for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name.ends_with(kEntrySuffix)) {
      ++s.entries;
      s.bytes += entry.file_size();
    } else if (name.ends_with(kFailureSuffix)) {
      ++s.failures;
      s.bytes += entry.file_size();
    }
  }
  return s;
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
    cache_.store_failure(k, {CompileFailure::Kind::timeout, e.what(), e.log(), e.compile_seconds(), e.limit_seconds()});
    throw;
  } catch (const CompileError& e) {
    cache_.store_failure(k, {CompileFailure::Kind::error, e.what(), e.log(), e.compile_seconds(), 0.0});
    throw;
  }
  cache_.store(k, result);
  return result;
}

}  // namespace evotune::runtime
