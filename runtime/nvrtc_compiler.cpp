#include "runtime/nvrtc_compiler.h"

#include <fmt/format.h>
#include <nvrtc.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>

#include "runtime/nvrtc_library.h"
#include "core/sha256.h"

#ifndef EVOTUNE_BUILD_CUDA_INCLUDE
#define EVOTUNE_BUILD_CUDA_INCLUDE ""
#endif

namespace evotune::runtime {
namespace fs = std::filesystem;

namespace {

void check_nvrtc(nvrtcResult result, const char* call, const std::string& label) {
  if (result != NVRTC_SUCCESS) {
    throw std::runtime_error(fmt::format("{} failed: {} [{}]", call, nvrtc().nvrtcGetErrorString(result), label));
  }
}

// Owns an nvrtcProgram so that every exit path destroys it.
struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtc().nvrtcDestroyProgram(p);
    delete p;
  }
};
using ProgramHandle = std::unique_ptr<nvrtcProgram, ProgramDeleter>;

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtc().nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string log(size, '\0');
  nvrtc().nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

const std::string& CompileResult::lowered(const std::string& name_expression) const {
  auto it = lowered_names.find(name_expression);
  if (it == lowered_names.end()) throw std::out_of_range("no kernel was compiled for " + name_expression);
  return it->second;
}

const ResourceUsage& CompileResult::resources_of(const std::string& name_expression) const {
  const std::string& name = lowered(name_expression);
  auto it = resources.find(name);
  if (it == resources.end()) {
    throw std::out_of_range(fmt::format("ptxas reported no resources for {} ({}); the compile log was:\n{}",
                                        name_expression, name, log));
  }
  return it->second;
}

std::vector<fs::path> default_cuda_include_candidates() {
  std::vector<fs::path> candidates;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* value = std::getenv(var); value != nullptr && *value != '\0') {
      candidates.push_back(fs::path(value) / "include");
    }
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      std::error_code ec;
      fs::path nvcc = fs::path(dir) / "nvcc";
      if (!dir.empty() && fs::exists(nvcc, ec)) {
        // bin/nvcc -> <toolkit>/include; follow links (/usr/bin/nvcc -> /usr/local/cuda-13.0/bin/nvcc).
        fs::path real = fs::weakly_canonical(nvcc, ec);
        candidates.push_back(real.parent_path().parent_path() / "include");
        break;
      }
    }
  }
  candidates.emplace_back("/usr/local/cuda/include");
  if (std::string built = EVOTUNE_BUILD_CUDA_INCLUDE; !built.empty()) candidates.emplace_back(built);
  return candidates;
}

fs::path find_cuda_include_dir(const std::vector<fs::path>& candidates) {
  std::string tried;
  for (const fs::path& dir : candidates) {
    std::error_code ec;
    if (fs::exists(dir / "cuda_fp16.h", ec)) return dir;
    tried += (tried.empty() ? "" : ", ") + dir.string();
  }
  throw std::runtime_error(fmt::format(
      "cannot find the CUDA include directory (looked for cuda_fp16.h in: {}); set CUDA_HOME to the toolkit",
      tried.empty() ? "nothing" : tried));
}

