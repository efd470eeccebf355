// evotune compile-server: the child process that compiles for a search's compile pool (see
// runtime/compile_processes.h). Requests arrive on stdin, replies leave on stdout; it exits when stdin
// closes. Started by the pool, not by hand.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>

#include "cli/cli_common.h"
#include "runtime/compile_processes.h"
#include "core/errors.h"

namespace evotune::cli {
namespace {

// Test only: crash or hang on requests whose label contains a marker, so the pool's handling of a dying
// or stuck compiler can be tested without a compiler bug.
class MisbehavingCompiler : public runtime::Compiler {
 public:
  MisbehavingCompiler(runtime::Compiler& inner, std::string crash_on, std::string hang_on)
      : inner_(inner), crash_on_(std::move(crash_on)), hang_on_(std::move(hang_on)) {}
  runtime::CompileResult compile(const runtime::CompileRequest& request) override {
    if (!crash_on_.empty() && request.label.find(crash_on_) != std::string::npos) std::abort();
    if (!hang_on_.empty() && request.label.find(hang_on_) != std::string::npos) {
      for (;;) pause();
    }
    return inner_.compile(request);
  }
  std::string cache_identity(const runtime::CompileRequest& request) const override {
    return inner_.cache_identity(request);
  }

 private:
  runtime::Compiler& inner_;
  std::string crash_on_, hang_on_;
};

}  // namespace

void add_compile_server_command(CLI::App& app, const GlobalOptions&) {
  auto* cmd = app.add_subcommand("compile-server", "Compile requests from stdin for a compile pool (started by evotune)");
  cmd->group("");  // internal: not listed in --help
  struct Options {
    std::string cuda_include;
    int niceness = 0;
    std::string crash_on, hang_on;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--cuda-include", opt->cuda_include, "CUDA include directory NVRTC uses")->required();
  cmd->add_option("--nice", opt->niceness, "scheduling priority offset (nice) of this process")
      ->check(WholeNumber(0, 19));
  cmd->add_option("--test-crash-on", opt->crash_on)->group("");
  cmd->add_option("--test-hang-on", opt->hang_on)->group("");
  cmd->callback([opt] {
    if (opt->niceness > 0) setpriority(PRIO_PROCESS, 0, opt->niceness);
    runtime::NvrtcCompiler nvrtc(opt->cuda_include);
    MisbehavingCompiler compiler(nvrtc, opt->crash_on, opt->hang_on);
    if (runtime::serve_compile_requests(STDIN_FILENO, STDOUT_FILENO, compiler) != 0) {
      throw std::runtime_error("compile-server: unreadable request on stdin");
    }
  });
}

}  // namespace evotune::cli
