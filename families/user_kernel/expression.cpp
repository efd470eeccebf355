#include "families/user_kernel/expression.h"

#include <fmt/format.h>
#include <muParser.h>
#include <muParserBytecode.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <set>

namespace evotune::user_kernel {
namespace {

double add(double a, double b) { return a + b; }
double subtract(double a, double b) { return a - b; }
double multiply(double a, double b) { return a * b; }
double divide(double a, double b) {
  if (b == 0) throw EvaluationError("divides by zero");
  return a / b;
}
double remainder(double a, double b) {
  if (b == 0) throw EvaluationError("divides by zero");
  return std::fmod(a, b);
}
double power(double a, double b) { return std::pow(a, b); }
double less(double a, double b) { return a < b; }
double less_equal(double a, double b) { return a <= b; }
double greater(double a, double b) { return a > b; }
double greater_equal(double a, double b) { return a >= b; }
double equal(double a, double b) { return a == b; }
double not_equal(double a, double b) { return a != b; }
double logical_and(double a, double b) { return a != 0 && b != 0; }
double logical_or(double a, double b) { return a != 0 || b != 0; }
double negate(double a) { return -a; }
double plus(double a) { return a; }
double minimum(double a, double b) { return std::min(a, b); }
double maximum(double a, double b) { return std::max(a, b); }
double ceil_divide(double a, double b) {
  if (b == 0) throw EvaluationError("divides by zero");
  return std::ceil(a / b);
}
double round_down(double a) { return std::floor(a); }
double round_up(double a) { return std::ceil(a); }
double log_2(double a) { return std::log2(a); }

using Unary = double (*)(double);
using Binary = double (*)(double, double);

// Every operation of the grammar: how muParser learns it, and the evaluator member that implements it in
// an exported header (cpp_evaluator_struct). Built-in operators are off, so these are all there is.
struct BinaryOperator {
  const char* symbol;
  Binary function;
  int precedence;
  mu::EOprtAssociativity associativity;
  const char* member;
};
constexpr std::array<BinaryOperator, 14> kBinaryOperators = {{
    {"+", add, mu::prADD_SUB, mu::oaLEFT, "add"},
    {"-", subtract, mu::prADD_SUB, mu::oaLEFT, "sub"},
    {"*", multiply, mu::prMUL_DIV, mu::oaLEFT, "mul"},
    {"/", divide, mu::prMUL_DIV, mu::oaLEFT, "div"},
    {"%", remainder, mu::prMUL_DIV, mu::oaLEFT, "mod"},
    {"^", power, mu::prPOW, mu::oaRIGHT, "pow"},
    {"<", less, mu::prCMP, mu::oaLEFT, "lt"},
    {"<=", less_equal, mu::prCMP, mu::oaLEFT, "le"},
    {">", greater, mu::prCMP, mu::oaLEFT, "gt"},
    {">=", greater_equal, mu::prCMP, mu::oaLEFT, "ge"},
    {"==", equal, mu::prCMP, mu::oaLEFT, "eq"},
    {"!=", not_equal, mu::prCMP, mu::oaLEFT, "ne"},
    {"&&", logical_and, mu::prLAND, mu::oaLEFT, "land"},
    {"||", logical_or, mu::prLOR, mu::oaLEFT, "lor"},
}};
struct UnaryOperator {
  const char* symbol;
  Unary function;
  const char* member;
};
constexpr std::array<UnaryOperator, 2> kPrefixOperators = {{{"-", negate, "neg"}, {"+", plus, "pos"}}};
struct Function {
  const char* name;
  Unary unary;    // one of the two is set
  Binary binary;
  const char* member;
  int arguments() const { return unary ? 1 : 2; }
};
constexpr std::array<Function, 6> kFunctions = {{
    {"min", nullptr, minimum, "min"},
    {"max", nullptr, maximum, "max"},
    {"cdiv", nullptr, ceil_divide, "cdiv"},
    {"floor", round_down, nullptr, "floor"},
    {"ceil", round_up, nullptr, "ceil"},
    {"log2", log_2, nullptr, "log2"},
}};

template <typename F>
mu::erased_fun_type erased_fn(F f) {
  return reinterpret_cast<mu::erased_fun_type>(f);
}

// The member of the evaluator that implements a function token of the bytecode, or null.
const char* member_of(const mu::SToken& token) {
  const mu::erased_fun_type f = token.Fun.cb._pRawFun;
  if (token.Fun.argc == 2) {
    for (const BinaryOperator& op : kBinaryOperators)
      if (erased_fn(op.function) == f) return op.member;
  }
  if (token.Fun.argc == 1) {
    for (const UnaryOperator& op : kPrefixOperators)
      if (erased_fn(op.function) == f) return op.member;
  }
  for (const Function& fn : kFunctions) {
    if (fn.arguments() != token.Fun.argc) continue;
    if (fn.unary ? erased_fn(fn.unary) == f : erased_fn(fn.binary) == f) return fn.member;
  }
  return nullptr;
}

// A double as C++ source that reads back as the same double.
std::string cpp_double(double v) {
  std::string text = fmt::format("{}", v);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // "4" would be an int
  return text;
}

const std::set<std::string, std::less<>>& cpp_keywords() {
  static const std::set<std::string, std::less<>> words = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
      "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};
  return words;
}

}  // namespace

struct Expression::State {
  std::mutex mutex;
  mu::Parser parser;
  std::unique_ptr<double[]> slots;  // muParser reads the variables from here
  std::size_t slot_count = 0;
};

Expression::Expression(std::string text, const std::vector<std::string>& names, std::size_t allowed,
                       const std::string& refused_why)
    : text_(std::move(text)), state_(std::make_unique<State>()) {
  mu::Parser& parser = state_->parser;
  state_->slot_count = names.size();
  state_->slots = std::make_unique<double[]>(std::max<std::size_t>(names.size(), 1));
  try {
    // Only evotune's operations: no built-in operators (their / divides by zero silently), no constants
    // (_pi), no functions beyond the documented ones.
    parser.EnableBuiltInOprt(false);
    parser.EnableOptimizer(false);  // the bytecode stays one token per operation: to_cpp reads it
    parser.ClearFun();
    parser.ClearConst();
    parser.ClearInfixOprt();
    parser.ClearPostfixOprt();
    for (const BinaryOperator& op : kBinaryOperators)
      parser.DefineOprt(op.symbol, op.function, static_cast<unsigned>(op.precedence), op.associativity, false);
    for (const UnaryOperator& op : kPrefixOperators) parser.DefineInfixOprt(op.symbol, op.function, mu::prINFIX, false);
    for (const Function& fn : kFunctions) {
      if (fn.unary)
        parser.DefineFun(fn.name, fn.unary, false);
      else
        parser.DefineFun(fn.name, fn.binary, false);
    }
    for (std::size_t i = 0; i < names.size(); ++i) parser.DefineVar(names[i], &state_->slots[i]);
    parser.SetExpr(text_);
    // GetUsedVar parses without evaluating and lists every name, defined or not.
    const mu::varmap_type used = parser.GetUsedVar();
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!used.count(names[i])) continue;
      if (i >= allowed) throw ExpressionError(fmt::format("'{}' {}", names[i], refused_why));
      used_.push_back(names[i]);
    }
    for (const auto& [name, slot] : used) {
      if (std::find(names.begin(), names.end(), name) == names.end())
        throw ExpressionError(fmt::format("unknown name '{}'", name));
    }
    // The first evaluation builds the bytecode (and finds what GetUsedVar does not, e.g. a wrong argument
    // count); a division by zero of these made-up values says nothing about the spec.
    try {
      parser.Eval();
    } catch (const EvaluationError&) {
    }
  } catch (const mu::ParserError& e) {
    std::string message = e.GetMsg();
    while (!message.empty() && (message.back() == '.' || message.back() == ' ')) message.pop_back();
    std::replace(message.begin(), message.end(), '\n', ' ');
    throw ExpressionError(message);
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::evaluate(std::span<const double> values) const {
  std::lock_guard lock(state_->mutex);
  std::copy_n(values.begin(), std::min(values.size(), state_->slot_count), state_->slots.get());
  double result = 0;
  try {
    result = state_->parser.Eval();
  } catch (const mu::ParserError& e) {  // parsed at construction; kept for the unexpected
    throw EvaluationError(e.GetMsg());
  }
  if (!std::isfinite(result)) throw EvaluationError("is not a finite number");
  return result;
}

std::string Expression::to_cpp(const CppNames& names) const {
  std::lock_guard lock(state_->mutex);
  const mu::ParserByteCode& code = state_->parser.GetByteCode();
  const mu::SToken* tokens = code.GetBase();
  std::vector<std::string> stack, conditions, then_branches;
  auto pop = [&](std::vector<std::string>& from) {
    if (from.empty()) throw std::logic_error(fmt::format("malformed bytecode of '{}'", text_));
    std::string top = std::move(from.back());
    from.pop_back();
    return top;
  };
  const std::string& e = names.evaluator;
  for (std::size_t i = 0; i < code.GetSize(); ++i) {
    const mu::SToken& t = tokens[i];
    switch (t.Cmd) {
      case mu::cmVAL:
        stack.push_back(cpp_double(t.Val.data2));
        break;
      case mu::cmVAR: {
        const std::ptrdiff_t slot = t.Val.ptr - state_->slots.get();
        if (slot < 0 || static_cast<std::size_t>(slot) >= names.spellings.size() || t.Val.data != 1 || t.Val.data2 != 0)
          throw std::logic_error(fmt::format("'{}': a variable token evotune cannot write as C++", text_));
        stack.push_back(names.spellings[static_cast<std::size_t>(slot)]);
        break;
      }
      case mu::cmFUNC: {
        const char* member = member_of(t);
        if (member == nullptr) throw std::logic_error(fmt::format("'{}': an operation evotune cannot write as C++", text_));
        std::vector<std::string> args(static_cast<std::size_t>(t.Fun.argc));
        for (auto it = args.rbegin(); it != args.rend(); ++it) *it = pop(stack);
        std::string call = fmt::format("{}.{}(", e, member);
        for (std::size_t a = 0; a < args.size(); ++a) call += (a ? ", " : "") + args[a];
        stack.push_back(call + ")");
        break;
      }
      case mu::cmIF:
        conditions.push_back(pop(stack));
        break;
      case mu::cmELSE:
        then_branches.push_back(pop(stack));
        break;
      case mu::cmENDIF: {
        std::string otherwise = pop(stack);
        std::string then = pop(then_branches);
        std::string condition = pop(conditions);
        stack.push_back(fmt::format("({} != 0.0 ? {} : {})", condition, then, otherwise));
        break;
      }
      case mu::cmEND:
        i = code.GetSize();
        break;
      default:
        throw std::logic_error(fmt::format("'{}': bytecode {} evotune cannot write as C++", text_, static_cast<int>(t.Cmd)));
    }
  }
  if (stack.size() != 1) throw std::logic_error(fmt::format("malformed bytecode of '{}'", text_));
  return stack.back();
}

std::string cpp_evaluator_struct(const std::string& type_name) {
  return fmt::format(R"cpp(// The operations of evotune's expression grammar, exactly as evotune evaluates them (double precision);
// a division by zero sets `failed` instead of producing an infinity.
struct {} {{
  bool failed = false;
  double add(double a, double b) const {{ return a + b; }}
  double sub(double a, double b) const {{ return a - b; }}
  double mul(double a, double b) const {{ return a * b; }}
  double div(double a, double b) {{ if (b == 0) {{ failed = true; return 0; }} return a / b; }}
  double mod(double a, double b) {{ if (b == 0) {{ failed = true; return 0; }} return std::fmod(a, b); }}
  double pow(double a, double b) const {{ return std::pow(a, b); }}
  double lt(double a, double b) const {{ return a < b; }}
  double le(double a, double b) const {{ return a <= b; }}
  double gt(double a, double b) const {{ return a > b; }}
  double ge(double a, double b) const {{ return a >= b; }}
  double eq(double a, double b) const {{ return a == b; }}
  double ne(double a, double b) const {{ return a != b; }}
  double land(double a, double b) const {{ return a != 0 && b != 0; }}
  double lor(double a, double b) const {{ return a != 0 || b != 0; }}
  double neg(double a) const {{ return -a; }}
  double pos(double a) const {{ return a; }}
  double min(double a, double b) const {{ return a < b ? a : b; }}
  double max(double a, double b) const {{ return a > b ? a : b; }}
  double cdiv(double a, double b) {{ if (b == 0) {{ failed = true; return 0; }} return std::ceil(a / b); }}
  double floor(double a) const {{ return std::floor(a); }}
  double ceil(double a) const {{ return std::ceil(a); }}
  double log2(double a) const {{ return std::log2(a); }}
}};
)cpp",
                     type_name);
}

bool usable_name(const std::string& text, std::string* why) {
  auto refuse = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  if (text.empty()) return refuse("is empty");
  const auto identifier_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (std::isdigit(static_cast<unsigned char>(text[0])) || !std::all_of(text.begin(), text.end(), identifier_char))
    return refuse("is not a name (letters, digits and _, not starting with a digit)");
  for (const Function& fn : kFunctions)
    if (text == fn.name) return refuse("is a function of the expression grammar");
  if (cpp_keywords().count(text)) return refuse("is a C++ keyword");
  return true;
}

}  // namespace evotune::user_kernel
