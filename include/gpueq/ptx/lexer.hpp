// The PTX lexer: splits text into tokens on demand (no token array), tracks line and column for
// diagnostics, skips `//` and `/* */` comments, and notices nvcc's `// begin inline asm` /
// `// end inline asm` markers so instructions that came from inline assembly can be flagged.
// Identifiers keep their dots (`ld.global.f32`, `%tid.x`) and `::` (`.shared::cta`); the parser
// splits them. Every loop advances or stops at the end, so no input makes it hang.
#pragma once

#include <gpueq/support/diagnostics.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpueq::ptx {

enum class token_kind : std::uint8_t {
  end,        // end of input
  ident,      // ld.global.f32, %r1, %tid.x, $L__BB0_2, _Z4kern, _
  directive,  // .reg, .b32, .shared::cta, .v4
  number,     // 42, 0x1F, 0f3F800000, 1.5e-3
  string,     // "path" (text without the quotes)
  punct,      // one of , ; : [ ] ( ) { } < > + - ! @ | =
};

struct token {
  token_kind kind = token_kind::end;
  std::string_view text;
  std::uint32_t line = 0, column = 0;
  std::size_t offset = 0;
  bool inline_asm = false;  // lexed between `// begin inline asm` and `// end inline asm`
  bool is(char c) const { return kind == token_kind::punct && text.size() == 1 && text[0] == c; }
};

namespace detail {

// Character classes by table: the lexer's inner loops test one byte per step.
enum : std::uint8_t { c_start = 1, c_ident = 2, c_alnum = 4 };
constexpr std::uint8_t char_class(unsigned char c) {
  std::uint8_t k = 0;
  bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  bool digit = c >= '0' && c <= '9';
  if (letter || c == '$' || c == '%') k |= c_start;
  if (letter || digit || c == '$' || c == '.') k |= c_ident;
  if (letter || digit || c == '.') k |= c_alnum;
  return k;
}
struct class_table {
  std::uint8_t v[256];
  constexpr class_table() : v{} {
    for (int i = 0; i < 256; ++i) v[i] = char_class(static_cast<unsigned char>(i));
  }
};
inline constexpr class_table char_classes{};

}  // namespace detail

class lexer {
 public:
  lexer(std::string_view src, std::string file = {}) : src_(src), file_(std::move(file)) { advance(); }

