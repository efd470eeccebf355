// The library baseline (families/attention/host/library_baseline.h): compare_sdpa.py's CSV read into baseline records, the
// child process run end to end with a stand-in script (the real one needs torch and a GPU), and the
// report's headline taken against the strongest library kernel.
#include "families/attention/host/library_baseline.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "evidence/report.h"
#include "evidence/store.h"
#include "tests/test_support.h"

namespace evotune {
namespace {

using attention::Problem;
using evidence::BaselineRecord;

// Rows as compare_sdpa.py writes them (evidence/results/h100/hopper/run_14ed729/sdpa.csv), another problem's rows, and an
// unsupported backend.
constexpr const char* kCsv =
    "problem,backend,status,median_us,min_us,p10_us,p90_us,tflops,gbps,batch,reps,max_abs_err,note\n"
    "\"b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16\",flash,ok,1536.528,1533.920,1535.616,1540.432,"
    "357.791,174.7,1,50,6.999e-05,\n"
    "\"b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16\",cudnn,ok,869.040,855.168,857.094,890.819,"
    "632.601,308.9,1,50,7.647e-05,\n"
    "\"b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16\",cudnn,ok,9.99,9.8,9.9,10.1,107.5,420,40,50,1e-4,\n"
    "\"b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16\",efficient,unsupported,,,,,,,,,,"
    "\"No available kernel, \"\"head dim\"\"\"\n";

TEST(LibraryBaseline, ReadsTheProblemsRowsOfCompareSdpaCsv) {
  const Problem p = Problem::parse("b=4,hq=16,sq=4096,d=128,causal=0,dtype=fp16");
  const std::vector<BaselineRecord> records = harness::library_baselines_from_csv(kCsv, p);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].name, "sdpa_flash");
  EXPECT_DOUBLE_EQ(*records[0].median_us, 1536.528);
  EXPECT_DOUBLE_EQ(*records[1].p10_us, 857.094);
  EXPECT_DOUBLE_EQ(*records[1].tflops, 632.601);
  EXPECT_DOUBLE_EQ(*records[1].max_abs_error, 7.647e-05);
  EXPECT_NE(records[1].detail_json.find("cuDNN backend"), std::string::npos) << records[1].detail_json;
  // A backend that did not run has no time, and says why.
  EXPECT_EQ(records[2].name, "sdpa_efficient");
  EXPECT_FALSE(records[2].median_us.has_value());
  EXPECT_NE(records[2].detail_json.find("unsupported"), std::string::npos);
  EXPECT_NE(records[2].detail_json.find(R"(No available kernel, \"head dim\")"), std::string::npos)
      << records[2].detail_json;
  // The strongest is the fastest with a time.
  const BaselineRecord* strongest = evidence::strongest_library_baseline(records);
  ASSERT_NE(strongest, nullptr);
  EXPECT_EQ(strongest->name, "sdpa_cudnn");
  BaselineRecord cublas;
  cublas.name = "cublas_unfused";
  cublas.median_us = 1.0;  // faster, but not a library kernel of the problem
  EXPECT_EQ(evidence::strongest_library_baseline({cublas}), nullptr);
  EXPECT_THROW(harness::library_baselines_from_csv("problem,backend\n", p), std::runtime_error);
}

void write_script(const std::filesystem::path& path, const std::string& body) {
  std::ofstream(path) << body;
  ::chmod(path.c_str(), 0755);
}

// The child process end to end: the stand-in writes the CSV compare_sdpa.py would, at --csv, for the
// --problem it was given.
TEST(LibraryBaseline, RunsTheScriptAndReadsItsCsv) {
  testing::TempDir dir;
  const std::filesystem::path script = dir.path() / "fake_sdpa.py";
  write_script(script, R"(import sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
assert args["--backends"] == "flash,cudnn", args
with open(args["--csv"], "w") as f:
    f.write("problem,backend,status,median_us,min_us,p10_us,p90_us,tflops,gbps,batch,reps,max_abs_err,note\n")
    batch = args.get("--batch", "1")
    f.write('"%s",flash,ok,20,19,19.5,21,1,1,%s,%s,1e-4,\n' % (args["--problem"], batch, args["--reps"]))
    f.write('"%s",cudnn,ok,10,9,9.5,11,2,2,%s,%s,1e-4,\n' % (args["--problem"], batch, args["--reps"]))
print("a table for a person")
)");
  const Problem p = Problem::parse("b=1,hq=4,hkv=2,sq=100,skv=300,d=64,causal=1,dtype=bf16");
  harness::LibraryBaselineOptions options;
  options.script = script.string();
  options.reps = 7;
  const harness::LibraryBaselines result = harness::measure_library_baselines(p, options);
  EXPECT_EQ(result.unavailable, "");
  ASSERT_EQ(result.records.size(), 2u);
  EXPECT_EQ(result.records[1].name, "sdpa_cudnn");
  EXPECT_DOUBLE_EQ(*result.records[1].median_us, 10.0);
  EXPECT_NE(result.records[1].detail_json.find("\"samples\":7"), std::string::npos) << result.records[1].detail_json;
  EXPECT_NE(result.records[1].detail_json.find("\"calls_per_sample\":1"), std::string::npos);
  // A batch given (a comparison's other side was timed so) reaches the script as --batch.
  options.batch = 11;
  const harness::LibraryBaselines batched = harness::measure_library_baselines(p, options);
  ASSERT_EQ(batched.records.size(), 2u);
  EXPECT_NE(batched.records[1].detail_json.find("\"calls_per_sample\":11"), std::string::npos)
      << batched.records[1].detail_json;
}

