#include "evidence/export_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "evidence/config_text.h"

namespace evotune::evidence {
namespace {

RunInfo require_run(const Store& store, std::int64_t run_id) {
  std::optional<RunInfo> info = store.run_info(run_id);
  if (!info) throw StoreError(fmt::format("no run {} in this database", run_id));
  return std::move(*info);
}

// ---- CSV -----------------------------------------------------------------------------------------------

// A cell that is a plain decimal number, negative or not ("-12", "1.5e-3"): spreadsheets read it as a
// number, never as a formula, so the numeric columns (and numeric labels such as a replayed space's "-1")
// stay numbers. A leading '+' is not plain: evotune never writes one, and OWASP lists it.
bool plain_number(const std::string& text) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > from;
  };
  if (i < text.size() && text[i] == '-') ++i;
  const bool whole = digits();
  bool fraction = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    fraction = digits();
  }
  if (!whole && !fraction) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

// RFC 4180: a field holding a separator, a quote or a line break is quoted, its quotes doubled. And, as
// OWASP's CSV-injection guidance says, a cell that a spreadsheet would run as a formula (one starting with
// '=', '+', '-', '@', a tab or a carriage return) is written with a leading single quote and quoted, so
// it reads as the text it is; plain numbers are left as they are (see plain_number).
std::string csv_field(const std::string& text) {
  const bool formula = !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos &&
                       !plain_number(text);
  if (!formula && text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = formula ? "\"'" : "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

void append_row(std::string& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(fields[i]);
  }
  out += '\n';
}

// fmt's "{}" writes the shortest text that reads back as the same double.
std::string number(double v) { return fmt::format("{}", v); }
std::string number(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

// A trial's config text, "name=label,name=label,...", as (name, label) pairs in order.
std::vector<std::pair<std::string, std::string>> config_labels(const TrialRecord& trial, std::int64_t run_id) {
  auto pairs = split_config_text(trial.config);
  if (!pairs) {
    throw StoreError(fmt::format("trial {} of run {} has a config that is not name=value,...: '{}'", trial.seq,
                                 run_id, trial.config));
  }
  return std::move(*pairs);
}

// ---- T4 --------------------------------------------------------------------------------------------------
//
// Kernel Tuner's T4 results schema 1.0.0 (kernel_tuner/schema/T4/1.0.0/results-schema.json in
// github.com/KernelTuner/kernel_tuner) requires configuration, times, invalidity and correctness in each
// result and allows anything else. What evotune writes, times in milliseconds (the store has microseconds):
//
//   schema_version           "1.0.0"
//   metadata.timeunit        "milliseconds" (the published files carry it; the schema does not define it)
//   metadata.environment     {"device_query": the device's properties as `evotune devices --json` prints
//                            them}, when the run has a device (the T4 metadata schema's place for it)
//   metadata.evotune         the run: run_id, family, problem, problem_json, strategy, seed, budget, device,
//                            versions, options, created_at, status, and compiled_not_exported (below)
//   results[]                one per trial, in seq order:
//     configuration          tunable name -> value from the trial's config labels: a label that is JSON
//                            text of a number, boolean or string is written as that value ("128" -> 128,
//                            "0.5" -> 0.5, "true" -> true, "\"1\"" -> "1"), any other label as a string
//                            ("mma_sync"). A replayed T4 space's labels are type-faithful
//                            (search::t4_label), so exporting a replay gives back exactly the values it
//                            replayed, a string "1" as "1" and a number 1 as 1.
//     times.compilation      compile_seconds x 1000. The schema's list names "compilation_time", but Kernel
//                            Tuner writes "compilation", and so do the published files and the tools that
//                            read them (autotuning_methodology), so evotune follows them.
//     times.runtimes         every raw timing sample (empty when the kernel was not timed)
//     invalidity             ok -> "correct"; compile_error, compile_timeout -> "compile"; launch_error,
//                            crash -> "runtime";
//                            timeout -> "timeout"; wrong_result -> "correctness"; invalid (rejected by the
//                            family's rules or for register spills) -> "constraints". These are six of the
//                            schema's enum, which is exactly: timeout, compile, runtime, correctness,
//                            constraints, correct.
//     correctness            1 for ok, 0 otherwise
//     measurements           what was recorded for the trial: {"name": "time", "value": median, "unit": "ms"}
//                            (the objective; only ok trials are timed), tflops ("TFLOP/s"), gbps ("GB/s"),
//                            max_abs_error and rel_l2_error (unit ""; a wrong result has them too)
//     objectives             ["time"]
//     timestamp              when the trial was recorded (UTC, ISO 8601)
//
// Trials with status "compiled" (a compile-only sweep: built and accepted, never run) are left out:
// without a run there is neither a time nor a correctness verdict, and every invalidity value would claim
// one ("correct" that the config was checked, the others that it failed).

nlohmann::json configuration_value(const std::string& label) {
  nlohmann::json parsed = nlohmann::json::parse(label, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_number() || parsed.is_boolean() || parsed.is_string()) return parsed;
  return label;
}

std::string invalidity(const TrialRecord& trial, std::int64_t run_id) {
  switch (trial.status) {
    case TrialStatus::ok:
      return "correct";
    case TrialStatus::compile_error:
    case TrialStatus::compile_timeout:  // T4 has no compile-timeout value
      return "compile";
    case TrialStatus::launch_error:
    case TrialStatus::crash:
      return "runtime";
    case TrialStatus::timeout:
      return "timeout";
    case TrialStatus::wrong_result:
      return "correctness";
    case TrialStatus::invalid:
      return "constraints";
    case TrialStatus::compiled:
      break;
  }
  throw StoreError(fmt::format("trial {} of run {} has status '{}', which has no T4 invalidity", trial.seq,
                               run_id, core::status_name(trial.status)));
}

double ms(double us) { return us / 1000.0; }

// The stored JSON columns as JSON; text that is not JSON (never written by evotune) stays text.
nlohmann::json stored_json(const std::string& text) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? nlohmann::json(text) : parsed;
}

nlohmann::json t4_result(const TrialRecord& trial, std::int64_t run_id) {
  nlohmann::json configuration = nlohmann::json::object();
  for (const auto& [name, label] : config_labels(trial, run_id)) configuration[name] = configuration_value(label);
  nlohmann::json runtimes = nlohmann::json::array();
  for (double us : trial.samples_us) runtimes.push_back(ms(us));
  struct Measurement {
    const char* name;
    const char* unit;
    std::optional<double> value;
  };
  const Measurement recorded[] = {{"time", "ms", trial.median_us ? std::optional(ms(*trial.median_us)) : std::nullopt},
                                  {"tflops", "TFLOP/s", trial.tflops},
                                  {"gbps", "GB/s", trial.gbps},
                                  {"max_abs_error", "", trial.max_abs_error},
                                  {"rel_l2_error", "", trial.rel_l2_error}};
  nlohmann::json measurements = nlohmann::json::array();
  for (const Measurement& m : recorded) {
    if (m.value) measurements.push_back(nlohmann::json{{"name", m.name}, {"value", *m.value}, {"unit", m.unit}});
  }
  return {{"timestamp", trial.created_at},
          {"configuration", std::move(configuration)},
          {"times", {{"compilation", trial.compile_seconds * 1000.0}, {"runtimes", std::move(runtimes)}}},
          {"invalidity", invalidity(trial, run_id)},
          {"correctness", core::is_valid(trial.status) ? 1 : 0},
          {"measurements", std::move(measurements)},
          {"objectives", nlohmann::json::array({"time"})}};
}

}  // namespace

