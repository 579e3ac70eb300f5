// Parsing the term syntax into a store: the text that gpueq/term/print.hpp writes, and what users
// type into `gpueq identity`.
//   identifiers   x, alpha, q[2][5]          (an input element; indices are integer literals)
//   numbers       3, 0.125, 1/3, -2.5e-3     (exact: decimals are read as exact rationals)
//   constants     inf, -inf
//   operators     + - * / ^                  (usual precedence; ^ binds tightest, takes an
//                                             integer exponent, and is right-associative)
//   functions     the callable rows of support/operations.hpp: rcp min max exp exp2 log log2
//                 sqrt rsqrt tanh erf abs sin cos   (max/min take ≥ 2 args)
//   bindings      let D = exp(x[0]) + exp(x[1])     (parse_let; later texts may use D as a term)
// The parser is a shunting-yard over an explicit stack: megabyte expressions and deep nesting
// cost no call-stack depth. Errors carry the byte offset, line and column.
#pragma once

#include <gpueq/term/operations.hpp>
#include <gpueq/term/store.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::term {

// Names bound by `let NAME = EXPR` (parse_let), usable as terms by later parses.
using let_table = boost::unordered_flat_map<std::string, term_id>;

struct parse_error : std::runtime_error {
  parse_error(std::string message, std::size_t offset_, std::size_t line_, std::size_t column_)
      : std::runtime_error(std::to_string(line_) + ":" + std::to_string(column_) + ": " + message),
        reason(std::move(message)),
        offset(offset_),
        line(line_),
        column(column_) {}
  std::string reason;
  std::size_t offset, line, column;  // line and column count from 1
};

namespace detail {

enum class op_kind : std::uint8_t { add, sub, mul, div, pow, negate, paren, call };

struct pending_op {
  op_kind k;
  std::size_t offset;
  std::string_view name = {};  // for calls
  std::size_t arguments = 0;   // for calls: commas seen + 1
  std::size_t operand_base = 0;
};

inline int precedence(op_kind k) {
  switch (k) {
    case op_kind::add:
    case op_kind::sub: return 1;
    case op_kind::mul:
    case op_kind::div: return 2;
    case op_kind::negate: return 3;
    case op_kind::pow: return 4;
    default: return 0;
  }
}

inline bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace detail

class parser {
 public:
  parser(store& s, std::string_view text, const let_table* lets = nullptr) : s_(s), text_(text), lets_(lets) {}

  // Parses "let NAME = EXPR" and binds NAME in `lets`.
  void parse_let(let_table& lets) {
    skip_space();
    if (text_.substr(pos_, 3) != "let" || pos_ + 3 >= text_.size() || detail::is_ident_char(text_[pos_ + 3]))
      fail("expected 'let NAME = EXPR'", pos_);
    pos_ += 3;
    skip_space();
    const std::size_t start = pos_;
    if (pos_ >= text_.size() || !detail::is_ident_start(text_[pos_])) fail("expected a name after 'let'", pos_);
    while (pos_ < text_.size() && detail::is_ident_char(text_[pos_])) ++pos_;
    std::string name(text_.substr(start, pos_ - start));
    if (name == "inf" || name == "let" || known_function(name))
      fail("'" + name + "' is reserved and cannot be bound", start);
    if (lets.contains(name)) fail("'" + name + "' is already bound", start);
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '=' || text_.substr(pos_, 2) == "==")
      fail("expected '=' after 'let " + name + "'", pos_);
    ++pos_;
    term_id value = parse_until_end();
    skip_space();
    if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'", pos_);
    lets.emplace(std::move(name), value);
  }

  // Parses the whole text as one term.
  term_id parse_all() {
    term_id t = parse_until_end();
    skip_space();
    if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'", pos_);
    return t;
  }

  // Parses "LHS == RHS" (one identity).
  std::pair<term_id, term_id> parse_identity() {
    term_id lhs = parse_until_end();
    skip_space();
    if (text_.substr(pos_, 2) != "==") {
      if (pos_ >= text_.size()) fail("expected '==' between the two sides of the identity", pos_);
      fail("expected '==' but found '" + std::string(1, text_[pos_]) + "'", pos_);
    }
    pos_ += 2;
    term_id rhs = parse_until_end();
    skip_space();
    if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'", pos_);
    return {lhs, rhs};
  }

