#include "runtime/embedded_sources.h"

#include <stdexcept>

namespace evotune::templates {

std::string embedded_source(std::string_view path) {
  for (const EmbeddedSource& s : embedded_sources()) {
    if (path == s.path) return s.text;
  }
  throw std::out_of_range("no embedded kernel source named " + std::string(path));
}

std::vector<std::pair<std::string, std::string>> embedded_headers(std::string_view prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const EmbeddedSource& s : embedded_sources()) {
    if (std::string_view(s.path).starts_with(prefix)) out.emplace_back(s.path, s.text);
  }
  return out;
}

}  // namespace evotune::templates
