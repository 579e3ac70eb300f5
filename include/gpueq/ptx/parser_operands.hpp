// The operand half of the PTX parser (ptx/parser.hpp, whose header comment describes the whole):
// the token helpers and literals, the register scopes (a `.reg` declared in a `{ }` block is
// visible to the end of the block and named `name#block` in the IR), and the operands of an
// instruction (registers, special registers, immediates, symbols, addresses, vectors, lists,
// pairs). detail::operand_parser holds the lexer, the module being built and the open scopes;
// detail::parser (parser.hpp) derives from it and parses directives, functions and instructions.
#pragma once

#include <gpueq/ptx/ir.hpp>
#include <gpueq/ptx/lexer.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpueq::ptx {
namespace detail {

// Special registers (the name before any `.x`): `%tid.x`, `%laneid`, `%envreg3`, ...
inline bool is_special_register(std::string_view n) {
  if (n.empty() || n[0] != '%') return false;
  n.remove_prefix(1);
  if (auto dot = n.find('.'); dot != std::string_view::npos) n = n.substr(0, dot);
  static constexpr std::string_view names[] = {
      "tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid", "gridid",
      "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt", "clock", "clock64",
      "clock_hi", "globaltimer", "globaltimer_lo", "globaltimer_hi", "total_smem_size", "dynamic_smem_size",
      "aggr_smem_size", "clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid", "cluster_ctarank",
      "cluster_nctarank", "is_explicit_cluster", "current_graph_exec", "reserved_smem_offset_begin",
      "reserved_smem_offset_end", "reserved_smem_offset_cap"};
  for (auto s : names)
    if (n == s) return true;
  for (std::string_view p : {std::string_view("envreg"), std::string_view("pm")})
    if (n.size() > p.size() && n.substr(0, p.size()) == p &&
        n.find_first_not_of("0123456789", p.size()) == std::string_view::npos)
      return true;
  if (n.starts_with("reserved_smem_offset_")) return true;
  return false;
}

class operand_parser {
 protected:
  operand_parser(std::string_view text, std::string file) : lex_(text, file) { m_.file = std::move(file); }

  // --- token helpers -------------------------------------------------------------------------
  const token& peek() const { return lex_.peek(); }
  token next() { return lex_.next(); }
  [[noreturn]] void fail(const token& t, std::string reason) const { lex_.fail(t, std::move(reason)); }
  static std::string show(const token& t) {
    switch (t.kind) {
      case token_kind::end: return "end of input";
      case token_kind::string: return "string \"" + std::string(t.text.substr(0, 40)) + "\"";
      default: return "'" + std::string(t.text.substr(0, 60)) + "'";
    }
  }
  token expect(char c, const char* context) {
    if (!peek().is(c)) fail(peek(), std::string("expected '") + c + "' " + context + ", found " + show(peek()));
    return next();
  }
  bool accept(char c) {
    if (!peek().is(c)) return false;
    next();
    return true;
  }
  token expect_ident(const char* what) {
    if (peek().kind != token_kind::ident) fail(peek(), std::string("expected ") + what + ", found " + show(peek()));
    return next();
  }
  std::uint32_t intern(std::string_view s) { return m_.names.intern(s); }

  // Unsigned integer literal: decimal, 0x hex, 0b binary, 0 octal, optional U suffix.
  std::uint64_t integer(const token& t) {
    std::string_view s = t.text;
    if (t.kind != token_kind::number) fail(t, "expected an integer, found " + show(t));
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
    else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, s.remove_prefix(2);
    else if (s.size() > 1 && s[0] == '0') base = 8, s.remove_prefix(1);
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) fail(t, "malformed integer " + show(t));
    return v;
  }

  // An immediate operand from a number token (sign applied by the caller for integers).
  operand number_operand(const token& t, bool negative) {
    operand o;
    std::string_view s = t.text;
    if (s.size() >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
      bool single = s[1] == 'f' || s[1] == 'F';
      std::string_view hex = s.substr(2);
      if (hex.size() != (single ? 8u : 16u)) fail(t, "malformed float literal " + show(t));
      std::uint64_t bits = 0;
      auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
      if (ec != std::errc{} || p != hex.data() + hex.size()) fail(t, "malformed float literal " + show(t));
      if (negative) bits ^= single ? 0x80000000ULL : 0x8000000000000000ULL;
      o.kind = single ? operand_kind::imm_f32 : operand_kind::imm_f64;
      o.value = static_cast<std::int64_t>(bits);
      return o;
    }
    bool is_float = s.find_first_of(".eE") != std::string_view::npos && !(s.size() > 1 && (s[1] == 'x' || s[1] == 'X'));
    if (is_float) {
      double d = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      if (ec != std::errc{} || p != s.data() + s.size()) fail(t, "malformed number " + show(t));
      if (negative) d = -d;
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      o.kind = operand_kind::imm_f64;
      o.value = static_cast<std::int64_t>(bits);
      return o;
    }
    std::uint64_t v = integer(t);
    o.kind = operand_kind::imm_int;
    o.is_hex = s.size() > 2 && (s[1] == 'x' || s[1] == 'X');
    o.value = static_cast<std::int64_t>(negative ? 0 - v : v);
    return o;
  }

