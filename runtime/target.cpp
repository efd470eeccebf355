#include "runtime/target.h"

#include <fmt/format.h>

#include <cctype>

#include "core/errors.h"

namespace evotune::runtime {

Target Target::parse(std::string_view text) {
  auto fail = [&] {
    return UsageError(fmt::format("bad target '{}': expected sm_<major><minor>[a], e.g. sm_80 or sm_90a", text));
  };
  if (!text.starts_with("sm_")) throw fail();
  std::string_view rest = text.substr(3);
  Target t;
  if (!rest.empty() && rest.back() == 'a') {
    t.arch_specific = true;
    rest.remove_suffix(1);
  }
  if (rest.size() < 2 || rest.size() > 3) throw fail();
  for (char c : rest) {
    if (!std::isdigit(static_cast<unsigned char>(c))) throw fail();
  }
  t.minor = rest.back() - '0';
  t.major = std::stoi(std::string(rest.substr(0, rest.size() - 1)));
  if (t.major < 5) throw fail();
  return t;
}

std::string Target::name() const { return fmt::format("sm_{}{}{}", major, minor, arch_specific ? "a" : ""); }

}  // namespace evotune::runtime
