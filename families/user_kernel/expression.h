#pragma once
// One expression of a kernel spec (a restriction, a launch size, a buffer size, a metric), parsed once by
// muParser and evaluated many times. The grammar is muParser's with evotune's operator set (see
// docs/kernel-spec.md, "Expressions"): + - * / ^ %, comparisons, && ||, ?:, and the functions min, max,
// cdiv, floor, ceil, log2. Arithmetic is in double precision; a division by zero is an error, not an
// infinity, so that a spec's mistake is reported instead of becoming a huge grid.
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace evotune::user_kernel {

// The expression does not parse, or names something not in its scope. what(): one line without the
// expression's own text (the caller says which expression it is).
class ExpressionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Evaluating failed: a division (/, %, cdiv) by zero, or a result that is not a finite number.
// what(): "divides by zero", "is not a finite number".
class EvaluationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How a name in an expression is spelled as C++ when the expression is written into a header.
struct CppNames {
  std::vector<std::string> spellings;  // one per name of the expression's scope, in scope order
  std::string evaluator;               // the object whose members implement the operators ("e")
};

class Expression {
 public:
  // `names`: every name a value is given for at evaluation, in order; `allowed`: how many of the first
  // names may appear here (the rest exist in the scope but are refused: e.g. tunables in a buffer size).
  // `refused_why` completes the message for a refused name ("is a tunable; a buffer size may name only
  // problem sizes"). Throws ExpressionError.
  Expression(std::string text, const std::vector<std::string>& names, std::size_t allowed,
             const std::string& refused_why = "");
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  const std::string& text() const { return text_; }
  // The names the expression uses, in scope order.
  const std::vector<std::string>& used_names() const { return used_; }

  // `values`: one per scope name, in scope order. Throws EvaluationError. Thread-safe.
  double evaluate(std::span<const double> values) const;

  // The expression as a C++ expression of doubles: names spelled by `names`, every operator and function
  // a call on `names.evaluator` (which records a division by zero instead of throwing), fully
  // parenthesized, so C++ evaluates exactly what muParser does.
  std::string to_cpp(const CppNames& names) const;

 private:
  struct State;
  std::string text_;
  std::vector<std::string> used_;
  std::unique_ptr<State> state_;
};

// The member functions `to_cpp` calls on the evaluator, as C++17 source: a struct named `type_name`
// with `bool failed` set by a division by zero.
std::string cpp_evaluator_struct(const std::string& type_name);

// True when `text` is a name an expression can use: a C identifier that is not a function or operator
// name of the grammar and not a C++ keyword (names become struct members and macros in a header).
bool usable_name(const std::string& text, std::string* why = nullptr);

}  // namespace evotune::user_kernel
