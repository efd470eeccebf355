#include "evidence/header_text.h"

#include <fmt/format.h>

namespace evotune::evidence {
namespace {

std::string octal(unsigned char c) { return fmt::format("\\{:03o}", c); }

bool printable_ascii(unsigned char c) { return c >= 0x20 && c < 0x7f; }

}  // namespace

std::string literal(const std::string& text) {
  std::string out = "\"";
  char previous = '\0';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '?' && previous == '?') {
      out += "\\?";
    } else if (printable_ascii(byte)) {
      out += c;
    } else {
      out += octal(byte);
    }
    previous = c;
  }
  return out + "\"";
}

std::string comment_text(const std::string& text) {
  std::string out;
  char previous = '\0';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool closes = (c == '?' && previous == '?') || (c == '/' && previous == '*');
    out += printable_ascii(byte) && c != '\\' && !closes ? std::string(1, c) : octal(byte);
    previous = c;
  }
  return out;
}

std::string byte_array(const std::vector<char>& bytes) {
  std::string out;
  out.reserve(bytes.size() * 4 + bytes.size() / 8);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i % 32 == 0) out += "\n   ";
    out += ' ';
    out += std::to_string(static_cast<unsigned char>(bytes[i]));
    out += ',';
  }
  return out + "\n";
}

}  // namespace evotune::evidence
