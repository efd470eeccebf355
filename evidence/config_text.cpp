#include "evidence/config_text.h"

namespace evotune::evidence {

std::optional<std::vector<std::pair<std::string, std::string>>> split_config_text(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (text.empty()) return pairs;
  for (;;) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0) return std::nullopt;
    pairs.emplace_back(std::string(item.substr(0, equals)), std::string(item.substr(equals + 1)));
    if (comma == std::string_view::npos) return pairs;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace evotune::evidence
