#pragma once
// A disk cache of compile results, keyed by the SHA-256 of everything that determines the output
// (Compiler::cache_identity: source, headers, every option, NVRTC version, target).
//
// One file per entry, <dir>/<key[0:2]>/<key>.cubin: a magic line (EVOTUNE-CUBIN-2), a line with the
// SHA-256 of the rest, then a JSON header (its key, lowered names, resources, log, the build's NVRTC time)
// and the CUBIN bytes. A request that does not compile, or whose compile ran past its time limit, has a
// <key>.failed entry instead (EVOTUNE-FAILED-2, the checksum, then JSON: what happened, the message and the
// full log), so it is never compiled twice. Every read checks the checksum and the key: an entry with
// flipped bits, an edited header (the resources that accept or reject a config) or another key's content
// is a miss, and the next compile rewrites it. Something at an entry's path that is not a regular file
// (a directory, a FIFO) is a miss too, and a store leaves it as it is (one warning). Writers write a
// private temporary file and rename(2) it into place, so concurrent writers (threads or processes) never
// leave a torn entry. The cache is an
// optimisation: a write that fails (read-only or full disk) is one warning on stderr, never an error.
#include <atomic>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/nvrtc_compiler.h"

namespace evotune::runtime {

// $EVOTUNE_CACHE_DIR, else $XDG_CACHE_HOME/evotune, else ~/.cache/evotune.
std::filesystem::path default_cache_dir();

struct CacheStats {
  std::uint64_t entries = 0;   // compiled kernels
  std::uint64_t failures = 0;  // requests recorded as not compiling (or timing out)
  std::uint64_t bytes = 0;
};

// A compile that did not produce a kernel, as the cache keeps it.
struct CompileFailure {
  enum class Kind { error, timeout };
  Kind kind = Kind::error;
  std::string message;  // CompileError::what()
  std::string log;      // the full NVRTC log
  double compile_seconds = 0;
  double limit_seconds = 0;  // timeouts: the limit the compile ran into
};

class CubinCache {
 public:
  explicit CubinCache(std::filesystem::path dir);

  std::optional<CompileResult> load(const std::string& key) const;
  // Also removes a failure entry of the key (a timeout that a longer limit got past).
  void store(const std::string& key, const CompileResult& result) const;
  std::optional<CompileFailure> load_failure(const std::string& key) const;
  void store_failure(const std::string& key, const CompileFailure& failure) const;
  // Removes every entry, failures included (and stray temporary files), recognised by evotune's naming
  // and magic; any other file in the directory is left alone. Returns how many entries were removed.
  std::uint64_t clear() const;
  CacheStats stats() const;
  // store() and store_failure() that warn (once per cache, on stderr) instead of throwing; false when
  // nothing was written.
  bool try_store(const std::string& key, const CompileResult& result) const;
  bool try_store_failure(const std::string& key, const CompileFailure& failure) const;
  // Why nothing can be written here (the directory cannot be made, or a file in it), or nullopt when a
  // probe file could be written and removed: for callers to whom an unwritten cache is not an
  // optimisation lost but a kernel lost (a GPU search hands kernels to its workers through it).
  std::optional<std::string> write_problem() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path entry_path(const std::string& key, std::string_view suffix) const;
  void write_atomically(const std::filesystem::path& path, const std::string& bytes) const;
  void warn_write_failure(const std::exception& e) const;
  std::filesystem::path dir_;
  mutable std::atomic<bool> write_warned_{false};
};

// A Compiler that answers from the cache when it can and fills it when it cannot. Compile errors are
// cached and rethrown (CompileError::from_cache()); a timeout is answered from the cache when the inner
// compiler's limit is no longer than the one recorded.
class CachingCompiler : public Compiler {
 public:
  CachingCompiler(Compiler& inner, const CubinCache& cache) : inner_(inner), cache_(cache) {}

  CompileResult compile(const CompileRequest& request) override;
  std::string cache_identity(const CompileRequest& request) const override { return inner_.cache_identity(request); }

  std::optional<double> time_limit_seconds() const override { return inner_.time_limit_seconds(); }
  std::string key(const CompileRequest& request) const;

  int hits() const { return hits_.load(); }            // kernels answered from the cache
  int failure_hits() const { return failure_hits_.load(); }  // failures answered from the cache
  int misses() const { return misses_.load(); }

 private:
  Compiler& inner_;
  const CubinCache& cache_;
  std::atomic<int> hits_{0};
  std::atomic<int> failure_hits_{0};
  std::atomic<int> misses_{0};
};

}  // namespace evotune::runtime