  [[noreturn]] void fail(const std::string& message, std::size_t offset) const {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw parse_error(message, offset, line, column);
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r'))
      ++pos_;
  }

  // Parses an expression and stops before "==", an unmatched ')' or ',' at depth 0, or the end.
  term_id parse_until_end() {
    operands_.clear();
    chains_.clear();
    ops_.clear();
    bool expect_operand = true;
    for (;;) {
      skip_space();
      if (pos_ >= text_.size()) break;
      const std::size_t at = pos_;
      const char c = text_[pos_];
      if (expect_operand) {
        if (detail::is_digit(c) || c == '.') {
          push(number());
          expect_operand = false;
        } else if (detail::is_ident_start(c)) {
          identifier();
          expect_operand = !operand_pushed_;
        } else if (c == '(') {
          ++pos_;
          ops_.push_back({detail::op_kind::paren, at, {}, 0, operands_.size()});
        } else if (c == '-') {
          ++pos_;
          ops_.push_back({detail::op_kind::negate, at, {}, 0, operands_.size()});
        } else if (c == '+') {
          ++pos_;  // unary plus
        } else if (c == ')' && !ops_.empty() && ops_.back().k == detail::op_kind::call &&
                   ops_.back().arguments == 0) {
          fail("'" + std::string(ops_.back().name) + "' needs arguments", at);
        } else {
          fail(c == '=' ? "expected an operand before '='"
                        : "expected an operand but found '" + std::string(1, c) + "'",
               at);
        }
        continue;
      }
      // After an operand: an operator, ')' or ','.
      detail::op_kind k;
      switch (c) {
        case '+': k = detail::op_kind::add; break;
        case '-': k = detail::op_kind::sub; break;
        case '*': k = detail::op_kind::mul; break;
        case '/': k = detail::op_kind::div; break;
        case '^': k = detail::op_kind::pow; break;
        case ')': {
          if (!close_group(at)) goto done;
          continue;
        }
        case ',': {
          if (!comma(at)) goto done;
          expect_operand = true;
          continue;
        }
        case '=':
          if (text_.substr(pos_, 2) == "==") goto done;
          fail("unexpected '='", at);
        default:
          if (detail::is_ident_start(c) || detail::is_digit(c) || c == '(')
            fail("expected an operator before '" + std::string(1, c) + "'", at);
          fail("unexpected '" + std::string(1, c) + "'", at);
      }
      ++pos_;
      const int p = detail::precedence(k);
      const bool right_assoc = k == detail::op_kind::pow;
      while (!ops_.empty()) {
        const int q = detail::precedence(ops_.back().k);
        if (q == 0 || q < p || (q == p && right_assoc)) break;
        reduce();
      }
      ops_.push_back({k, at, {}, 0, operands_.size()});
      expect_operand = true;
    }
  done:
    if (expect_operand && operands_.empty() && ops_.empty()) fail("empty expression", pos_);
    if (expect_operand) fail("expected an operand at the end", pos_);
    while (!ops_.empty()) {
      if (ops_.back().k == detail::op_kind::paren) fail("'(' is never closed", ops_.back().offset);
      if (ops_.back().k == detail::op_kind::call)
        fail("'" + std::string(ops_.back().name) + "(' is never closed", ops_.back().offset);
      reduce();
    }
    if (operands_.size() != 1) fail("malformed expression", pos_);
    finish(0, pos_);
    return operands_.back();
  }

  // ')' closes a parenthesis or a call; false when it belongs to an enclosing context.
  bool close_group(std::size_t at) {
    while (!ops_.empty() && ops_.back().k != detail::op_kind::paren && ops_.back().k != detail::op_kind::call)
      reduce();
    if (ops_.empty()) fail("unmatched ')'", at);
    ++pos_;
    detail::pending_op open = ops_.back();
    ops_.pop_back();
    if (open.k == detail::op_kind::call) call(open);
    else finish(operands_.size() - 1, open.offset);  // a parenthesized sum stays one node
    return true;
  }

