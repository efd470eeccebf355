#include "core/config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "core/errors.h"
#include "core/sha256.h"

namespace evotune {

std::string Parameter::format(int value) const {
  if (categorical()) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] == value) return labels[i];
    }
  }
  if (named_value && named_value->first == value) return named_value->second;
  return std::to_string(value);
}

bool Parameter::contains(int value) const {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::optional<int> Parameter::parse(std::string_view text) const {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == text) return values[i];
  }
  if (named_value && named_value->second == text) return named_value->first;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !contains(value)) return std::nullopt;
  return value;
}

int Config::at(std::string_view name) const {
  for (const auto& [n, v] : entries_) {
    if (n == name) return v;
  }
  throw std::out_of_range(fmt::format("config has no parameter '{}'", name));
}

bool Config::has(std::string_view name) const {
  for (const auto& entry : entries_) {
    if (entry.first == name) return true;
  }
  return false;
}

void Config::set(std::string_view name, int value) {
  for (auto& [n, v] : entries_) {
    if (n == name) {
      v = value;
      return;
    }
  }
  entries_.emplace_back(std::string(name), value);
}

std::string Config::key() const {
  std::string out;
  for (const auto& [n, v] : entries_) out += fmt::format("{}{}={}", out.empty() ? "" : ",", n, v);
  return out;
}

Config Config::from_key(std::string_view key) {
  Config c;
  for (const auto& [name, value] : split_assignments(key, "config key")) {
    int parsed = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (ec != std::errc() || end != value.data() + value.size()) {
      throw UsageError(fmt::format("bad config key item {}={}: expected an integer", name, value));
    }
    c.set(name, parsed);
  }
  return c;
}

std::string Config::hash() const { return runtime::sha256_hex(key()).substr(0, 16); }

std::string format_config(const Config& config, const std::vector<Parameter>& parameters) {
  std::string out;
  for (const Parameter& p : parameters) {
    if (!config.has(p.name)) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", p.name, p.format(config.at(p.name)));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> split_assignments(std::string_view text, std::string_view what) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!item.empty()) {
      std::size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
        throw UsageError(fmt::format("bad {} item '{}': expected name=value", what, item));
      }
      out.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

Config parse_config(std::string_view text, const std::vector<Parameter>& parameters, const Config& defaults) {
  Config config;
  for (const Parameter& p : parameters) config.set(p.name, defaults.at(p.name));
  std::set<std::string> seen;
  for (const auto& [name, value] : split_assignments(text, "config")) {
    auto it = std::find_if(parameters.begin(), parameters.end(), [&](const Parameter& p) { return p.name == name; });
    if (it == parameters.end()) {
      std::vector<std::string> known;
      for (const Parameter& p : parameters) known.push_back(p.name);
      throw UsageError(fmt::format("unknown config parameter '{}' (known: {})", name, fmt::join(known, ", ")));
    }
    if (!seen.insert(name).second) throw UsageError(fmt::format("config parameter '{}' given twice", name));
    std::optional<int> parsed = it->parse(value);
    if (!parsed) {
      std::vector<std::string> domain;
      for (int v : it->values) domain.push_back(it->format(v));
      throw UsageError(fmt::format("bad value '{}' for {} (one of {})", value, name, fmt::join(domain, "|")));
    }
    config.set(name, *parsed);
  }
  return config;
}

nlohmann::json to_json(const Config& config) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [n, v] : config.entries()) j[n] = v;
  return j;
}

Config config_from_json(const nlohmann::json& j) {
  Config c;
  for (const auto& [n, v] : j.items()) c.set(n, v.get<int>());
  return c;
}

}  // namespace evotune