std::string trials_csv(const Store& store, std::int64_t run_id) {
  require_run(store, run_id);
  const std::vector<TrialRecord> trials = store.trials(run_id);
  // Tunable columns: every name in the trials' configs, in the order they first appear (all trials of a
  // run normally share one parameter list).
  std::vector<std::vector<std::pair<std::string, std::string>>> labels;
  std::vector<std::string> tunables;
  for (const TrialRecord& t : trials) {
    labels.push_back(config_labels(t, run_id));
    for (const auto& [name, label] : labels.back()) {
      if (std::find(tunables.begin(), tunables.end(), name) == tunables.end()) tunables.push_back(name);
    }
  }
  std::vector<std::string> header = {"run_id", "seq", "generation", "status", "config_key", "config"};
  header.insert(header.end(), tunables.begin(), tunables.end());
  for (const char* column : {"median_us", "min_us", "p10_us", "p90_us", "tflops", "gbps", "max_abs_error",
                             "rel_l2_error", "compile_seconds", "samples", "error"}) {
    header.emplace_back(column);
  }
  std::string out;
  append_row(out, header);
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const TrialRecord& t = trials[i];
    std::vector<std::string> row = {std::to_string(run_id), std::to_string(t.seq), std::to_string(t.generation),
                                    core::status_name(t.status), t.config_key, t.config};
    for (const std::string& name : tunables) {
      auto it = std::find_if(labels[i].begin(), labels[i].end(), [&](const auto& p) { return p.first == name; });
      row.push_back(it == labels[i].end() ? std::string() : it->second);
    }
    for (const auto& v : {t.median_us, t.min_us, t.p10_us, t.p90_us, t.tflops, t.gbps, t.max_abs_error, t.rel_l2_error}) {
      row.push_back(number(v));
    }
    row.push_back(number(t.compile_seconds));
    row.push_back(std::to_string(t.samples_us.size()));
    row.push_back(t.error);
    append_row(out, row);
  }
  return out;
}

