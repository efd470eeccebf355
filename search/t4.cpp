#include "search/t4.h"

#include <fmt/format.h>
#include <zlib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/errors.h"

namespace evotune::search {
namespace {

// Gunzips `bytes` (one or more gzip members) and stops past max_bytes of content: a small .gz can expand a
// thousandfold (a gzip bomb). Bytes that do not start with gzip's magic are the content itself.
std::string gunzip_bounded(const std::filesystem::path& path, const std::string& bytes, std::size_t max_bytes) {
  const auto too_large = [&] {
    return UsageError(fmt::format("{} is larger than {} MiB (decompressed); T4 files beyond that are refused",
                                  path.string(), max_bytes >> 20));
  };
  const bool gzipped = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
                       static_cast<unsigned char>(bytes[1]) == 0x8b;
  if (!gzipped) {
    if (bytes.size() > max_bytes) throw too_large();
    return bytes;
  }
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
  std::string data;
  char buffer[1 << 16];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());  // at most kT4MaxFileBytes, below 4 GiB
  int status = Z_OK;
  std::string failure;
  for (;;) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    status = inflate(&stream, Z_NO_FLUSH);
    const std::size_t produced = sizeof(buffer) - stream.avail_out;
    if (data.size() + produced > max_bytes) {
      inflateEnd(&stream);
      throw too_large();
    }
    data.append(buffer, produced);
    if (status == Z_STREAM_END) {
      // Another gzip member is read on, as gzread does; anything else after the end is ignored, as it does.
      if (stream.avail_in < 2 || stream.next_in[0] != 0x1f || stream.next_in[1] != 0x8b) break;
      inflateReset(&stream);
      continue;
    }
    if (status != Z_OK) {
      failure = stream.msg != nullptr       ? stream.msg
                : status == Z_BUF_ERROR ? "truncated gzip data"
                                        : "corrupt gzip data";
      break;
    }
    if (stream.avail_in == 0 && produced == 0) {
      failure = "truncated gzip data";
      break;
    }
  }
  inflateEnd(&stream);
  if (!failure.empty()) throw UsageError(fmt::format("cannot read T4 file {}: {}", path.string(), failure));
  return data;
}

// JSON nested deeper than max_depth arrays and objects (the parser would build every level: a file of '['
// grows to gigabytes), found by one pass over the text; strings are skipped.
void refuse_deep_nesting(const std::filesystem::path& path, const std::string& text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        throw UsageError(fmt::format("{} nests arrays and objects deeper than {} levels (at byte {}); T4 files "
                                     "nest about 5",
                                     path.string(), max_depth, i));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// Parameter names and string values come back as config text ("name=value,...", one line), so they may
// hold neither of its separators nor control bytes (NUL included).
std::optional<std::string> unwritable(const std::string& text) {
  if (text.empty()) return "is empty";
  for (char c : text) {
    if (c == ',' || c == '=') return fmt::format("holds '{}'", c);
    if (static_cast<unsigned char>(c) < 0x20) return fmt::format("holds control byte {:#04x}", static_cast<int>(c));
  }
  return std::nullopt;
}

// One line naming the file and the entry for every way a document can be wrong.
class DocumentError {
 public:
  explicit DocumentError(const std::filesystem::path& path) : path_(path.string()) {}
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw UsageError(fmt::format("{} is not a usable T4 file: {}: {}", path_, where, what));
  }

 private:
  std::string path_;
};

}  // namespace

std::string t4_label(const nlohmann::json& value) {
  if (!value.is_string()) return value.dump();
  const std::string& text = value.get_ref<const std::string&>();
  // A string that reads as JSON ("1", "true", "0.5", "null", " 2") is quoted, or it would read back as that
  // value; any other string is its own label.
  const bool reads_as_json = !nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false).is_discarded();
  return reads_as_json ? value.dump() : text;
}

std::string read_t4_file(const std::filesystem::path& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO without a writer would otherwise wait for one; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw UsageError(fmt::format("cannot open T4 file {}: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    // A device or pipe has no end to read to (/dev/zero), and a recorded space is read more than once (its
    // hash, then its content, in the search and in every worker).
    throw UsageError(fmt::format("T4 file {} is not a regular file", path.string()));
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw UsageError(fmt::format("T4 file {} is larger than {} MiB; T4 files beyond that are refused",
                                 path.string(), max_bytes >> 20));
  }
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw UsageError(fmt::format("cannot read T4 file {}: {}", path.string(), std::strerror(error)));
    }
    if (n == 0) break;
    // A file that grows while it is read stops at the limit all the same.
    if (bytes.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      throw UsageError(fmt::format("T4 file {} is larger than {} MiB; T4 files beyond that are refused",
                                   path.string(), max_bytes >> 20));
    }
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return bytes;
}