// No torch, no GPU for torch, no script: no records, and a reason.
TEST(LibraryBaseline, WithoutTorchThereIsNoneAndItSaysWhy) {
  testing::TempDir dir;
  const std::filesystem::path script = dir.path() / "no_torch.py";
  write_script(script, "import sys\nprint('compare_sdpa.py: PyTorch is not installed', file=sys.stderr)\nsys.exit(1)\n");
  const Problem p = Problem::parse("b=1,hq=4,sq=100,d=64");
  harness::LibraryBaselineOptions options;
  options.script = script.string();
  harness::LibraryBaselines result = harness::measure_library_baselines(p, options);
  EXPECT_TRUE(result.records.empty());
  EXPECT_NE(result.unavailable.find("exited with code 1"), std::string::npos) << result.unavailable;
  options.script = (dir.path() / "missing.py").string();
  result = harness::measure_library_baselines(p, options);
  EXPECT_TRUE(result.records.empty());
  EXPECT_NE(result.unavailable.find("does not exist"), std::string::npos) << result.unavailable;
}

// The checkout's compare_sdpa.py is what a run from the checkout finds.
TEST(LibraryBaseline, FindsTheCheckoutsScript) {
  const std::optional<std::string> found = harness::find_sdpa_script();
  ASSERT_TRUE(found.has_value());
  EXPECT_NE(found->find("scripts/compare_sdpa.py"), std::string::npos);
}

// The report's headline card is the speedup over the strongest library kernel, not over unfused cuBLAS.
TEST(LibraryBaseline, TheReportsHeadlineIsAgainstTheStrongestLibraryKernel) {
  testing::TempDir dir;
  const std::string db = (dir.path() / "r.db").string();
  {
    evidence::Store store(db, evidence::Store::Mode::read_write);
    evidence::RunInfo info;
    info.family = "attention";
    info.problem = "b=1,hq=8,sq=512,d=64";
    info.strategy = "evo";
    info.device = "Test GPU";
    info.budget = 1;
    const std::int64_t run = store.create_run(info);
    evidence::TrialRecord t;
    t.seq = 0;
    t.config_key = "mma=wgmma";
    t.config = "mma=wgmma";
    t.status = evotune::core::TrialStatus::ok;
    t.median_us = 50;
    store.record_trial(run, t);
    for (const auto& [name, us] : std::vector<std::pair<std::string, double>>{
             {"cublas_unfused", 400}, {"sdpa_flash", 80}, {"sdpa_cudnn", 55}}) {
      BaselineRecord b;
      b.name = name;
      b.median_us = us;
      b.detail_json = "{}";
      store.record_baseline(run, b);
    }
    store.finish_run(run, "finished");
  }
  evidence::Store store(db, evidence::Store::Mode::read_only);
  evidence::ReportInput input = evidence::gather_report_input(store, 1, 5);
  const std::string html = evidence::render_report_html(input);
  const std::size_t library = html.find(R"(<div class="value">1.10×</div>)");  // 55 / 50
  const std::size_t cublas = html.find(R"(<div class="value">8.00×</div>)");   // 400 / 50
  ASSERT_NE(library, std::string::npos) << html.substr(0, 4000);
  ASSERT_NE(cublas, std::string::npos);
  EXPECT_LT(library, cublas) << "the library kernel's card comes first";
  EXPECT_NE(html.find("vs sdpa_cudnn (55.00 µs), the strongest library kernel timed in this run"), std::string::npos);
}

}  // namespace
}  // namespace evotune
