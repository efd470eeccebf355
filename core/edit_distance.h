#pragma once
// Edits (insertions, deletions, substitutions) from one name to another: the measure every "did you mean"
// uses (unknown commands and options, families, spec keys); each caller keeps its own bound on how near is near.
#include <cstddef>
#include <string_view>

namespace evotune {

std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace evotune