  // --- operands ----------------------------------------------------------------------------
  operand operand_with_pair() {
    operand o = single_operand(true);
    if (peek().is('|')) {
      next();
      operand p;
      p.kind = operand_kind::pair;
      p.elems.push_back(std::move(o));
      p.elems.push_back(single_operand(false));
      return p;
    }
    return o;
  }

  operand register_operand(const token& t) {
    operand o;
    if (auto it = reg_cache_.find(t.text); it != reg_cache_.end()) {
      o.name = it->second.first;
      o.kind = it->second.second;
      return o;
    }
    if (auto r = resolve_register(t.text)) {
      o.name = *r;
      o.kind = operand_kind::reg;
    } else if (is_special_register(t.text)) {
      o.name = intern(t.text);
      o.kind = operand_kind::special;
    } else {
      fail(t, "undeclared register '" + std::string(t.text.substr(0, 60)) + "'");
    }
    reg_cache_.emplace(t.text, std::make_pair(o.name, o.kind));
    return o;
  }

  // --- register scopes -----------------------------------------------------------------------
  // One scope per open block: the function body is scope 0 (its registers keep their names), a
  // nested block's registers are named `name#block` in the IR (ptx::register_spelling).
  struct scope {
    std::uint32_t block = 0;
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> exact;   // source name -> IR name
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> ranges;  // `%r<N>`: source prefix -> N
    void clear(std::uint32_t b) {
      block = b;
      exact.clear();
      ranges.clear();
    }
    bool empty() const { return exact.empty() && ranges.empty(); }
  };

  void open_scope(std::uint32_t block) {
    if (++depth_ == scopes_.size()) scopes_.emplace_back();
    scopes_[depth_].clear(block);
  }
  void close_scope() {
    // Names resolved while the block's own registers were visible must be resolved again.
    if (!scopes_[depth_].empty()) reg_cache_.clear();
    --depth_;
  }

  // The name in the IR of a register declared in the current block.
  std::uint32_t scoped_name(std::string_view source) {
    if (depth_ == 0) return intern(source);
    std::string n(source);
    n += '#';
    n += std::to_string(scopes_[depth_].block);
    return intern(n);
  }

  // A name such as `%r12` split into its prefix `%r` and number 12 (a member of a range `%r<N>`).
  static bool split_numbered(std::string_view n, std::string_view& prefix, std::uint64_t& number) {
    std::size_t k = n.size();
    while (k > 0 && n[k - 1] >= '0' && n[k - 1] <= '9') --k;
    if (k == n.size() || k == 0) return false;
    std::string_view digits = n.substr(k);
    if (digits.size() > 1 && digits[0] == '0') return false;  // %r01 is not a member of %r<N>
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    prefix = n.substr(0, k);
    return ec == std::errc{} && p == digits.data() + digits.size();
  }

  // Is `n` (interned as `id`) declared in scope s, exactly or as a member of a range?
  bool declared_in(const scope& s, std::string_view n, std::uint32_t id) const {
    if (s.exact.contains(id)) return true;
    if (s.ranges.empty()) return false;
    std::string_view prefix;
    std::uint64_t number = 0;
    if (!split_numbered(n, prefix, number)) return false;
    auto pid = m_.names.find(prefix);
    if (!pid) return false;
    auto it = s.ranges.find(*pid);
    return it != s.ranges.end() && number < it->second;
  }

  // Declares a register (or a range `%r<N>`, count N) in the current block and returns the name
  // its declaration has in the IR. A name declared twice in one block is an error (ptxas: duplicate
  // definition), also when one of the two is a range member (`%r1` beside `%r<4>`).
  std::uint32_t declare_register(const token& at, std::uint32_t source, bool range, std::uint32_t count) {
    scope& s = scopes_[depth_];
    std::string_view n = m_.str(source);
    bool twice = false;
    if (range) {
      twice = s.ranges.contains(source);
      for (auto& [e, ir] : s.exact) {
        std::string_view prefix;
        std::uint64_t number = 0;
        if (split_numbered(m_.str(e), prefix, number) && prefix == n && number < count) twice = true;
      }
    } else {
      twice = declared_in(s, n, source);
    }
    if (twice)
      fail(at, "register '" + std::string(n.substr(0, 60)) + (range ? "<N>" : "") + "' declared twice in one block");
    std::uint32_t ir = scoped_name(n);
    if (range) s.ranges.emplace(source, count);
    else s.exact.emplace(source, ir);
    reg_cache_.clear();
    return ir;
  }

