#pragma once
// Kernel Tuner's T4 format (schema 1.0.0): a brute-forced tuning space with one result per
// configuration (time, or why it was invalid). Read from .json or .json.gz. A T4 file defines a
// SearchSpace (each parameter's distinct values, in order; valid = present in the file, i.e. allowed
// by the tuner's constraints) and answers evaluations by lookup, so strategies can be compared
// without a GPU.
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "search/space.h"

namespace evotune::search {

struct T4Result {
  Config config;
  bool valid = false;           // invalidity == "correct"
  std::string invalidity;       // "correct", "compile", "runtime", ...
  double time = 0;              // measurements[name == "time"], in the file's unit
};

class T4Space {
 public:
  static T4Space load(const std::filesystem::path& path);

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
