#include "families/user_kernel/spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "core/edit_distance.h"
#include "core/errors.h"
#include "families/user_kernel/rules.h"

namespace evotune::user_kernel {
namespace fs = std::filesystem;

std::vector<std::string> Spec::scope() const {
  std::vector<std::string> names = sizes;
  for (const Tunable& t : tunables) names.push_back(t.name);
  return names;
}

std::string Spec::located(int line, const std::string& what) const { return fmt::format("{}:{}: {}", path, line, what); }

const Tunable* Spec::tunable(const std::string& name) const {
  for (const Tunable& t : tunables)
    if (t.name == name) return &t;
  return nullptr;
}

bool Spec::is_template_argument(const std::string& name) const {
  return std::find(template_arguments.begin(), template_arguments.end(), name) != template_arguments.end();
}

std::string substitute_sizes(const std::string& text, const Spec& spec, const std::vector<std::int64_t>& sizes,
                             const std::map<std::string, std::string>& extra) {
  std::string out = text;
  auto replace_all = [&](const std::string& name, const std::string& value) {
    const std::string placeholder = "{" + name + "}";
    for (std::size_t at = out.find(placeholder); at != std::string::npos; at = out.find(placeholder, at + value.size()))
      out.replace(at, placeholder.size(), value);
  };
  for (std::size_t i = 0; i < spec.sizes.size() && i < sizes.size(); ++i) replace_all(spec.sizes[i], std::to_string(sizes[i]));
  for (const auto& [name, value] : extra) replace_all(name, value);
  return out;
}

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}


const char* type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date or time";
  }
}

// Reads one spec: every check names the line of what it checks.
class Reader {
 public:
  explicit Reader(Spec& spec) : spec_(spec) {}