  // The IR name of the register `n` names here: the innermost open block that declares it.
  std::optional<std::uint32_t> resolve_register(std::string_view n) {
    auto id = m_.names.find(n);
    for (std::size_t d = depth_ + 1; d-- > 0;) {
      const scope& s = scopes_[d];
      if (s.empty()) continue;
      if (id) {
        if (auto it = s.exact.find(*id); it != s.exact.end()) return it->second;
      }
      std::string_view prefix;
      std::uint64_t number = 0;
      if (s.ranges.empty() || !split_numbered(n, prefix, number)) continue;
      auto pid = m_.names.find(prefix);
      if (!pid) continue;
      auto it = s.ranges.find(*pid);
      if (it == s.ranges.end() || number >= it->second) continue;
      if (d == 0) return intern(n);
      return intern(std::string(n) + '#' + std::to_string(s.block));
    }
    return std::nullopt;
  }

  // An identifier without `%`: a register declared so (`{ .reg .pred p; ... }`, inline asm), the
  // predefined WARP_SZ, or a symbol (variable, function, label).
  std::optional<operand> plain_identifier(const token& t) {
    if (plain_registers_)
      if (auto r = resolve_register(t.text)) {
        operand o;
        o.kind = operand_kind::reg;
        o.name = *r;
        return o;
      }
    if (t.text == "WARP_SZ") {  // the warp size, a constant (PTX ISA: predefined identifiers)
      operand o;
      o.kind = operand_kind::special;
      o.name = intern(t.text);
      return o;
    }
    return std::nullopt;
  }

  operand single_operand(bool allow_compound) {
    token t = peek();
    if (t.is('{') && allow_compound) {
      next();
      operand v;
      v.kind = operand_kind::vector;
      if (!peek().is('}')) {
        do v.elems.push_back(single_operand(false));
        while (accept(','));
      }
      expect('}', "to close a vector operand");
      return v;
    }
    if (t.is('(') && allow_compound) {
      next();
      operand v;
      v.kind = operand_kind::list;
      if (!peek().is(')')) {
        do v.elems.push_back(single_operand(false));
        while (accept(','));
      }
      expect(')', "to close an operand list");
      return v;
    }
    if (t.is('[')) return address_operand();
    if (t.is('!')) {
      next();
      token r = expect_ident("a predicate register after '!'");
      operand o = register_operand(r);
      o.negated = true;
      return o;
    }
    if (t.is('-')) {
      next();
      token n = next();
      if (n.kind != token_kind::number) fail(n, "expected a number after '-', found " + show(n));
      return number_operand(n, true);
    }
    if (t.kind == token_kind::number) return number_operand(next(), false);
    if (t.kind == token_kind::ident) {
      next();
      if (t.text[0] == '%') return register_operand(t);
      operand o;
      if (t.text == "_") return o;  // sink
      if (auto r = plain_identifier(t)) return *r;
      o.kind = operand_kind::symbol;
      o.name = intern(t.text);
      if (peek().is('+')) {
        next();
        o.value = signed_offset();
      }
      return o;
    }
    fail(t, "expected an operand, found " + show(t));
  }

  // After '+' in an address or symbol offset: N, -N.
  std::int64_t signed_offset() {
    bool neg = accept('-');
    token n = next();
    std::uint64_t v = integer(n);
    return static_cast<std::int64_t>(neg ? 0 - v : v);
  }

  operand address_operand() {
    next();  // '['
    operand o;
    o.kind = operand_kind::address;
    token t = peek();
    if (t.kind == token_kind::ident) {
      next();
      std::optional<operand> plain = t.text[0] == '%' ? std::nullopt : plain_identifier(t);
      if (t.text[0] == '%' || plain) {
        operand r = plain ? *plain : register_operand(t);
        if (r.kind != operand_kind::reg) fail(t, "a special register cannot be an address");
        o.base = address_base::reg;
        o.name = r.name;
      } else {
        o.base = address_base::symbol;
        o.name = intern(t.text);
      }
      if (accept('+')) o.value = signed_offset();
      else if (accept('-')) o.value = static_cast<std::int64_t>(0 - integer(next()));
    } else {
      bool neg = accept('-');
      std::uint64_t v = integer(next());
      o.base = address_base::none;
      o.value = static_cast<std::int64_t>(neg ? 0 - v : v);
    }
    // The tensor form of cp.async.bulk.tensor / cp.reduce.async.bulk.tensor: `[map, {c0, c1}]`,
    // a tensor map's address and a vector of coordinates, kept as the address's one element.
    if (accept(',')) {
      if (!peek().is('{')) fail(peek(), "expected a vector of tensor coordinates after ',' in an address, found " + show(peek()));
      o.elems.push_back(single_operand(true));
    }
    expect(']', "to close an address");
    return o;
  }

  lexer lex_;
  module m_;
  std::vector<scope> scopes_;  // scopes_[0..depth_] are open (reused, so blocks allocate nothing)
  std::size_t depth_ = 0;
  bool plain_registers_ = false;  // a register without `%` was declared in this function
  // Keyed by views into the source text (alive for the whole parse).
  boost::unordered_flat_map<std::string_view, std::pair<std::uint32_t, operand_kind>> reg_cache_;
};

}  // namespace detail
}  // namespace gpueq::ptx
