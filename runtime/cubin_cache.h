#pragma once
// A disk cache of compile results, keyed by the SHA-256 of everything that determines the output
// (Compiler::cache_identity: source, headers, every option, NVRTC version, target).
//
// One file per entry, <dir>/<key[0:2]>/<key>.cubin, holding a JSON header (lowered names, resources,
// log) followed by the CUBIN bytes. Writers write a private temporary file and rename(2) it into place,
// so concurrent writers (threads or processes) never leave a torn entry; a reader that meets a damaged
// entry treats it as a miss and the next compile replaces it.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "runtime/nvrtc_compiler.h"

namespace evotune::runtime {

// $EVOTUNE_CACHE_DIR, else $XDG_CACHE_HOME/evotune, else ~/.cache/evotune.
std::filesystem::path default_cache_dir();

struct CacheStats {
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
};

class CubinCache {
 public:
  explicit CubinCache(std::filesystem::path dir);

  std::optional<CompileResult> load(const std::string& key) const;
  void store(const std::string& key, const CompileResult& result) const;
  // Removes every entry (and stray temporary files); returns how many entries were removed.
  std::uint64_t clear() const;
  CacheStats stats() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path entry_path(const std::string& key) const;
  std::filesystem::path dir_;
};

// A Compiler that answers from the cache when it can and fills it when it cannot.
class CachingCompiler : public Compiler {
 public:
  CachingCompiler(Compiler& inner, const CubinCache& cache) : inner_(inner), cache_(cache) {}

  CompileResult compile(const CompileRequest& request) override;
  std::string cache_identity(const CompileRequest& request) const override { return inner_.cache_identity(request); }
  std::string key(const CompileRequest& request) const;

  int hits() const { return hits_.load(); }
  int misses() const { return misses_.load(); }

 private:
  Compiler& inner_;
  const CubinCache& cache_;
  std::atomic<int> hits_{0};
  std::atomic<int> misses_{0};
};

}  // namespace evotune::runtime
