// evotune: autotunes GPU kernels by evolutionary search. Subcommands live one per file in cli/.
// Exit codes: 0 success, 1 failure (a compile, a GPU, a file that cannot be written: std::runtime_error),
// 2 usage error (bad options or input files), 3 no CUDA driver or device, 4 internal error: an exception
// no command turned into a message (a logic error, a library's own exception), still reported on one line.
#include <fmt/format.h>
#include <sqlite3.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cli_common.h"
#include "evidence/store.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_properties.h"
#include "runtime/errors.h"

#ifndef EVOTUNE_VERSION
#define EVOTUNE_VERSION "unknown"
#endif

namespace {

constexpr int kInternalError = 4;

// A usage error echoes what the user gave, which may hold line breaks and control bytes; the message stays
// one line on the terminal whatever it holds.
std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
      out += '?';
    } else {
      out += c;
    }
  }
  return out;
}

std::string version_text() {
  std::string driver = "no CUDA driver";
  if (evotune::runtime::driver_available()) {
    int version = 0;
    evotune::runtime::driver().cuDriverGetVersion(&version);
    driver = "CUDA driver " + evotune::runtime::format_cuda_version(version);
  }
  return fmt::format("evotune {} (NVRTC {}, SQLite {}, {})", EVOTUNE_VERSION, evotune::runtime::nvrtc_version(),
                     sqlite3_libversion(), driver);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"evotune: find the fastest configuration of a GPU kernel for one GPU and one problem shape,\n"
               "prove it correct, and keep every measurement as evidence."};
  app.name("evotune");
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text, "Print the version of evotune and of what it runs on");
  // Every option's default in --help (subcommands copy these option defaults when they are added).
  app.option_defaults()->always_capture_default();

  evotune::cli::GlobalOptions globals;
  app.add_option("--cache-dir", globals.cache_dir,
                 "Cubin cache directory (default $EVOTUNE_CACHE_DIR, $XDG_CACHE_HOME/evotune or ~/.cache/evotune)");
  app.add_flag("--no-cache", globals.no_cache, "Compile everything afresh; neither read nor write the cubin cache");

  evotune::cli::add_devices_command(app, globals);
  evotune::cli::add_selftest_command(app, globals);
  evotune::cli::add_bench_command(app, globals);
  evotune::cli::add_compile_command(app, globals);
  evotune::cli::add_compile_bench_command(app, globals);
  evotune::cli::add_compile_server_command(app, globals);
  evotune::cli::add_search_command(app, globals);
  evotune::cli::add_worker_command(app, globals);
  evotune::cli::add_evidence_commands(app, globals);
  evotune::cli::add_export_command(app, globals);
  evotune::cli::add_report_command(app, globals);
  evotune::cli::add_strategy_bench_command(app, globals);
  evotune::cli::add_cache_command(app, globals);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "evotune: error: {} (see evotune --help)\n", one_line(e.what()));
    return 2;
  } catch (const evotune::UsageError& e) {
    fmt::print(stderr, "evotune: error: {}\n", one_line(e.what()));
    return 2;
  } catch (const evotune::evidence::StoreError& e) {
    fmt::print(stderr, "evotune: error: {}\n", e.what());
    return 1;
  } catch (const evotune::NoDeviceError& e) {
    fmt::print(stderr, "evotune: {}\n", e.what());
    return 3;
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "evotune: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "evotune: internal error: {}\n", one_line(e.what()));
    return kInternalError;
  } catch (...) {
    fmt::print(stderr, "evotune: internal error: an exception that is not a std::exception\n");
    return kInternalError;
  }
  return 0;
}
