#pragma once
// JSON as text, for JSON that may hold text from outside evotune: a database's text, a path, a file name.
// nlohmann's plain dump() throws on bytes that are not UTF-8 ("[json.exception.type_error.316] invalid UTF-8
// byte"); here each such byte becomes U+FFFD, so what is printed or stored is valid JSON whatever the input.
#include <nlohmann/json.hpp>

#include <string>

namespace evotune::evidence {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace evotune::evidence
