// Diagnostics shared by every front-end and checker: a position in a named source (file, line,
// column, all counting from 1) with a one-line reason, and the exception that carries one.
// Every user-facing error of gpueq is printed as `file:line:column: reason`, the form editors and
// compilers use, so one type keeps the format in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpueq::support {

// A position in a source text. line == 0 means "no position known" (e.g. a whole-file error).
struct source_position {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  friend bool operator==(const source_position&, const source_position&) = default;
};

// Line and column (from 1) of a byte offset; columns count bytes, tabs count as one.
inline source_position position_of(std::string_view text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  source_position p{1, 1};
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++p.line;
      line_start = i + 1;
    }
  p.column = static_cast<std::uint32_t>(offset - line_start + 1);
  return p;
}

struct diagnostic {
  std::string file;  // may be empty (text that came from a string)
  source_position where;
  std::string reason;  // one line, no trailing period needed

  // `file:line:column: reason`, leaving out the parts that are unknown.
  std::string str() const {
    std::string s = file;
    if (where.line) {
      if (!s.empty()) s += ':';
      s += std::to_string(where.line) + ':' + std::to_string(where.column);
    }
    if (!s.empty()) s += ": ";
    return s + reason;
  }
};

// The exception behind every diagnostic-carrying error; what() is diagnostic::str().
class diagnostic_error : public std::runtime_error {
 public:
  explicit diagnostic_error(diagnostic d) : std::runtime_error(d.str()), diag_(std::move(d)) {}
  const diagnostic& diag() const noexcept { return diag_; }
  std::uint32_t line() const noexcept { return diag_.where.line; }
  std::uint32_t column() const noexcept { return diag_.where.column; }
  const std::string& reason() const noexcept { return diag_.reason; }
  const std::string& file() const noexcept { return diag_.file; }

 private:
  diagnostic diag_;
};

}  // namespace gpueq::support
