// evotune: autotunes GPU kernels by evolutionary search. Subcommands live one per file in cli/.
// Exit codes: 0 success, 1 failure (a compile, a GPU, a file that cannot be written: std::runtime_error),
// 2 usage error (bad options or input files), 3 no CUDA driver or device, 4 internal error: an exception
// no command turned into a message (a logic error, a library's own exception), still reported on one line;
// 130 / 143 a search interrupted by SIGINT (Ctrl-C) / SIGTERM (128 + the signal, as a shell reports a
// process the signal ended), with what finished recorded and one line saying how to resume.
#include <fmt/format.h>
#include <sqlite3.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <string_view>
#include <vector>

#include "cli/cli_common.h"
#include "core/edit_distance.h"
#include "evidence/store.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_properties.h"
#include "core/errors.h"
#include "runtime/interrupt.h"

#ifndef EVOTUNE_VERSION
#define EVOTUNE_VERSION "unknown"
#endif

namespace {

constexpr int kInternalError = 4;

// The candidate nearest to `given`, when it is near enough to be a typo (a third of its letters, at
// least two); empty otherwise.
std::string nearest(std::string_view given, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const std::string& candidate : candidates) {
    const std::size_t d = evotune::edit_distance(given, candidate);
    const std::size_t allowed = std::max<std::size_t>(2, std::max(given.size(), candidate.size()) / 3);
    if (d <= allowed && d < candidate.size() && d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

// After a parse error: the first argument some (sub)command did not know, said as an unknown command or
// option with the nearest valid name when one is near ("unknown command 'serach'; did you mean
// 'search'?"); empty when every argument was known (the error is about something else).
std::string unknown_argument_message(const CLI::App& app) {
  std::vector<const CLI::App*> chain = {&app};
  while (!chain.back()->get_subcommands().empty()) chain.push_back(chain.back()->get_subcommands().front());
  std::string path;
  for (const CLI::App* command : chain) {
    if (command != &app) path += (path.empty() ? "" : " ") + command->get_name();
    const std::vector<std::string> remaining = command->remaining();
    if (remaining.empty()) continue;
    const std::string& given = remaining.front();
    const std::string help = fmt::format("see evotune {}--help", path.empty() ? "" : path + " ");
    const std::string where = path.empty() ? "" : fmt::format(" for {}", path);
    if (given.size() > 1 && given[0] == '-') {
      const std::string name = given.substr(0, given.find('='));
      std::vector<std::string> options;
      for (const CLI::Option* option : command->get_options()) {
        if (option->get_group().empty()) continue;  // hidden (test-only) options are not suggested
        for (const std::string& l : option->get_lnames()) options.push_back("--" + l);
        for (const std::string& s : option->get_snames()) options.push_back("-" + s);
      }
      const std::string suggestion = nearest(name, options);
      if (!suggestion.empty()) {
        return fmt::format("unknown option '{}'{}; did you mean '{}'? ({})", name, where, suggestion, help);
      }
      return fmt::format("unknown option '{}'{} ({})", name, where, help);
    }
    std::vector<std::string> commands;
    for (const CLI::App* sub : command->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
      commands.push_back(sub->get_name());
    }
    if (commands.empty()) return fmt::format("unexpected argument '{}'{} ({})", given, where, help);
    const std::string suggestion = nearest(given, commands);
    if (!suggestion.empty()) return fmt::format("unknown command '{}'{}; did you mean '{}'?", given, where, suggestion);
    return fmt::format("unknown command '{}'{} ({})", given, where, help);
  }
  return {};
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

// Every message below goes through one_line: what it quotes (options, paths, database text) may hold line
// breaks.
using evotune::cli::one_line;

int main(int argc, char** argv) {
  CLI::App app{"evotune: find the fastest configuration of a GPU kernel for one GPU and one problem shape,\n"
               "prove it correct, and keep every measurement as evidence."};
  app.name("evotune");
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text, "Print the version of evotune and of what it runs on");
  app.footer("Exit codes: 0 success, 1 failure, 2 usage error, 3 no CUDA driver or device, 4 internal error,\n"
             "130 / 143 a search interrupted by SIGINT (Ctrl-C) / SIGTERM: what finished is recorded and\n"
             "one line says how to resume it.");
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
  evotune::cli::add_families_command(app, globals);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (const std::string unknown = unknown_argument_message(app); !unknown.empty()) {
      fmt::print(stderr, "evotune: error: {}\n", one_line(unknown));
      return 2;
    }
    fmt::print(stderr, "evotune: error: {} (see evotune --help)\n", one_line(e.what()));
    return 2;
  } catch (const evotune::UsageError& e) {
    fmt::print(stderr, "evotune: error: {}\n", one_line(e.what()));
    return 2;
  } catch (const evotune::evidence::StoreError& e) {
    fmt::print(stderr, "evotune: error: {}\n", one_line(e.what()));
    return 1;
  } catch (const evotune::NoDeviceError& e) {
    fmt::print(stderr, "evotune: {}\n", one_line(e.what()));
    return 3;
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "evotune: error: {}\n", one_line(e.what()));
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "evotune: internal error: {}\n", one_line(e.what()));
    return kInternalError;
  } catch (const evotune::runtime::Interrupted& e) {  // the command has said what it recorded
    return 128 + e.signal;
  } catch (...) {
    fmt::print(stderr, "evotune: internal error: an exception that is not a std::exception\n");
    return kInternalError;
  }
  return 0;
}
