#pragma once
// Exports of the evidence store for other tools: the trials of a run and the evo_log view as CSV (for
// spreadsheets, pandas, R), and a run as a Kernel Tuner T4 results document (for the auto-tuning
// community's tools, and for `evotune search --replay` / `strategy-bench`). Plain data in, text or JSON
// out: nothing here knows a kernel family.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "evidence/store.h"

namespace evotune::evidence {

// RFC 4180 CSV (header row; fields quoted when they hold a comma, quote or newline; \n line ends). A text
// cell that starts with = + - @ tab or CR is written '-prefixed and quoted (OWASP CSV injection); plain
// numbers, negative ones included, are written as they are (both CSVs). trials_csv: one row per trial
// of the run, in seq order. Columns: run_id, seq, generation, status, config_key, config, one column per tunable (its label), then median_us, min_us, p10_us, p90_us, tflops, gbps,
// max_abs_error, rel_l2_error, compile_seconds, samples (how many raw samples), error. A number that was
// not recorded is an empty cell; the others are written with the fewest digits that read back exactly.
std::string trials_csv(const Store& store, std::int64_t run_id);

// The evo_log view as CSV, one row per run x generation (all runs when run_id is empty): run_id,
// generation, evaluated, valid, generation_best_us, best_so_far_us, generation_median_us.
std::string evo_log_csv(const Store& store, std::optional<std::int64_t> run_id);

// The run as a Kernel Tuner T4 results document (schema_version "1.0.0"), times in milliseconds. Trials
// that were only compiled (a compile-only sweep) have neither a time nor a verdict and are left out;
// metadata.evotune.compiled_not_exported counts them. export_tables.cpp says which field holds what.
nlohmann::json t4_results(const Store& store, std::int64_t run_id);

// All three throw StoreError for a run id that is not in the database.

}  // namespace evotune::evidence
