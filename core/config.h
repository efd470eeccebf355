#pragma once
// The vocabulary a kernel family uses to describe its search space: named integer parameters with
// ordered domains (categorical ones carry value labels), and Config, an ordered name -> value map with a
// stable text form and hash. Sampling and search over spaces live in search/; validity rules are the
// family's.
#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace evotune {

struct Parameter {
  std::string name;
  std::vector<int> values;          // the domain, in order
  std::vector<std::string> labels;  // one per value for categorical parameters; empty for numbers
  std::string help;
  // A numeric parameter may give one value a name that stands for a rule, e.g. splits=0 written "auto";
  // format() writes the name and parse() reads it. The value stays a number (ordered, stepped by
  // mutation, an integer in exports).
  std::optional<std::pair<int, std::string>> named_value = std::nullopt;

  bool categorical() const { return !labels.empty(); }
  // "mma_sync" for a categorical value, "128" for a number.
  std::string format(int value) const;
  // Accepts a label or a number in the domain; nullopt otherwise.
  std::optional<int> parse(std::string_view text) const;
  bool contains(int value) const;
};

class Config {
 public:
  Config() = default;
  explicit Config(std::vector<std::pair<std::string, int>> entries) : entries_(std::move(entries)) {}

  int at(std::string_view name) const;  // throws std::out_of_range naming the parameter
  bool has(std::string_view name) const;
  void set(std::string_view name, int value);
  const std::vector<std::pair<std::string, int>>& entries() const { return entries_; }

  // "block_m=128,block_n=64,..." with raw integers, in parameter order: the stable identity.
  std::string key() const;
  // The inverse of key(); throws UsageError for a malformed key.
  static Config from_key(std::string_view key);
  // First 16 hex digits of SHA-256(key()).
  std::string hash() const;
  bool operator==(const Config&) const = default;

 private:
  std::vector<std::pair<std::string, int>> entries_;
};

// "mma=mma_sync,block_m=128,..." with labels, in parameter order.
std::string format_config(const Config& config, const std::vector<Parameter>& parameters);

// Parses "name=value,..." against the parameters; names not given keep their value from `defaults`.
// Unknown names, values outside a domain and repeated names throw UsageError with a one-line reason.
Config parse_config(std::string_view text, const std::vector<Parameter>& parameters, const Config& defaults);

nlohmann::json to_json(const Config& config);
Config config_from_json(const nlohmann::json& j);

// Splits "a=1,b=2" into pairs; throws UsageError on a malformed item. Shared by problem and config parsing.
std::vector<std::pair<std::string, std::string>> split_assignments(std::string_view text, std::string_view what);

}  // namespace evotune
