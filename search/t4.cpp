#include "search/t4.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/errors.h"

namespace evotune::search {
namespace {

// Reads a file, gunzipping when it is gzip (zlib's gzread passes plain files through).
std::string read_maybe_gzipped(const std::filesystem::path& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw UsageError(fmt::format("cannot open T4 file {}", path.string()));
  std::string data;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof(buffer))) > 0) data.append(buffer, static_cast<std::size_t>(n));
  int error = 0;
  const char* message = gzerror(file, &error);
  std::string reason = error != Z_OK && error != Z_STREAM_END ? message : "";
  gzclose(file);
  if (n < 0 || !reason.empty()) throw UsageError(fmt::format("cannot read T4 file {}: {}", path.string(), reason));
  return data;
}

}  // namespace

T4Space T4Space::load(const std::filesystem::path& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_maybe_gzipped(path));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{} is not valid JSON: {}", path.string(), e.what()));
  }
  if (!doc.contains("results") || !doc["results"].is_array() || doc["results"].empty()) {
    throw UsageError(fmt::format("{} is not a T4 file: no \"results\" array", path.string()));
  }
  T4Space t;
  t.name_ = path.filename().string();
  // Domains: each parameter's distinct values. Integral values stay integers; anything else becomes
  // an ordered categorical parameter (values are indices in the order of the values' JSON text; labels are
  // the strings themselves for string values, so "mma_sync" reads back as mma_sync, else the JSON text).
  const nlohmann::json& first = doc["results"][0].at("configuration");
  std::vector<std::string> names;
  for (const auto& [name, value] : first.items()) names.push_back(name);
  std::map<std::string, std::set<std::string>> texts;
  std::map<std::string, bool> integral;
  for (const std::string& n : names) integral[n] = true;
  for (const auto& r : doc["results"]) {
    for (const std::string& n : names) {
      const nlohmann::json& v = r.at("configuration").at(n);
      if (!v.is_number_integer()) integral[n] = false;
      texts[n].insert(v.dump());
    }
  }
  std::vector<Parameter> params;
  std::map<std::string, std::map<std::string, int>> encode;  // name -> JSON text -> value
  for (const std::string& n : names) {
    Parameter p;
    p.name = n;
    if (integral[n]) {
      std::set<long long> values;
      for (const std::string& s : texts[n]) values.insert(std::stoll(s));
      for (long long v : values) {
        p.values.push_back(static_cast<int>(v));
        encode[n][std::to_string(v)] = static_cast<int>(v);
      }
    } else {
      int index = 0;
      for (const std::string& s : texts[n]) {
        p.values.push_back(index);
        const nlohmann::json value = nlohmann::json::parse(s);
        p.labels.push_back(value.is_string() ? value.get<std::string>() : s);
        encode[n][s] = index++;
      }
    }
    params.push_back(std::move(p));
  }
  t.optimum_ = INFINITY;
  for (const auto& r : doc["results"]) {
    T4Result result;
    for (const std::string& n : names) result.config.set(n, encode[n].at(r.at("configuration").at(n).dump()));
    result.invalidity = r.value("invalidity", "correct");
    result.valid = result.invalidity == "correct";
    if (result.valid) {
      bool found = false;
      for (const auto& m : r.at("measurements")) {
        if (m.value("name", "") == "time") {
          result.time = m.at("value").get<double>();
          found = true;
        }
      }
      if (!found || !std::isfinite(result.time)) {
        result.valid = false;
        result.invalidity = "no time";
      }
    }
    if (result.valid) t.optimum_ = std::min(t.optimum_, result.time);
    t.by_key_[result.config.key()] = t.results_.size();
    t.results_.push_back(std::move(result));
  }
  if (!std::isfinite(t.optimum_)) throw UsageError(fmt::format("{} has no valid result", path.string()));
  const auto* index = &t.by_key_;
  t.space_ = std::make_unique<SearchSpace>(params, [index](const Config& c) { return index->count(c.key()) > 0; });
  return t;
}

const T4Result* T4Space::lookup(const Config& config) const {
  auto it = by_key_.find(config.key());
  return it == by_key_.end() ? nullptr : &results_[it->second];
}

std::size_t T4Space::valid_count() const {
  std::size_t n = 0;
  for (const T4Result& r : results_) n += r.valid;
  return n;
}

}  // namespace evotune::search
