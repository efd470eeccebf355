#pragma once
// Configs as the store keeps them, "name=label,name=label,...": split into (name, label) pairs. The
// exporters and the report read them this way, knowing no kernel family.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace evotune::evidence {

// The pairs in order; empty text gives none. nullopt when an item is not name=label with a non-empty
// name (including an empty item, as after a trailing comma).
std::optional<std::vector<std::pair<std::string, std::string>>> split_config_text(std::string_view text);

}  // namespace evotune::evidence
