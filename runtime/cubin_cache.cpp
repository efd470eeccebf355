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
constexpr std::string_view kEntrySuffix = ".cubin";
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

fs::path CubinCache::entry_path(const std::string& key) const {
  return dir_ / key.substr(0, 2) / (key + std::string(kEntrySuffix));
}

std::optional<CompileResult> CubinCache::load(const std::string& key) const {
  std::ifstream in(entry_path(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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
    result.from_cache = true;
    return result;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged entry: a miss; the recompile overwrites it
  }
}

void CubinCache::store(const std::string& key, const CompileResult& result) const {
  fs::path path = entry_path(key);
  fs::create_directories(path.parent_path());
  nlohmann::json resources = nlohmann::json::object();
  for (const auto& [name, usage] : result.resources) resources[name] = to_json(usage);
  nlohmann::json header = {{"lowered_names", result.lowered_names},
                           {"resources", resources},
                           {"log", result.log},
                           {"cubin_bytes", result.cubin.size()}};
  std::string header_text = header.dump();

  // Unique per process and thread, so concurrent writers of the same key never share a temp file.
  fs::path temp = path;
  temp += fmt::format(".tmp.{}.{}", static_cast<long>(getpid()), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << kMagic << header_text.size() << '\n' << header_text;
    out.write(result.cubin.data(), static_cast<std::streamsize>(result.cubin.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw std::runtime_error(fmt::format("cannot write cubin cache entry {}", temp.string()));
    }
  }
  fs::rename(temp, path);  // atomic replace on POSIX
}

std::uint64_t CubinCache::clear() const {
  std::uint64_t removed = 0;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
    if (!entry.is_regular_file()) continue;
    std::string name = entry.path().filename().string();
    bool is_entry = name.ends_with(kEntrySuffix);
    if (is_entry || name.find(".cubin.tmp.") != std::string::npos) {
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
    if (entry.is_regular_file() && entry.path().filename().string().ends_with(kEntrySuffix)) {
      ++s.entries;
      s.bytes += entry.file_size();
    }
  }
  return s;
}

std::string CachingCompiler::key(const CompileRequest& request) const {
  return sha256_hex(inner_.cache_identity(request));
}

CompileResult CachingCompiler::compile(const CompileRequest& request) {
  std::string k = key(request);
  if (std::optional<CompileResult> cached = cache_.load(k)) {
    ++hits_;
    return std::move(*cached);
  }
  ++misses_;
  CompileResult result = inner_.compile(request);
  cache_.store(k, result);
  return result;
}

}  // namespace evotune::runtime