std::string evo_log_csv(const Store& store, std::optional<std::int64_t> run_id) {
  if (run_id) require_run(store, *run_id);
  std::string out;
  append_row(out, {"run_id", "generation", "evaluated", "valid", "generation_best_us", "best_so_far_us",
                   "generation_median_us"});
  for (const EvoLogRow& r : store.evo_log(run_id)) {
    append_row(out, {std::to_string(r.run_id), std::to_string(r.generation), std::to_string(r.evaluated),
                     std::to_string(r.valid), number(r.generation_best_us), number(r.best_so_far_us),
                     number(r.generation_median_us)});
  }
  return out;
}

nlohmann::json t4_results(const Store& store, std::int64_t run_id) {
  const RunInfo info = require_run(store, run_id);
  nlohmann::json results = nlohmann::json::array();
  int compiled_not_exported = 0;
  for (const TrialRecord& t : store.trials(run_id)) {
    if (t.status == TrialStatus::compiled) {
      ++compiled_not_exported;
    } else {
      results.push_back(t4_result(t, run_id));
    }
  }
  nlohmann::json run = {{"run_id", run_id},
                        {"family", info.family},
                        {"problem", info.problem},
                        {"problem_json", stored_json(info.problem_json)},
                        {"strategy", info.strategy},
                        {"seed", info.seed},
                        {"budget", info.budget},
                        {"device", info.device},
                        {"versions", info.versions},
                        {"options", stored_json(info.options_json)},
                        {"compiled_not_exported", compiled_not_exported}};
  for (const RunRow& row : store.runs()) {
    if (row.id == run_id) {
      run["created_at"] = row.created_at;
      run["status"] = row.status;
    }
  }
  nlohmann::json metadata = {{"timeunit", "milliseconds"}, {"evotune", std::move(run)}};
  const nlohmann::json device = stored_json(info.device_json);
  if (device.is_object() && !device.empty()) metadata["environment"] = {{"device_query", device}};
  return {{"schema_version", "1.0.0"}, {"metadata", std::move(metadata)}, {"results", std::move(results)}};
}

}  // namespace evotune::evidence
