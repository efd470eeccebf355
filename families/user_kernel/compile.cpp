#include "families/user_kernel/compile.h"

#include <fmt/format.h>

namespace evotune::user_kernel {
namespace {

std::vector<std::string> defines(const Spec& spec, const Config& config) {
  std::vector<std::string> out;
  for (const Tunable& t : spec.tunables) {
    if (!spec.is_template_argument(t.name)) out.push_back(fmt::format("-D{}={}", t.name, config.at(t.name)));
  }
  return out;
}

}  // namespace

std::string kernel_name_expression(const Spec& spec, const Config& config) {
  if (spec.template_arguments.empty()) return spec.kernel;
  std::string out = spec.kernel + "<";
  for (std::size_t i = 0; i < spec.template_arguments.size(); ++i)
    out += fmt::format("{}{}", i ? ", " : "", config.at(spec.template_arguments[i]));
  return out + ">";
}

runtime::CompileRequest kernel_compile_request(const Spec& spec, const Config& config, const runtime::Target& target) {
  runtime::CompileRequest r;
  r.source_name = spec.source_name;
  r.source = spec.source_text;
  r.headers = spec.headers;
  r.name_expressions = {kernel_name_expression(spec, config)};
  r.options = defines(spec, config);
  r.options.insert(r.options.end(), spec.compile_options.begin(), spec.compile_options.end());
  r.target = target;
  r.label = fmt::format("{} {}", spec.name, config.key());
  return r;
}

runtime::CompileRequest reference_compile_request(const Spec& spec, const Config& defines_from,
                                                  const runtime::Target& target) {
  runtime::CompileRequest r;
  const bool own_file = !spec.check.reference_source.empty();
  r.source_name = own_file ? spec.check.reference_source.filename().string() : spec.source_name;
  r.source = own_file ? spec.check.reference_source_text : spec.source_text;
  r.headers = spec.headers;
  r.name_expressions = {spec.check.reference};
  if (!own_file) r.options = defines(spec, defines_from);
  r.options.insert(r.options.end(), spec.compile_options.begin(), spec.compile_options.end());
  r.target = target;
  r.label = fmt::format("{} reference {}", spec.name, spec.check.reference);
  return r;
}

std::optional<std::string> rejected_resources(const runtime::ResourceUsage& u) {
  if (u.spill_store_bytes > 0 || u.spill_load_bytes > 0) {
    return fmt::format("register spills ({} bytes stored, {} loaded; {} registers)", u.spill_store_bytes,
                       u.spill_load_bytes, u.registers);
  }
  return std::nullopt;
}

}  // namespace evotune::user_kernel