namespace {

// The text after `prefix` in `line` up to (not including) the first character of `stop`, or nullopt.
std::optional<std::string> text_after(const std::string& line, std::string_view prefix, std::string_view stop) {
  const std::size_t at = line.find(prefix);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t begin = at + prefix.size();
  const std::size_t end = line.find_first_of(stop, begin);
  return line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The decimal number that ends right before `suffix` in `line` ("24 bytes stack frame" -> 24), or nullopt.
std::optional<int> number_before(const std::string& line, std::string_view suffix) {
  const std::size_t at = line.find(suffix);
  if (at == std::string::npos || at == 0) return std::nullopt;
  std::size_t begin = at;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  if (begin == at) return std::nullopt;
  return std::stoi(line.substr(begin, at - begin));
}

}  // namespace

std::map<std::string, ResourceUsage> parse_ptxas_report(const std::string& log) {
  // ptxas -v prints, per entry function:
  //   ptxas info    : Compiling entry function '_Z...' for 'sm_90a'
  //   ptxas info    : Function properties for _Z...
  //   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  //   ptxas info    : Used 10 registers, used 1 barriers, 256 bytes smem[, 400 bytes cmem[0]]
  // Non-entry (noinline) functions get a "Function properties" block too; only entries are kept.
  // Plain string scanning, not <regex>: the same answers, and this file compiles in half the time (44 s
  // -> 21 s with the sanitizers at -O1 on the 2-core CI machine).
  // ptxas also warns, before compiling it, when it serializes a function's wgmma:
  //   ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due
  //                   to insufficient register resources for the wgmma pipeline in the function '_Z...'
  // or, when the whole function lacks registers (C7512), "... resources for the function '_Z...'".
  std::map<std::string, ResourceUsage> report;
  std::string entry;       // the entry function being compiled
  std::string properties;  // the function the last "Function properties" line named
  std::stringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("wgmma.mma_async instructions are serialized") != std::string::npos) {
      if (std::optional<std::string> name = text_after(line, "the function '", "'")) {
        report[*name].wgmma_serialized = true;
      }
    } else if (std::optional<std::string> name = text_after(line, "Compiling entry function '", "'")) {
      entry = *name;
      report[entry];
    } else if (std::optional<std::string> function = text_after(line, "Function properties for ", " \t\r")) {
      properties = *function;
    } else if (std::optional<int> stack = number_before(line, " bytes stack frame, ")) {
      if (!properties.empty() && properties == entry) {
        ResourceUsage& u = report[entry];
        u.stack_frame_bytes = *stack;
        u.spill_store_bytes = number_before(line, " bytes spill stores").value_or(0);
        u.spill_load_bytes = number_before(line, " bytes spill loads").value_or(0);
      }
    } else if (std::optional<int> registers = number_before(line, " registers");
               registers && line.find("Used ") != std::string::npos && !entry.empty()) {
      ResourceUsage& u = report[entry];
      u.registers = *registers;
      if (std::optional<int> barriers = number_before(line, " barriers")) u.barriers = *barriers;
      if (std::optional<int> smem = number_before(line, " bytes smem")) u.shared_bytes = *smem;
    }
  }
  return report;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtc().nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::vector<int> nvrtc_supported_architectures() {
  int count = 0;
  if (nvrtc().nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (nvrtc().nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  return archs;
}

int cubin_compute_capability(const std::vector<char>& cubin) {
  constexpr std::uint16_t kElfMachineCuda = 190;
  if (cubin.size() < 52 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0) {
    throw std::invalid_argument("not an ELF image");
  }
  std::uint16_t machine = 0;
  std::uint32_t flags = 0;
  std::memcpy(&machine, cubin.data() + 18, sizeof(machine));
  std::memcpy(&flags, cubin.data() + 48, sizeof(flags));  // e_flags of a 64-bit ELF header
  if (machine != kElfMachineCuda) throw std::invalid_argument("ELF image is not a CUDA cubin");
  return static_cast<int>((flags >> 8) & 0xffu);
}

std::string cache_key(const Compiler& compiler, const CompileRequest& request) {
  return sha256_hex(compiler.cache_identity(request));
}

NvrtcCompiler::NvrtcCompiler() : NvrtcCompiler(find_cuda_include_dir(default_cuda_include_candidates())) {}

NvrtcCompiler::NvrtcCompiler(fs::path cuda_include_dir) : cuda_include_dir_(std::move(cuda_include_dir)) {}

std::vector<std::string> NvrtcCompiler::effective_options(const CompileRequest& request) const {
  std::vector<std::string> options = {
      "--gpu-architecture=" + request.target.name(),
      "--std=c++17",
      "-I" + cuda_include_dir_.string(),
      // The resource report comes back in the program log; the validity rules need it.
      "--ptxas-options=-v",
      // NVRTC 13 keeps its own PTX/CUBIN cache when a driver is present; a hit there skips ptxas and
      // returns an empty log, losing the resource report (seen on the H100 machine: the first run of a
      // kernel had a report, every later run none). evotune's cache stores the report with the CUBIN.
      "--no-cache",
  };
  options.insert(options.end(), request.options.begin(), request.options.end());
  return options;
}

std::string NvrtcCompiler::cache_identity(const CompileRequest& request) const {
  // Length-prefixed fields: no two different requests serialize to the same text.
  std::string id;
  auto field = [&](std::string_view s) { id += fmt::format("{}:{};", s.size(), s); };
  field("nvrtc");
  field(nvrtc_version());
  field(request.target.name());
  for (const std::string& option : effective_options(request)) field(option);
  field(request.source_name);
  field(request.source);
  for (const auto& [name, text] : request.headers) {
    field(name);
    field(text);
  }
  for (const std::string& expression : request.name_expressions) field(expression);
  return id;
}

CompileResult NvrtcCompiler::compile(const CompileRequest& request) {
  std::string label = request.label.empty() ? request.source_name : request.label;
  label += " for " + request.target.name();

  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : request.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  ProgramHandle program(new nvrtcProgram{});
  check_nvrtc(nvrtc().nvrtcCreateProgram(program.get(), request.source.c_str(), request.source_name.c_str(),
                                 static_cast<int>(header_texts.size()), header_texts.data(), header_names.data()),
              "nvrtcCreateProgram", label);
  for (const std::string& expression : request.name_expressions) {
    check_nvrtc(nvrtc().nvrtcAddNameExpression(*program, expression.c_str()), "nvrtcAddNameExpression", label);
  }

  std::vector<std::string> options = effective_options(request);
  std::vector<const char*> option_ptrs;
  for (const std::string& o : options) option_ptrs.push_back(o.c_str());

  auto start = std::chrono::steady_clock::now();
  ++invocations_;
  nvrtcResult status = nvrtc().nvrtcCompileProgram(*program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  CompileResult result;
  result.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.log = program_log(*program);
  if (status != NVRTC_SUCCESS) {
    throw CompileError(fmt::format("NVRTC could not compile {}: {}\n{}", label, nvrtc().nvrtcGetErrorString(status), result.log),
                       result.log, result.compile_seconds);
  }

  std::size_t cubin_size = 0;
  check_nvrtc(nvrtc().nvrtcGetCUBINSize(*program, &cubin_size), "nvrtcGetCUBINSize", label);
  result.cubin.resize(cubin_size);
  check_nvrtc(nvrtc().nvrtcGetCUBIN(*program, result.cubin.data()), "nvrtcGetCUBIN", label);
  for (const std::string& expression : request.name_expressions) {
    const char* lowered = nullptr;
    check_nvrtc(nvrtc().nvrtcGetLoweredName(*program, expression.c_str(), &lowered), "nvrtcGetLoweredName", label);
    result.lowered_names[expression] = lowered;
  }
  result.resources = parse_ptxas_report(result.log);
  for (const auto& [expression, lowered] : result.lowered_names) {
    if (!result.resources.contains(lowered)) {
      throw std::runtime_error(fmt::format("NVRTC compiled {} but ptxas reported no resources for {}; log:\n{}",
                                           label, expression, result.log));
    }
  }
  return result;
}

nlohmann::json to_json(const ResourceUsage& u) {
  return {{"registers", u.registers},
          {"shared_bytes", u.shared_bytes},
          {"barriers", u.barriers},
          {"stack_frame_bytes", u.stack_frame_bytes},
          {"spill_store_bytes", u.spill_store_bytes},
          {"spill_load_bytes", u.spill_load_bytes}};
}

void read_log_warnings(CompileResult& result) {
  for (const auto& [name, usage] : parse_ptxas_report(result.log)) {
    if (usage.wgmma_serialized) result.resources[name].wgmma_serialized = true;
  }
}

ResourceUsage resource_usage_from_json(const nlohmann::json& j) {
  ResourceUsage u;
  u.registers = j.at("registers");
  u.shared_bytes = j.at("shared_bytes");
  u.barriers = j.at("barriers");
  u.stack_frame_bytes = j.at("stack_frame_bytes");
  u.spill_store_bytes = j.at("spill_store_bytes");
  u.spill_load_bytes = j.at("spill_load_bytes");
  return u;
}

}  // namespace evotune::runtime