  bool comma(std::size_t at) {
    while (!ops_.empty() && ops_.back().k != detail::op_kind::paren && ops_.back().k != detail::op_kind::call)
      reduce();
    if (ops_.empty() || ops_.back().k != detail::op_kind::call) fail("',' outside a function call", at);
    ++ops_.back().arguments;
    ++pos_;
    return true;
  }

  void push(term_id t) {
    operands_.push_back(t);
    chains_.emplace_back();
  }

  // Combines the pending chain at operand i (if any) into one term.
  void finish(std::size_t i, std::size_t offset) {
    pending_chain& c = chains_[i];
    if (c.k == detail::op_kind::paren) return;
    try {
      operands_[i] = c.k == detail::op_kind::add ? s_.add(c.items) : s_.mul(c.items);
    } catch (const term_error& e) {
      fail(e.what(), offset);
    }
    c.k = detail::op_kind::paren;
    c.items.clear();
  }

  void reduce() {
    detail::pending_op op = ops_.back();
    ops_.pop_back();
    const std::size_t top = operands_.size() - 1;
    try {
      if (op.k == detail::op_kind::negate) {
        finish(top, op.offset);
        operands_.back() = s_.neg(operands_.back());
        return;
      }
      finish(top, op.offset);
      term_id b = operands_.back();
      operands_.pop_back();
      chains_.pop_back();
      const std::size_t ai = top - 1;
      const bool additive = op.k == detail::op_kind::add || op.k == detail::op_kind::sub;
      const bool multiplicative = op.k == detail::op_kind::mul || op.k == detail::op_kind::div;
      if (additive || multiplicative) {
        const detail::op_kind chain_kind = additive ? detail::op_kind::add : detail::op_kind::mul;
        pending_chain& c = chains_[ai];
        if (c.k != chain_kind) {
          finish(ai, op.offset);
          c.k = chain_kind;
          c.items.assign(1, operands_[ai]);
        }
        c.items.push_back(op.k == detail::op_kind::sub ? s_.neg(b) : op.k == detail::op_kind::div ? s_.inv(b) : b);
        return;
      }
      finish(ai, op.offset);
      term_id a = operands_.back();
      term_id r;
      switch (op.k) {
        case detail::op_kind::pow: {
          std::optional<std::int64_t> e;
          if (s_.is_constant(b)) e = support::to_int64(s_.value_of(b));
          if (!e || *e > 1000000 || *e < -1000000)
            fail("the exponent of '^' must be an integer constant (|e| ≤ 10^6)", op.offset);
          r = s_.pow(a, *e);
          break;
        }
        default: fail("malformed expression", op.offset);
      }
      operands_.back() = r;
    } catch (const term_error& e) {
      fail(e.what(), op.offset);
    }
  }

  void call(const detail::pending_op& open) {
    std::size_t n = operands_.size() - open.operand_base;
    for (std::size_t i = open.operand_base; i < operands_.size(); ++i) finish(i, open.offset);
    std::vector<term_id> args(operands_.end() - static_cast<std::ptrdiff_t>(n), operands_.end());
    operands_.resize(open.operand_base);
    chains_.resize(open.operand_base);
    std::string_view f = open.name;
    auto arity = [&](std::size_t want) {
      if (args.size() != want)
        fail("'" + std::string(f) + "' takes " + std::to_string(want) + " argument" + (want == 1 ? "" : "s") +
                 ", got " + std::to_string(args.size()),
             open.offset);
    };
    term_id r = no_term;
    const support::real_op o = *find_callable(f);  // known_function(f) held when the call opened
    if (o == support::real_op::max || o == support::real_op::min) {
      if (args.size() < 2) fail("'" + std::string(f) + "' takes two or more arguments", open.offset);
    } else {
      arity(support::arity(o));
    }
    try {
      r = build(s_, o, args);
    } catch (const term_error& e) {
      fail(e.what(), open.offset);
    }
    push(r);
  }

  // The operations the syntax spells as functions (support/operations.hpp's `callable` column).
  static std::optional<support::real_op> find_callable(std::string_view f) {
    auto o = support::find_real_op(f);
    if (o && support::callable(*o)) return o;
    return std::nullopt;
  }
  static bool known_function(std::string_view f) { return find_callable(f).has_value(); }

