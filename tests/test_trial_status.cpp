// core/trial_status.h: every status has one name, the names read back, and they are the names the store's
// trials table admits (its CHECK list) and the worker's JSON carries; the prepare stage's rejections map to
// their statuses (harness/rejection_status.h).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/trial.h"
#include "core/trial_status.h"
#include "evidence/store.h"
#include "evidence/trial_json.h"
#include "harness/rejection_status.h"
#include "tests/test_support.h"

using evotune::core::kTrialStatuses;
using evotune::core::TrialStatus;

namespace {

// The quoted names in the CHECK list of the trials table's status column, as the file holds it.
std::set<std::string> trials_status_check_list(const std::string& db) {
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(raw);
    throw std::runtime_error("cannot open " + db);
  }
  sqlite3_stmt* stmt = nullptr;
  std::string sql;
  if (sqlite3_prepare_v2(raw, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'trials'", -1,
                         &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    sql = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
  std::smatch check;
  if (!std::regex_search(
          sql, check, std::regex(R"(status\s+TEXT\s+NOT\s+NULL\s+CHECK\s*\(\s*status\s+IN\s*\(([^)]*)\))"))) {
    throw std::runtime_error("no CHECK list on trials.status in: " + sql);
  }
  std::set<std::string> names;
  const std::string list = check[1];
  const std::regex quoted("'([^']*)'");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), quoted); it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

evotune::core::RunInfo status_test_run() {
  evotune::core::RunInfo info;
  info.family = "attention";
  info.problem = "b=1,hq=8";
  info.problem_json = "{}";
  info.strategy = "random";
  info.device = "test device";
  info.device_json = "{}";
  info.versions = "evotune test";
  info.options_json = "{}";
  return info;
}

}  // namespace

TEST(TrialStatus, EveryValueHasOneNameThatParsesBack) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kTrialStatuses.size(); ++i) {
    const TrialStatus s = kTrialStatuses[i];
    EXPECT_EQ(static_cast<std::size_t>(s), i) << "kTrialStatuses lists the values in order, each once";
    names.insert(evotune::core::status_name(s));
    EXPECT_EQ(evotune::core::parse_status(evotune::core::status_name(s)), s);
  }
  EXPECT_EQ(names, (std::set<std::string>{"ok", "invalid", "compile_error", "compile_timeout", "launch_error",
                                          "wrong_result", "timeout", "crash", "compiled"}));
  for (const char* other : {"", "OK", "ok ", "fast", "unknown", "running"}) {
    EXPECT_EQ(evotune::core::parse_status(other), std::nullopt) << other;
  }
  std::ostringstream out;
  out << TrialStatus::compile_timeout;
  EXPECT_EQ(out.str(), "compile_timeout");
}

TEST(TrialStatus, OnlyOkIsValid) {
  for (TrialStatus s : kTrialStatuses) {
    EXPECT_EQ(evotune::core::is_valid(s), s == TrialStatus::ok) << s;
  }
  EXPECT_FALSE(evotune::core::is_valid(evotune::core::TrialRecord{}.status))
      << "an unjudged record is not valid";
}

// The store keeps the names: its CHECK list must be exactly status_name over kTrialStatuses, or a status
// would be refused on insert (a name missing there) or the list would admit what no evotune writes.
TEST(TrialStatus, StoreCheckListIsTheStatusNames) {
  evotune::testing::TempDir dir;
  const std::string db = (dir.path() / "status.db").string();
  {
    evotune::evidence::Store store(db, evotune::evidence::Store::Mode::read_write);
    const std::int64_t run = store.create_run(status_test_run());
    int seq = 0;
    for (TrialStatus s : kTrialStatuses) {
      evotune::core::TrialRecord t;
      t.seq = seq;
      t.config_key = t.config = "c=" + std::to_string(seq);
      t.status = s;
      store.record_trial(run, t);
      ++seq;
    }
    const std::vector<evotune::core::TrialRecord> back = store.trials(run);
    ASSERT_EQ(back.size(), kTrialStatuses.size());
    for (std::size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i].status, kTrialStatuses[i]);
  }
  std::set<std::string> names;
  for (TrialStatus s : kTrialStatuses) names.insert(evotune::core::status_name(s));
  EXPECT_EQ(trials_status_check_list(db), names);
}

TEST(TrialStatus, WorkerJsonCarriesTheNameAndRefusesAnUnknownOne) {
  for (TrialStatus s : kTrialStatuses) {
    evotune::core::TrialRecord t;
    t.status = s;
    const nlohmann::json j = evotune::evidence::to_json(t);
    EXPECT_EQ(j.at("status"), evotune::core::status_name(s));
    EXPECT_EQ(evotune::evidence::trial_from_json(j).status, s);
  }
  nlohmann::json j = evotune::evidence::to_json(evotune::core::TrialRecord{});
  j["status"] = "fast";
  EXPECT_THROW(evotune::evidence::trial_from_json(j), std::runtime_error);
}

TEST(TrialStatus, RejectionsMapToTheirStatuses) {
  using Kind = evotune::runtime::Rejection::Kind;
  const std::pair<Kind, TrialStatus> expected[] = {{Kind::rule, TrialStatus::invalid},
                                                   {Kind::compile_error, TrialStatus::compile_error},
                                                   {Kind::compile_timeout, TrialStatus::compile_timeout},
                                                   {Kind::resources, TrialStatus::invalid}};
  for (const auto& [kind, status] : expected) {
    evotune::runtime::Rejection r;
    r.kind = kind;
    EXPECT_EQ(evotune::harness::trial_status(r), status);
  }
}
