#pragma once
// A kernel spec (docs/kernel-spec.md): a user's CUDA kernel described in TOML, read and checked whole.
// Every mistake is one UsageError line "<spec path>:<line>: <what>" (core/errors.h).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "families/user_kernel/dtype.h"
#include "families/user_kernel/expression.h"

namespace evotune::user_kernel {

// An expression with where it stands and what it is for ("grid expression", "restriction").
struct SpecExpression {
  std::string role;
  int line = 0;
  Expression expression;
  const std::string& text() const { return expression.text(); }
};

struct Tunable {
  std::string name;
  std::vector<int> values;
  int line = 0;
};

struct Argument {
  std::string name;
  DType dtype = DType::float32;
  int line = 0;
  // A buffer has `size` (elements); a scalar has `value`.
  std::optional<SpecExpression> size, value;
  bool output = false;
  enum class Fill { random, zero, file } fill = Fill::random;
  std::string fill_file;  // Fill::file: relative to the spec's directory, {size} placeholders allowed
  bool buffer() const { return size.has_value(); }
};

struct SpecCheck {
  std::string reference;  // a name expression in the source (or reference_source); empty with `expected`
  std::filesystem::path reference_source;  // empty: the kernel's own source
  std::string reference_source_text;
  std::vector<SpecExpression> reference_block, reference_grid;
  std::optional<SpecExpression> reference_shared_bytes;
  double atol = 0, rtol = 0;
  std::map<std::string, std::string> expected;  // output name -> file (relative, {size} placeholders allowed)
  int line = 0;
};

struct SpecBaseline {
  std::string name;
  std::vector<std::string> command;  // {device}, {batch} and {<size>} are substituted
  double timeout_s = 600;
  int line = 0;
};

struct Spec {
  std::string path;  // as given: what error messages name
  std::filesystem::path directory;
  std::string text;  // the spec file's bytes
  std::string name, description;
  std::filesystem::path source;  // absolute
  std::string source_name;       // as the spec wrote it
  std::string source_text;
  // Files the sources #include "by name" from the spec's directory, as NVRTC sees them: name -> text.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string kernel;
  std::vector<std::string> compile_options;

  std::vector<std::string> sizes;                   // problem size names, in order
  std::vector<std::vector<std::int64_t>> listed;    // listed problems, values in size order
  std::vector<SpecExpression> requires_;            // of the problem sizes
  std::vector<Tunable> tunables;
  std::vector<std::string> template_arguments;      // tunable names, in order
  std::vector<SpecExpression> restrictions;
  std::vector<SpecExpression> block, grid;          // 1 to 3 each
  std::optional<SpecExpression> shared_bytes;
  std::vector<Argument> arguments;
  SpecCheck check;
  std::optional<SpecExpression> flops, bytes;
  std::optional<SpecBaseline> baseline;

  // Every name an expression can use, in the order values are passed: the sizes, then the tunables.
  std::vector<std::string> scope() const;
  std::string located(int line, const std::string& what) const;  // "<path>:<line>: <what>"
  const Tunable* tunable(const std::string& name) const;
  bool is_template_argument(const std::string& name) const;
};

// Reads and checks a spec: TOML syntax, known keys only, required keys, types, names, every expression
// parsed with its names checked, the source and every file it names present, and every listed problem's
// sizes and launch evaluated (see docs/kernel-spec.md, "Errors"). Throws UsageError, one line.
Spec read_spec(const std::string& path);

// "{m}" etc. replaced by the problem's sizes (file names, baseline commands).
std::string substitute_sizes(const std::string& text, const Spec& spec, const std::vector<std::int64_t>& sizes,
                             const std::map<std::string, std::string>& extra = {});

}  // namespace evotune::user_kernel