  const token& peek() const { return cur_; }
  token next() {
    token t = cur_;
    advance();
    return t;
  }
  bool in_inline_asm() const { return inline_asm_; }
  std::string_view source() const { return src_; }
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const token& at, std::string reason) const {
    throw support::diagnostic_error({file_, {at.line, at.column}, std::move(reason)});
  }

 private:
  static bool ident_start(char c) { return detail::char_classes.v[static_cast<unsigned char>(c)] & detail::c_start; }
  static bool ident_char(char c) { return detail::char_classes.v[static_cast<unsigned char>(c)] & detail::c_ident; }
  static bool alnum(char c) { return detail::char_classes.v[static_cast<unsigned char>(c)] & detail::c_alnum; }

  void newline_at(std::size_t i) {
    ++line_;
    line_start_ = i + 1;
  }

  // Reads identifier characters from pos_, with `::` allowed inside (`.shared::cta`, `L2::128B`).
  void scan_ident_tail() {
    for (;;) {
      while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
      if (pos_ + 2 < src_.size() && src_[pos_] == ':' && src_[pos_ + 1] == ':' && ident_char(src_[pos_ + 2])) {
        pos_ += 2;
        continue;
      }
      break;
    }
  }

  void skip_space_and_comments() {
    for (;;) {
      while (pos_ < src_.size()) {
        char c = src_[pos_];
        if (c == '\n') {
          newline_at(pos_);
          ++pos_;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
          ++pos_;
        } else {
          break;
        }
      }
      if (pos_ + 1 < src_.size() && src_[pos_] == '/' && src_[pos_ + 1] == '/') {
        std::size_t end = src_.find('\n', pos_);
        if (end == std::string_view::npos) end = src_.size();
        std::string_view text = src_.substr(pos_ + 2, end - pos_ - 2);
        if (text.find("begin inline asm") != std::string_view::npos) inline_asm_ = true;
        else if (text.find("end inline asm") != std::string_view::npos) inline_asm_ = false;
        pos_ = end;
        continue;
      }
      if (pos_ + 1 < src_.size() && src_[pos_] == '/' && src_[pos_ + 1] == '*') {
        token at = here(pos_);
        std::size_t end = src_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) fail(at, "unterminated /* comment");
        for (std::size_t i = pos_; i < end; ++i)
          if (src_[i] == '\n') newline_at(i);
        pos_ = end + 2;
        continue;
      }
      return;
    }
  }

  token here(std::size_t at) const {
    token t;
    t.offset = at;
    t.line = line_;
    t.column = static_cast<std::uint32_t>(at - line_start_ + 1);
    t.inline_asm = inline_asm_;
    return t;
  }

  void advance() {
    skip_space_and_comments();
    cur_ = here(pos_);
    if (pos_ >= src_.size()) {
      cur_.kind = token_kind::end;
      cur_.text = {};
      return;
    }
    std::size_t start = pos_;
    char c = src_[pos_];
    if (ident_start(c)) {
      ++pos_;
      scan_ident_tail();
      cur_.kind = token_kind::ident;
    } else if (c == '.' && pos_ + 1 < src_.size() && ident_start(src_[pos_ + 1]) && src_[pos_ + 1] != '%') {
      // (`.%r` is no directive: its tail would stop at the `%`, leaving a directive "." that prints
      // as a lone dot, which does not lex; a lone '.' is an unexpected character below.)
      ++pos_;
      scan_ident_tail();
      cur_.kind = token_kind::directive;
    } else if (c >= '0' && c <= '9') {
      // Numbers: 42 0x1F 0b101 017 42U 0f3F800000 0d3FF0000000000000 1.5 1.5e-3 1e+10
      bool decimal = !(pos_ + 1 < src_.size() && (src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X' ||
                                                  src_[pos_ + 1] == 'f' || src_[pos_ + 1] == 'F' ||
                                                  src_[pos_ + 1] == 'd' || src_[pos_ + 1] == 'D') &&
                       c == '0');
      while (pos_ < src_.size()) {
        char d = src_[pos_];
        if (alnum(d)) {
          ++pos_;
        } else if (decimal && (d == '+' || d == '-') && (src_[pos_ - 1] == 'e' || src_[pos_ - 1] == 'E')) {
          ++pos_;
        } else {
          break;
        }
      }
      cur_.kind = token_kind::number;
    } else if (c == '"') {
      std::size_t end = pos_ + 1;
      while (end < src_.size() && src_[end] != '"' && src_[end] != '\n') {
        if (src_[end] == '\\' && end + 1 < src_.size() && src_[end + 1] != '\n') ++end;
        ++end;
      }
      if (end >= src_.size() || src_[end] != '"') fail(cur_, "unterminated string");
      cur_.kind = token_kind::string;
      cur_.text = src_.substr(pos_ + 1, end - pos_ - 1);
      pos_ = end + 1;
      return;
    } else {
      switch (c) {
        case ',': case ';': case ':': case '[': case ']': case '(': case ')': case '{': case '}':
        case '<': case '>': case '+': case '-': case '!': case '@': case '|': case '=':
          ++pos_;
          cur_.kind = token_kind::punct;
          break;
        default: {
          unsigned char u = static_cast<unsigned char>(c);
          std::string shown = (u >= 0x20 && u < 0x7f) ? std::string("'") + c + "'"
                                                      : "byte 0x" + std::string(1, "0123456789abcdef"[u >> 4]) +
                                                            std::string(1, "0123456789abcdef"[u & 15]);
          fail(cur_, "unexpected character " + shown);
        }
      }
    }
    cur_.text = src_.substr(start, pos_ - start);
  }

  std::string_view src_;
  std::string file_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  bool inline_asm_ = false;
  token cur_;
};

}  // namespace gpueq::ptx