  void read(const toml::table& root) {
    only_keys(root, "the spec",
              {"name", "description", "source", "kernel", "compile_options", "problem", "tunables", "launch",
               "arguments", "check", "metrics", "baseline"});
    spec_.name = string(required(root, "name", "the spec"), "name");
    if (spec_.name.empty() || !std::all_of(spec_.name.begin(), spec_.name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        }))
      fail(line(*root.get("name")), fmt::format("name '{}' must be letters, digits and _", spec_.name));
    if (const toml::node* d = root.get("description")) spec_.description = string(*d, "description");
    read_source(root);
    const toml::node& kernel = required(root, "kernel", "the spec");
    spec_.kernel = string(kernel, "kernel");
    std::string why;
    if (!usable_name(spec_.kernel, &why) && spec_.kernel.find("::") == std::string::npos)
      fail(line(kernel), fmt::format("kernel '{}' {}", spec_.kernel, why));
    if (const toml::node* options = root.get("compile_options")) {
      for (const toml::node& o : array(*options, "compile_options")) spec_.compile_options.push_back(string(o, "a compile option"));
    }
    read_problem(table(required(root, "problem", "the spec"), "[problem]"));
    read_tunables(table(required(root, "tunables", "the spec"), "[tunables]"));
    // Expressions of sizes only (requires) are read after the tunables, so that a tunable named in one is
    // refused as a tunable rather than as an unknown name.
    if (const toml::node* r = problem_->get("requires")) {
      for (const toml::node& e : array(*r, "requires")) spec_.requires_.push_back(problem_expression(e, "requirement"));
    }
    read_launch(table(required(root, "launch", "the spec"), "[launch]"));
    read_arguments(required(root, "arguments", "the spec"));
    read_check(table(required(root, "check", "the spec"), "[check]"));
    if (const toml::node* m = root.get("metrics")) {
      const toml::table& metrics = table(*m, "[metrics]");
      only_keys(metrics, "[metrics]", {"flops", "bytes"});
      if (const toml::node* f = metrics.get("flops")) spec_.flops = problem_expression(*f, "flops expression");
      if (const toml::node* b = metrics.get("bytes")) spec_.bytes = problem_expression(*b, "bytes expression");
    }
    if (const toml::node* b = root.get("baseline")) read_baseline(table(*b, "[baseline]"));
    check_listed_problems();
  }

 private:
  [[noreturn]] void fail(int at, const std::string& what) const { throw UsageError(spec_.located(at, what)); }
  static int line(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

  void only_keys(const toml::table& t, const std::string& where, std::initializer_list<std::string_view> known) const {
    for (const auto& [key, node] : t) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      std::string_view nearest;
      std::size_t best = 3;  // suggest only a close one
      for (std::string_view k : known) {
        const std::size_t d = edit_distance(key.str(), k);
        if (d < best) best = d, nearest = k;
      }
      const std::string list = fmt::format("{}", fmt::join(known, ", "));
      fail(static_cast<int>(key.source().begin.line),
           nearest.empty() ? fmt::format("unknown key '{}' in {} (known: {})", key.str(), where, list)
                           : fmt::format("unknown key '{}' in {} (did you mean '{}'?)", key.str(), where, nearest));
    }
  }

  const toml::node& required(const toml::table& t, std::string_view key, const std::string& where) const {
    if (const toml::node* n = t.get(key)) return *n;
    fail(std::max(1, line(t)), fmt::format("{} has no '{}' (required)", where, key));
  }

  std::string string(const toml::node& n, const std::string& what) const {
    if (const auto* s = n.as_string()) return s->get();
    fail(line(n), fmt::format("{} must be a string, not {}", what, type_name(n)));
  }
  const toml::array& array(const toml::node& n, const std::string& what) const {
    if (const auto* a = n.as_array()) return *a;
    fail(line(n), fmt::format("{} must be an array, not {}", what, type_name(n)));
  }
  const toml::table& table(const toml::node& n, const std::string& what) const {
    if (const auto* t = n.as_table()) return *t;
    fail(line(n), fmt::format("{} must be a table, not {}", what, type_name(n)));
  }
  double number(const toml::node& n, const std::string& what) const {
    if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
    if (const auto* f = n.as_floating_point()) return f->get();
    fail(line(n), fmt::format("{} must be a number, not {}", what, type_name(n)));
  }

  // The text of an expression: a string, or an integer written as a number.
  std::string expression_text(const toml::node& n, const std::string& role) const {
    if (const auto* i = n.as_integer()) return std::to_string(i->get());
    if (const auto* s = n.as_string()) return s->get();
    fail(line(n), fmt::format("{} must be a string (an expression) or an integer, not {}", role, type_name(n)));
  }

  SpecExpression make_expression(const toml::node& n, const std::string& role, bool with_tunables) const {
    const std::string text = expression_text(n, role);
    const std::vector<std::string> scope = spec_.scope();
    try {
      return SpecExpression{role, line(n),
                            Expression(text, scope, with_tunables ? scope.size() : spec_.sizes.size(),
                                       fmt::format("is a tunable; a {} may name only problem sizes", role))};
    } catch (const ExpressionError& e) {
      fail(line(n), fmt::format("{} '{}': {}", role, text, e.what()));
    }
  }
  SpecExpression problem_expression(const toml::node& n, const std::string& role) const {
    return make_expression(n, role, false);
  }
  SpecExpression config_expression(const toml::node& n, const std::string& role) const {
    return make_expression(n, role, true);
  }

  // A problem size or tunable: usable in expressions, and not the name of another one.
  void check_name_at(int at, const std::string& name, const std::string& what) {
    std::string why;
    if (!usable_name(name, &why)) fail(at, fmt::format("{} '{}' {}", what, name, why));
    if (!names_.insert(name).second) fail(at, fmt::format("{} '{}': the name is used twice", what, name));
  }

  // A file the spec names, relative to its directory; it must exist.
  fs::path spec_file(const toml::node& at, const std::string& relative, const std::string& what) const {
    const fs::path path = fs::path(relative).is_absolute() ? fs::path(relative) : spec_.directory / relative;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) fail(line(at), fmt::format("{} '{}' does not exist ({})", what, relative, path.string()));
    return path;
  }

  // Files a source #includes "by name" that exist beside it or in the spec's directory, recursively: NVRTC
  // gets them in memory, so the cubin cache's key covers their text.
  void collect_includes(const fs::path& file, const std::string& text, int at) {
    static const std::regex include(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"]+)")re");
    std::istringstream lines(text);
    std::string current;
    while (std::getline(lines, current)) {
      std::smatch m;
      if (!std::regex_search(current, m, include)) continue;
      const std::string name = m[1];
      fs::path found;
      std::error_code ec;
      for (const fs::path& dir : {file.parent_path(), spec_.directory}) {
        if (fs::is_regular_file(dir / name, ec)) {
          found = dir / name;
          break;
        }
      }
      if (found.empty()) continue;  // a toolkit header ("cuda_fp16.h"): NVRTC finds it
      const std::string found_text = read_text(found);
      auto same_name = std::find_if(spec_.headers.begin(), spec_.headers.end(), [&](const auto& h) { return h.first == name; });
      if (same_name != spec_.headers.end()) {
        if (same_name->second != found_text)
          fail(at, fmt::format("two different files are included as \"{}\" (one is {})", name, found.string()));
        continue;
      }
      spec_.headers.emplace_back(name, found_text);
      collect_includes(found, found_text, at);
    }
  }

  void read_source(const toml::table& root) {
    const toml::node& source = required(root, "source", "the spec");
    spec_.source_name = string(source, "source");
    spec_.source = fs::absolute(spec_file(source, spec_.source_name, "source file"));
    spec_.source_text = read_text(spec_.source);
    collect_includes(spec_.source, spec_.source_text, line(source));
  }

  void read_problem(const toml::table& problem) {
    problem_ = &problem;
    only_keys(problem, "[problem]", {"sizes", "listed", "requires"});
    const toml::node& sizes = required(problem, "sizes", "[problem]");
    for (const toml::node& s : array(sizes, "sizes")) {
      const std::string name = string(s, "a problem size");
      check_name_at(line(s), name, "problem size");
      spec_.sizes.push_back(name);
    }
    if (spec_.sizes.empty()) fail(line(sizes), "sizes is empty: a problem needs at least one size");
    const toml::node& listed = required(problem, "listed", "[problem]");
    for (const toml::node& p : array(listed, "listed")) {
      const toml::table& values = table(p, "a listed problem");
      std::vector<std::int64_t> sizes_of(spec_.sizes.size(), 0);
      for (const auto& [key, value] : values) {
        auto it = std::find(spec_.sizes.begin(), spec_.sizes.end(), key.str());
        if (it == spec_.sizes.end())
          fail(line(p), fmt::format("listed problem names '{}', which is not a problem size", key.str()));
        const auto* integer = value.as_integer();
        if (integer == nullptr || integer->get() < 1)
          fail(line(p), fmt::format("listed problem's {} must be a positive integer", key.str()));
        sizes_of[static_cast<std::size_t>(it - spec_.sizes.begin())] = integer->get();
      }
      for (std::size_t i = 0; i < sizes_of.size(); ++i) {
        if (sizes_of[i] == 0) fail(line(p), fmt::format("listed problem has no {}", spec_.sizes[i]));
      }
      spec_.listed.push_back(std::move(sizes_of));
      listed_lines_.push_back(line(p));
    }
    if (spec_.listed.empty()) fail(line(listed), "listed is empty: list at least one problem");
  }

  void read_tunables(const toml::table& tunables) {
    // toml++ keeps a table's keys sorted; the spec's order (mutation steps, defines) is the file's.
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (const auto& [key, node] : tunables) {
      if (key.str() == "template_arguments" || key.str() == "restrictions") continue;
      entries.emplace_back(&key, &node);
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      const auto& sa = a.first->source().begin;
      const auto& sb = b.first->source().begin;
      return std::pair(sa.line, sa.column) < std::pair(sb.line, sb.column);
    });
    for (const auto& [key, node] : entries) {
      const int at = static_cast<int>(key->source().begin.line);
      // Every other key is a tunable, so a misspelt special key would read as a tunable of strings.
      if (!node->is_array() || !node->as_array()->is_homogeneous(toml::node_type::integer)) {
        for (std::string_view special : {"template_arguments", "restrictions"}) {
          if (edit_distance(key->str(), special) <= 2)
            fail(at, fmt::format("unknown key '{}' in [tunables] (did you mean '{}'?)", key->str(), special));
        }
      }
      Tunable t{std::string(key->str()), {}, at};
      check_name_at(at, t.name, "tunable");
      const toml::array* values = node->as_array();
      if (values == nullptr)
        fail(at, fmt::format("tunable {} must be an array of integers (its domain), not {}", t.name, type_name(*node)));
      for (const toml::node& v : *values) {
        const auto* integer = v.as_integer();
        if (integer == nullptr || integer->get() < std::numeric_limits<int>::min() ||
            integer->get() > std::numeric_limits<int>::max())
          fail(line(v), fmt::format("tunable {}: values must be 32-bit integers", t.name));
        const int value = static_cast<int>(integer->get());
        if (std::find(t.values.begin(), t.values.end(), value) != t.values.end())
          fail(line(v), fmt::format("tunable {}: value {} is listed twice", t.name, value));
        t.values.push_back(value);
      }
      if (t.values.empty()) fail(at, fmt::format("tunable {} has an empty domain", t.name));
      spec_.tunables.push_back(std::move(t));
    }
    if (spec_.tunables.empty()) fail(line(tunables), "[tunables] lists no tunable: there is nothing to tune");
    if (const toml::node* args = tunables.get("template_arguments")) {
      for (const toml::node& a : array(*args, "template_arguments")) {
        const std::string name = string(a, "a template argument");
        if (spec_.tunable(name) == nullptr) {
          fail(line(a), fmt::format("template argument '{}' is not a tunable{}", name,
                                    std::find(spec_.sizes.begin(), spec_.sizes.end(), name) != spec_.sizes.end()
                                        ? " (it is a problem size; pass sizes as scalar arguments)"
                                        : ""));
        }
        if (spec_.is_template_argument(name)) fail(line(a), fmt::format("template argument '{}' is listed twice", name));
        spec_.template_arguments.push_back(name);
      }
    }
    if (const toml::node* r = tunables.get("restrictions")) {
      for (const toml::node& e : array(*r, "restrictions")) spec_.restrictions.push_back(config_expression(e, "restriction"));
    }
  }

  std::vector<SpecExpression> dimensions(const toml::table& t, std::string_view key, const std::string& where,
                                         const std::string& role, bool with_tunables) {
    const toml::node& node = required(t, key, where);
    std::vector<SpecExpression> out;
    for (const toml::node& e : array(node, std::string(key))) out.push_back(make_expression(e, role, with_tunables));
    if (out.empty() || out.size() > 3) fail(line(node), fmt::format("{} needs 1 to 3 expressions (x, y, z), not {}", key, out.size()));
    return out;
  }

  void read_launch(const toml::table& launch) {
    only_keys(launch, "[launch]", {"block", "grid", "shared_bytes"});
    spec_.block = dimensions(launch, "block", "[launch]", "block expression", true);
    spec_.grid = dimensions(launch, "grid", "[launch]", "grid expression", true);
    if (const toml::node* s = launch.get("shared_bytes")) spec_.shared_bytes = config_expression(*s, "shared_bytes expression");
  }

  void read_arguments(const toml::node& node) {
    const toml::array& arguments = array(node, "arguments ([[arguments]] tables)");
    std::set<std::string> names;
    for (const toml::node& a : arguments) {
      const toml::table& t = table(a, "an argument");
      only_keys(t, "[[arguments]]", {"name", "dtype", "size", "value", "fill", "output"});
      Argument arg;
      arg.line = line(a);
      arg.name = string(required(t, "name", "an argument"), "an argument's name");
      if (arg.name.empty() || !names.insert(arg.name).second)
        fail(line(*t.get("name")), fmt::format("argument name '{}' is used twice", arg.name));
      const toml::node& dtype = required(t, "dtype", fmt::format("argument {}", arg.name));
      const auto parsed = parse_dtype(string(dtype, "dtype"));
      if (!parsed)
        fail(line(dtype), fmt::format("argument {}: dtype '{}' is not one of {}", arg.name, string(dtype, "dtype"), dtype_names()));
      arg.dtype = *parsed;
      const toml::node* size = t.get("size");
      const toml::node* value = t.get("value");
      if ((size == nullptr) == (value == nullptr))
        fail(arg.line, fmt::format("argument {} needs either 'size' (a buffer) or 'value' (a scalar)", arg.name));
      if (size) arg.size = problem_expression(*size, fmt::format("size of {}", arg.name));
      if (value) arg.value = problem_expression(*value, fmt::format("value of {}", arg.name));
      if (const toml::node* o = t.get("output")) {
        const auto* flag = o->as_boolean();
        if (flag == nullptr) fail(line(*o), fmt::format("argument {}: output must be true or false", arg.name));
        arg.output = flag->get();
        if (arg.output && !arg.buffer()) fail(line(*o), fmt::format("argument {}: a scalar cannot be an output", arg.name));
      }
      if (const toml::node* f = t.get("fill")) {
        const std::string fill = string(*f, "fill");
        if (!arg.buffer()) fail(line(*f), fmt::format("argument {}: a scalar has no fill", arg.name));
        if (arg.output) fail(line(*f), fmt::format("argument {}: an output is poisoned before every run; it has no fill", arg.name));
        if (fill == "random") {
          arg.fill = Argument::Fill::random;
        } else if (fill == "zero") {
          arg.fill = Argument::Fill::zero;
        } else if (fill.rfind("file:", 0) == 0 && fill.size() > 5) {
          arg.fill = Argument::Fill::file;
          arg.fill_file = fill.substr(5);
          fill_lines_[arg.name] = line(*f);
        } else {
          fail(line(*f), fmt::format("argument {}: fill '{}' is not random, zero or file:<path>", arg.name, fill));
        }
      }
      spec_.arguments.push_back(std::move(arg));
    }
    if (spec_.arguments.empty()) fail(line(node), "arguments is empty: the kernel takes at least one argument");
    if (std::none_of(spec_.arguments.begin(), spec_.arguments.end(), [](const Argument& a) { return a.output; }))
      fail(line(node), "no argument is an output (output = true): there is nothing to check");
  }

  void read_check(const toml::table& check) {
    only_keys(check, "[check]",
              {"reference", "reference_source", "reference_block", "reference_grid", "reference_shared_bytes", "atol",
               "rtol", "expected"});
    SpecCheck& c = spec_.check;
    c.line = line(check);
    const toml::node* reference = check.get("reference");
    const toml::node* expected = check.get("expected");
    if ((reference == nullptr) == (expected == nullptr))
      fail(c.line, "[check] needs either 'reference' (a kernel) or 'expected' (files of expected values)");
    if (reference) {
      c.reference = string(*reference, "reference");
      if (c.reference.empty()) fail(line(*reference), "reference is empty");
      if (const toml::node* s = check.get("reference_source")) {
        const std::string relative = string(*s, "reference_source");
        c.reference_source = fs::absolute(spec_file(*s, relative, "reference source file"));
        c.reference_source_text = read_text(c.reference_source);
        collect_includes(c.reference_source, c.reference_source_text, line(*s));
      }
      c.reference_block = dimensions(check, "reference_block", "[check]", "reference_block expression", false);
      c.reference_grid = dimensions(check, "reference_grid", "[check]", "reference_grid expression", false);
      if (const toml::node* s = check.get("reference_shared_bytes"))
        c.reference_shared_bytes = problem_expression(*s, "reference_shared_bytes expression");
    } else {
      for (const char* key : {"reference_source", "reference_block", "reference_grid", "reference_shared_bytes"}) {
        if (const toml::node* n = check.get(key)) fail(line(*n), fmt::format("{} needs a 'reference' kernel", key));
      }
      const toml::table& files = table(*expected, "expected");
      for (const auto& [key, node] : files) {
        const std::string name(key.str());
        auto arg = std::find_if(spec_.arguments.begin(), spec_.arguments.end(), [&](const Argument& a) { return a.name == name; });
        if (arg == spec_.arguments.end() || !arg->output)
          fail(line(node), fmt::format("expected names '{}', which is not an output argument", name));
        c.expected[name] = string(node, "an expected file");
        fill_lines_["expected:" + name] = line(node);
      }
      for (const Argument& a : spec_.arguments) {
        if (a.output && !c.expected.count(a.name))
          fail(line(*expected), fmt::format("expected has no file for output {}", a.name));
      }
    }
    for (const char* key : {"atol", "rtol"}) {
      if (const toml::node* n = check.get(key)) {
        const double v = number(*n, key);
        if (!(v >= 0)) fail(line(*n), fmt::format("{} must be 0 or more", key));
        (std::string_view(key) == "atol" ? c.atol : c.rtol) = v;
      }
    }
  }

  void read_baseline(const toml::table& baseline) {
    only_keys(baseline, "[baseline]", {"name", "command", "timeout_s"});
    SpecBaseline b;
    b.line = line(baseline);
    b.name = string(required(baseline, "name", "[baseline]"), "the baseline's name");
    const toml::node& command = required(baseline, "command", "[baseline]");
    for (const toml::node& word : array(command, "command")) b.command.push_back(string(word, "a command word"));
    if (b.command.empty()) fail(line(command), "command is empty");
    // Every placeholder must be one evotune fills.
    static const std::regex placeholder(R"(\{([^{}]*)\})");
    for (const std::string& word : b.command) {
      for (auto it = std::sregex_iterator(word.begin(), word.end(), placeholder); it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1];
        if (name != "device" && name != "batch" && std::find(spec_.sizes.begin(), spec_.sizes.end(), name) == spec_.sizes.end())
          fail(line(command), fmt::format("command placeholder '{{{}}}' is not {{device}}, {{batch}} or a problem size", name));
      }
    }
    if (const toml::node* t = baseline.get("timeout_s")) {
      b.timeout_s = number(*t, "timeout_s");
      if (!(b.timeout_s > 0)) fail(line(*t), "timeout_s must be positive");
    }
    spec_.baseline = std::move(b);
  }

  // Each listed problem: the spec takes it, its data files exist, some config satisfies the restrictions,
  // and the launch expressions evaluate for the first such config (a division by zero there is the spec's
  // mistake, whatever the config).
  void check_listed_problems() {
    for (std::size_t p = 0; p < spec_.listed.size(); ++p) {
      const std::vector<std::int64_t>& sizes = spec_.listed[p];
      std::string text;
      for (std::size_t i = 0; i < sizes.size(); ++i) text += fmt::format("{}{}={}", i ? "," : "", spec_.sizes[i], sizes[i]);
      const std::vector<double> problem_values = scope_values(spec_, sizes, nullptr);
      for (const SpecExpression& r : spec_.requires_) {
        try {
          if (r.expression.evaluate(problem_values) == 0)
            fail(listed_lines_[p], fmt::format("listed problem {} does not meet requirement '{}'", text, r.text()));
        } catch (const EvaluationError& e) {
          fail(r.line, describe_failure(r, e.what()));
        }
      }
      if (auto why = problem_failure(spec_, sizes)) fail(failure_line(*why), *why + " for listed problem " + text);
      for (const Argument& a : spec_.arguments) {
        if (a.fill == Argument::Fill::file) {
          const std::string file = substitute_sizes(a.fill_file, spec_, sizes);
          std::error_code ec;
          if (!fs::is_regular_file(spec_.directory / file, ec))
            fail(fill_lines_.at(a.name), fmt::format("argument {}: fill file '{}' does not exist", a.name, file));
        }
      }
      for (const auto& [name, pattern] : spec_.check.expected) {
        const std::string file = substitute_sizes(pattern, spec_, sizes);
        std::error_code ec;
        if (!fs::is_regular_file(spec_.directory / file, ec))
          fail(fill_lines_.at("expected:" + name), fmt::format("expected file '{}' for {} does not exist", file, name));
      }
      std::optional<std::string> restriction_error;
      int restriction_error_line = 0;
      const auto probe = first_config(spec_, [&](const Config& config) {
        const std::vector<double> values = scope_values(spec_, sizes, &config);
        for (const SpecExpression& r : spec_.restrictions) {
          try {
            if (r.expression.evaluate(values) == 0) return false;
          } catch (const EvaluationError& e) {
            restriction_error = describe_failure(r, e.what());
            restriction_error_line = r.line;
            return true;  // stop: the spec is wrong
          }
        }
        return true;
      });
      if (restriction_error) fail(restriction_error_line, *restriction_error);
      if (!probe) fail(listed_lines_[p], fmt::format("no config satisfies the restrictions for listed problem {}", text));
      const std::vector<double> values = scope_values(spec_, sizes, &*probe);
      const std::vector<const std::vector<SpecExpression>*> launch = {&spec_.block, &spec_.grid};
      for (const auto* group : launch) {
        for (const SpecExpression& e : *group) {
          try {
            e.expression.evaluate(values);
          } catch (const EvaluationError& error) {
            fail(e.line, describe_failure(e, error.what()));
          }
        }
      }
      if (spec_.shared_bytes) {
        try {
          spec_.shared_bytes->expression.evaluate(values);
        } catch (const EvaluationError& error) {
          fail(spec_.shared_bytes->line, describe_failure(*spec_.shared_bytes, error.what()));
        }
      }
    }
  }

  // The line of the expression a problem_failure() message starts with (it quotes the expression).
  int failure_line(const std::string& why) const {
    int best = 1;
    std::size_t best_length = 0;
    auto consider = [&](const SpecExpression& e) {
      const std::string quoted = "'" + e.text() + "'";
      if (why.find(e.role + " " + quoted) != std::string::npos && quoted.size() >= best_length) {
        best = e.line;
        best_length = quoted.size();
      }
    };
    for (const SpecExpression& e : spec_.requires_) consider(e);
    for (const Argument& a : spec_.arguments) consider(a.buffer() ? *a.size : *a.value);
    if (spec_.flops) consider(*spec_.flops);
    if (spec_.bytes) consider(*spec_.bytes);
    for (const SpecExpression& e : spec_.check.reference_block) consider(e);
    for (const SpecExpression& e : spec_.check.reference_grid) consider(e);
    if (spec_.check.reference_shared_bytes) consider(*spec_.check.reference_shared_bytes);
    return best;
  }

  Spec& spec_;
  const toml::table* problem_ = nullptr;
  std::set<std::string> names_;  // sizes and tunables share one namespace
  std::vector<int> listed_lines_;
  std::map<std::string, int> fill_lines_;
};

}  // namespace

Spec read_spec(const std::string& path) {
  Spec spec;
  spec.path = path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw UsageError(fmt::format("{}: no such spec file", path));
  spec.directory = fs::absolute(fs::path(path)).parent_path();
  spec.text = read_text(path);
  toml::table root;
  try {
    root = toml::parse(spec.text, path);
  } catch (const toml::parse_error& e) {
    std::string what(e.description());
    std::replace(what.begin(), what.end(), '\n', ' ');
    throw UsageError(spec.located(static_cast<int>(e.source().begin.line), what));
  }
  Reader(spec).read(root);
  return spec;
}

}  // namespace evotune::user_kernel
