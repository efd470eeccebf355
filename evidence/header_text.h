#pragma once
// Text written into an exported C++ header (every family's header writer). Every text that reaches a header
// came from a database or a spec, which anyone may have written. The header must compile, and mean what
// evotune meant, whatever the text holds, so text is written in a safe character set: printable ASCII passes;
// any other byte (a line break that would end a // comment, control bytes, non-ASCII) becomes a three-digit
// octal escape \ooo, which a following digit cannot extend. So do the characters that would end or splice
// what holds the text: in a literal '"' and '\' (escaped as \" and \\); in a comment '\' (a backslash before
// the line end would join the next line to the comment) and the '/' of "*/"; in both, the second '?' of
// "??" (a trigraph under -trigraphs: ??/ is a backslash).
#include <string>
#include <vector>

namespace evotune::evidence {

// A C++ string literal holding exactly the bytes of `text`.
std::string literal(const std::string& text);

// `text` as it may stand in a // comment: one line, nothing that ends the comment or splices a line.
std::string comment_text(const std::string& text);

// A CUBIN as the initializer of an unsigned char array: decimal bytes, 32 to a line.
std::string byte_array(const std::vector<char>& bytes);

}  // namespace evotune::evidence
