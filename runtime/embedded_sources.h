#pragma once
// Kernel sources compiled into the binary (harness/kernels/, families/*/kernels/; cmake/EmbedSources.cmake), so
// that NVRTC gets the same text on any machine, with or without a checkout.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace evotune::templates {

struct EmbeddedSource {
  const char* path;  // its embedded name, e.g. "smoke/smoke.cuh" (the name kernels include)
  const char* text;
};

// Defined in the generated file.
const std::vector<EmbeddedSource>& embedded_sources();

// The text of one embedded file; throws std::out_of_range naming the path when absent.
std::string embedded_source(std::string_view path);

// Every embedded file whose path starts with `prefix`, as (include name, text) pairs for NVRTC.
std::vector<std::pair<std::string, std::string>> embedded_headers(std::string_view prefix);

}  // namespace evotune::templates