T4Space T4Space::load(const std::filesystem::path& path, std::size_t max_bytes) {
  nlohmann::json doc;
  try {
    // Parsed from a character range, not the string: the parser's instantiation for this input is then
    // this file's alone, which the sanitizer build compiles at -O2 (search/CMakeLists.txt). Parsing the
    // string would share its instantiation with the CLI's, and the linker may keep the CLI's -O0 copy.
    const std::string text = gunzip_bounded(path, read_t4_file(path, max_bytes), max_bytes);
    refuse_deep_nesting(path, text, kT4MaxNestingDepth);
    doc = nlohmann::json::parse(text.data(), text.data() + text.size());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{} is not valid JSON: {}", path.string(), e.what()));
  }
  const DocumentError error(path);
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array() || doc["results"].empty()) {
    throw UsageError(fmt::format("{} is not a T4 file: no \"results\" array", path.string()));
  }
  const nlohmann::json& results = doc["results"];
  auto where = [](std::size_t i) { return fmt::format("results[{}]", i); };
  // Structure first, so that everything below reads checked values: each result's values in the order of
  // names, as their JSON text (a value's text names it in the domain below).
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> value_texts(results.size());
  std::vector<bool> integral;  // per parameter: every value an integer
  for (std::size_t i = 0; i < results.size(); ++i) {
    const nlohmann::json& r = results[i];
    if (!r.is_object()) error.fail(where(i), "not an object");
    if (!r.contains("configuration") || !r["configuration"].is_object() || r["configuration"].empty()) {
      error.fail(where(i), "no \"configuration\" object with parameters");
    }
    const nlohmann::json& configuration = r["configuration"];
    if (i == 0) {
      for (const auto& [name, value] : configuration.items()) {
        if (auto why = unwritable(name)) error.fail(where(i), fmt::format("parameter name {} {}", nlohmann::json(name).dump(), *why));
        names.push_back(name);
      }
      integral.assign(names.size(), true);
    } else if (configuration.size() != names.size()) {
      error.fail(where(i), fmt::format("{} parameters where results[0] has {}", configuration.size(), names.size()));
    }
    value_texts[i].reserve(names.size());
    for (std::size_t k = 0; k < names.size(); ++k) {
      const std::string& n = names[k];
      const auto found = configuration.find(n);
      if (found == configuration.end()) error.fail(where(i), fmt::format("no value for parameter {}", n));
      const nlohmann::json& v = *found;
      if (v.is_number_integer()) {
        const bool in_range = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT_MAX)
                                                     : v.get<std::int64_t>() >= INT_MIN && v.get<std::int64_t>() <= INT_MAX;
        if (!in_range) error.fail(where(i), fmt::format("{}={} is beyond the range of an int", n, v.dump()));
      } else if (v.is_string()) {
        if (auto why = unwritable(v.get<std::string>())) error.fail(where(i), fmt::format("{}={} {}", n, v.dump(), *why));
      } else if (!v.is_number() && !v.is_boolean()) {
        error.fail(where(i), fmt::format("{} is {}, not a number, string or boolean", n, v.type_name()));
      } else if (v.is_number_float() && !std::isfinite(v.get<double>())) {
        error.fail(where(i), fmt::format("{} is not a finite number", n));
      }
      if (!v.is_number_integer()) integral[k] = false;
      value_texts[i].push_back(v.dump());
    }
    if (r.contains("invalidity") && !r["invalidity"].is_string()) error.fail(where(i), "\"invalidity\" is not a string");
  }

  T4Space t;
  t.name_ = path.filename().string();
  // Domains: each parameter's distinct values. Integral values stay integers; anything else becomes
  // an ordered categorical parameter (values are indices in the order of the values' JSON text; labels as
  // t4_label says, one per distinct value, so a string "1" and a number 1 stay two configs).
  std::vector<std::set<std::string>> texts(names.size());
  for (const auto& row : value_texts) {
    for (std::size_t k = 0; k < names.size(); ++k) texts[k].insert(row[k]);
  }
  std::vector<Parameter> params;
  std::vector<std::map<std::string, int>> encode(names.size());  // parameter -> JSON text -> value
  for (std::size_t k = 0; k < names.size(); ++k) {
    Parameter p;
    p.name = names[k];
    if (integral[k]) {
      std::set<long long> values;
      for (const std::string& s : texts[k]) values.insert(std::stoll(s));  // checked above: within int
      for (long long v : values) {
        p.values.push_back(static_cast<int>(v));
        encode[k][std::to_string(v)] = static_cast<int>(v);
      }
    } else {
      int index = 0;
      for (const std::string& s : texts[k]) {
        p.values.push_back(index);
        p.labels.push_back(t4_label(nlohmann::json::parse(s)));
        encode[k][s] = index++;
      }
    }
    params.push_back(std::move(p));
  }
  t.optimum_ = INFINITY;
  std::vector<Config> members;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const nlohmann::json& r = results[i];
    T4Result result;
    for (std::size_t k = 0; k < names.size(); ++k) {
      result.config.set(names[k], encode[k].at(value_texts[i][k]));
    }
    result.invalidity = r.contains("invalidity") ? r["invalidity"].get<std::string>() : "correct";
    result.valid = result.invalidity == "correct";
    if (result.valid) {
      std::optional<double> time;
      if (r.contains("measurements")) {
        if (!r["measurements"].is_array()) error.fail(where(i), "\"measurements\" is not an array");
        for (const auto& m : r["measurements"]) {
          if (!m.is_object()) error.fail(where(i), "a measurement is not an object");
          if (!m.contains("name") || m["name"] != "time") continue;
          if (!m.contains("value") || !m["value"].is_number()) error.fail(where(i), "the time is not a number");
          time = m["value"].get<double>();
          // A time of zero or less (or not finite) cannot be compared as a speed; it is a broken record.
          if (!std::isfinite(*time) || *time <= 0) error.fail(where(i), fmt::format("time {} is not positive", m["value"].dump()));
        }
      }
      if (time) {
        result.time = *time;
      } else {
        result.valid = false;
        result.invalidity = "no time";
      }
    }
    if (result.valid) t.optimum_ = std::min(t.optimum_, result.time);
    const std::string key = result.config.key();
    if (t.by_key_.count(key)) error.fail(where(i), fmt::format("configuration {} is recorded twice", key));
    t.by_key_[key] = t.results_.size();
    members.push_back(result.config);
    t.results_.push_back(std::move(result));
  }
  if (!std::isfinite(t.optimum_)) throw UsageError(fmt::format("{} has no valid result", path.string()));
  t.space_ = std::make_unique<SearchSpace>(params, std::move(members));
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
