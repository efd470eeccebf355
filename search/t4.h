#pragma once
// Kernel Tuner's T4 format (schema 1.0.0): a brute-forced tuning space with one result per
// configuration (time, or why it was invalid). Read from .json or .json.gz. A T4 file defines a
// SearchSpace (each parameter's distinct values, in order; valid = present in the file, i.e. allowed
// by the tuner's constraints; searched over the recorded configs, however few of the domains' product
// they are) and answers evaluations by lookup, so strategies can be compared without a GPU.
//
// load() refuses, with one line naming the file and the entry (results[i]), a document that is not JSON,
// has no results, has an entry without a configuration object or with other parameters than the first,
// a value that is not a number, string or boolean, an integer beyond int, a parameter name or string value
// that config text cannot hold (',' '=' or a control byte, NUL included), a configuration recorded twice,
// or a "correct" entry whose time is not a positive finite number; a file that is not a regular file (a
// device such as /dev/zero, a pipe), one larger than kT4MaxDocumentBytes, one whose content (after gunzip)
// exceeds kT4MaxDocumentBytes (without decompressing past it), and a document nested deeper than
// kT4MaxNestingDepth (before the parser builds it).
#include <cstddef>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "search/space.h"

namespace evotune::search {

// 256 MiB: over ten times the largest published brute-forced space evotune has met (dedispersion_milo_A100,
// 19 MB decompressed, 3 MB as .gz), for the file as stored and for its content after gunzip alike (a plain
// .json file is its content; a .gz of a document within the limit is smaller than it).
inline constexpr std::size_t kT4MaxDocumentBytes = std::size_t{256} << 20;
// Arrays and objects within one another: a T4 document nests 5 deep (results, a result, its measurements, a
// measurement's fields); its metadata may nest a few more. Deeper is not a T4 document, and the parser
// would build every level first (a .gz of '[' alone grew to gigabytes).
inline constexpr int kT4MaxNestingDepth = 64;

// The label of a T4 value in config text, type-faithful, so that `evotune export --format t4` writes back
// the value it stands for (evidence/export_tables.cpp reads labels as JSON when they are JSON): a number's
// or boolean's JSON text ("128", "0.5", "true"); a string itself ("mma_sync"), unless the string reads as
// JSON ("1", "true"), then its JSON text, quotes included ("\"1\""). Distinct values have distinct labels.
std::string t4_label(const nlohmann::json& value);

// The bytes of a T4 file as stored (gzip'd or not): a UsageError, one line naming it, for a file that is
// not a regular file or is larger than max_bytes, so that hashing a recorded space is bounded too.
std::string read_t4_file(const std::filesystem::path& path, std::size_t max_bytes = kT4MaxDocumentBytes);

struct T4Result {
  Config config;
  bool valid = false;           // invalidity == "correct"
  std::string invalidity;       // "correct", "compile", "runtime", ...
  double time = 0;              // measurements[name == "time"], in the file's unit
};

class T4Space {
 public:
  static T4Space load(const std::filesystem::path& path, std::size_t max_bytes = kT4MaxDocumentBytes);

  const std::string& name() const { return name_; }
  const SearchSpace& space() const { return *space_; }
  const T4Result* lookup(const Config& config) const;
  const std::vector<T4Result>& results() const { return results_; }
  double optimum() const { return optimum_; }  // fastest valid time
  std::size_t valid_count() const;

 private:
  std::string name_;
  std::vector<T4Result> results_;
  std::unordered_map<std::string, std::size_t> by_key_;
  std::unique_ptr<SearchSpace> space_;
  double optimum_ = 0;
};

}  // namespace evotune::search