  term_id number() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (detail::is_digit(text_[pos_]) || text_[pos_] == '.')) ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t save = pos_++;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ < text_.size() && detail::is_digit(text_[pos_])) {
        while (pos_ < text_.size() && detail::is_digit(text_[pos_])) ++pos_;
      } else {
        pos_ = save;
      }
    }
    auto value = support::parse_decimal(text_.substr(start, pos_ - start));
    if (!value) fail("malformed number '" + std::string(text_.substr(start, pos_ - start)) + "'", start);
    return s_.constant(*value);
  }

  // An input, `inf`, or a function name followed by '('.
  void identifier() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && detail::is_ident_char(text_[pos_])) ++pos_;
    std::string_view name = text_.substr(start, pos_ - start);
    std::size_t after = pos_;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (!known_function(name)) fail("unknown function '" + std::string(name) + "'", start);
      ++pos_;
      ops_.push_back({detail::op_kind::call, start, name, 1, operands_.size()});
      operand_pushed_ = false;
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ')') fail("'" + std::string(name) + "' needs arguments", pos_);
      return;
    }
    pos_ = after;
    operand_pushed_ = true;
    if (name == "inf") {
      push(s_.infinity(false));
      return;
    }
    if (known_function(name)) fail("'" + std::string(name) + "' is a function: write " + std::string(name) + "(…)", start);
    if (lets_) {
      if (auto it = lets_->find(std::string(name)); it != lets_->end()) {
        if (pos_ < text_.size() && text_[pos_] == '[') fail("'" + std::string(name) + "' is a let binding and has no indices", pos_);
        push(it->second);
        return;
      }
    }
    indices_.clear();
    while (pos_ < text_.size() && text_[pos_] == '[') {
      std::size_t open = pos_++;
      skip_space();
      std::uint64_t v = 0;
      std::size_t digits = 0;
      while (pos_ < text_.size() && detail::is_digit(text_[pos_])) {
        v = v * 10 + static_cast<std::uint64_t>(text_[pos_++] - '0');
        if (++digits > 9) fail("index too large", open);
      }
      if (digits == 0) fail("expected an integer index after '['", pos_);
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ']') fail("expected ']'", pos_);
      ++pos_;
      indices_.push_back(static_cast<std::uint32_t>(v));
    }
    push(s_.input(name, indices_));
  }

  store& s_;
  std::string_view text_;
  const let_table* lets_ = nullptr;
  std::size_t pos_ = 0;
  std::vector<term_id> operands_;
  // An operand that is an unfinished n-ary sum or product (`a + b - c`, `a * b / c`): its items,
  // combined in one smart-constructor call when something else consumes the operand. Building
  // `a + b + c + …` pairwise would re-chunk long sums; n-ary gives back the term that printed it.
  struct pending_chain {
    detail::op_kind k = detail::op_kind::paren;  // paren: not a chain
    std::vector<term_id> items;
  };
  std::vector<pending_chain> chains_;
  std::vector<detail::pending_op> ops_;
  std::vector<std::uint32_t> indices_;
  bool operand_pushed_ = false;
};

inline term_id parse(store& s, std::string_view text, const let_table* lets = nullptr) {
  return parser(s, text, lets).parse_all();
}

inline std::pair<term_id, term_id> parse_identity(store& s, std::string_view text, const let_table* lets = nullptr) {
  return parser(s, text, lets).parse_identity();
}

// Parses "let NAME = EXPR" (EXPR may use earlier bindings) and adds NAME to `lets`.
inline void parse_let(store& s, std::string_view text, let_table& lets) { parser(s, text, &lets).parse_let(lets); }

// Whether a line of text is a let binding (starts with the word `let`).
inline bool is_let(std::string_view text) {
  std::size_t i = text.find_first_not_of(" \t\r");
  return i != std::string_view::npos && text.substr(i, 3) == "let" &&
         (i + 3 == text.size() || text[i + 3] == ' ' || text[i + 3] == '\t');
}

}  // namespace gpueq::term
