// Idiom lifting: rewrite the instruction sequences nvcc emits for math-library functions (expf's
// range reduction, __expf's multiply by log2(e) then ex2, tanhf's two-range approximation, ...)
// into one `gpueq.lifted.<fn>` pseudo-instruction computing the exact real function, keeping the
// source lines. gpueq treats tensor values as reals, so `expf(x)` must become exp(x), not the
// float arithmetic that approximates it.
//
// Recognition is by data flow and table-driven: each idiom is a small DAG written in PTX-like
// text (idiom_table() below); matching starts at a root instruction and follows each operand to
// its unique definition. A constant operand matches an immediate or a register whose unique
// definition is a `mov` of that constant (nvcc materializes many constants that way). `.ftz` is
// ignored when comparing modifiers; the first two operands of add/mul/fma/min/max commute.
// A match is rewritten only when it is safe: every instruction of it is unguarded and in one
// basic block, inputs are not redefined inside it, and no intermediate result is used outside it
// (constants shared with other code keep their `mov`).
//
//   ptx::lift_report r = ptx::lift(module);   // rewrites module in place
#pragma once

#include <gpueq/ptx/ir.hpp>
#include <gpueq/ptx/lift_regions.hpp>
#include <gpueq/support/entry.hpp>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::ptx {

// One idiom of the table, in text form.
struct idiom_def {
  std::string_view name;     // "expf", "__expf", ...
  real_function fn;          // what the root computes
  std::string_view inputs;   // the pattern variables that are the function's arguments: "x" or "x y"
  std::string_view pattern;  // lines `dst = opcode.mods src, src, ...`; the last line is the root
  // nvcc fuses the last multiply of an idiom with a following add (`acc += expf(x)` ends in
  // `fma k, scale, acc`): then the last input is an addend, and the lifted instruction carries
  // `.add` and computes fn(inputs...) + addend.
  bool adds_last_input = false;
};

// The idioms, largest first (a smaller idiom inside a larger one must not fire first). Patterns
// are written from nvcc 13 output for sm_80 with and without -use_fast_math
// (tests/ptx/inputs/idioms.cu).
inline const std::vector<idiom_def>& idiom_table() {
  static const std::vector<idiom_def> table = {
      {"expf", real_function::exp, "x", R"(
          a = fma.rn.f32 x, 0f3BBB989D, 0f3F000000
          b = cvt.sat.f32.f32 a
          c = fma.rm.f32 b, 0f437C0000, 0f4B400001
          d = add.f32 c, 0fCB40007F
          e = neg.f32 d
          f = fma.rn.f32 x, 0f3FB8AA3B, e
          g = fma.rn.f32 x, 0f32A57060, f
          h = mov.b32 c
          i = shl.b32 h, 23
          j = mov.b32 i
          k = ex2.approx.f32 g
          r = mul.f32 k, j)"},
      {"expf (fused with an add)", real_function::exp, "x y", R"(
          a = fma.rn.f32 x, 0f3BBB989D, 0f3F000000
          b = cvt.sat.f32.f32 a
          c = fma.rm.f32 b, 0f437C0000, 0f4B400001
          d = add.f32 c, 0fCB40007F
          e = neg.f32 d
          f = fma.rn.f32 x, 0f3FB8AA3B, e
          g = fma.rn.f32 x, 0f32A57060, f
          h = mov.b32 c
          i = shl.b32 h, 23
          j = mov.b32 i
          k = ex2.approx.f32 g
          r = fma.rn.f32 k, j, y)", true},
      {"tanhf", real_function::tanh, "x", R"(
          a = abs.f32 x
          b = mul.f32 a, 0f4038AA3B
          c = ex2.approx.f32 b
          d = add.f32 c, 0f3F800000
          e = rcp.approx.f32 d
          g = fma.rn.f32 e, 0fC0000000, 0f3F800000
          p = setp.ge.f32 a, 0f41102CB4
          h = selp.f32 0f3F800000, g, p
          i = copysign.f32 x, h
          j = mul.f32 x, x
          k = fma.rn.f32 0f3C80F082, j, 0fBD563CAE
          l = fma.rn.f32 k, j, 0f3E085941
          n = fma.rn.f32 l, j, 0fBEAAA9ED
          o = fma.rn.f32 n, j, 0f00000000
          q = fma.rn.f32 o, x, x
          s = setp.ge.f32 a, 0f3F19999A
          r = selp.f32 i, q, s)"},
      {"__expf", real_function::exp, "x", R"(
          t = mul.f32 x, 0f3FB8AA3B
          r = ex2.approx.f32 t)"},
      {"__logf", real_function::log, "x", R"(
          t = lg2.approx.f32 x
          r = mul.f32 t, 0f3F317218)"},
      {"exp2f", real_function::exp2, "x", "r = ex2.approx.f32 x"},
      {"log2f", real_function::log2, "x", "r = lg2.approx.f32 x"},
      {"rsqrtf", real_function::rsqrt, "x", "r = rsqrt.approx.f32 x"},
      {"sqrtf", real_function::sqrt, "x", "r = sqrt.rn.f32 x"},
      {"sqrtf (approx)", real_function::sqrt, "x", "r = sqrt.approx.f32 x"},
      {"sqrt", real_function::sqrt, "x", "r = sqrt.rn.f64 x"},
      {"tanhf (approx)", real_function::tanh, "x", "r = tanh.approx.f32 x"},
      {"division", real_function::div, "x y", "r = div.rn.f32 x, y"},
      {"division (full)", real_function::div, "x y", "r = div.full.f32 x, y"},
      {"__fdividef", real_function::div, "x y", "r = div.approx.f32 x, y"},
      {"division (f64)", real_function::div, "x y", "r = div.rn.f64 x, y"},
      {"reciprocal", real_function::rcp, "x", "r = rcp.rn.f32 x"},
      {"reciprocal (approx)", real_function::rcp, "x", "r = rcp.approx.f32 x"},
      {"reciprocal (f64)", real_function::rcp, "x", "r = rcp.rn.f64 x"},
  };
  return table;
}

// One rewrite the pass made.
struct lifted_idiom {
  std::string name;  // the idiom's name in the table
  real_function fn;
  std::uint32_t function = 0;     // index into module::functions
  std::uint32_t instruction = 0;  // index of the gpueq.lifted instruction after the rewrite
  std::uint32_t line = 0;         // PTX line of the root instruction
  source_loc loc;                 // its CUDA source line
  std::vector<std::uint32_t> lines;  // PTX lines of every instruction it replaced
};

struct lift_report {
  std::vector<lifted_idiom> idioms;
};

namespace detail {

struct pattern_operand {
  enum kind_t : std::uint8_t { var, node, f32, integer } kind = var;
  std::uint32_t index = 0;  // variable or node index
  std::int64_t value = 0;
};

struct pattern_node {
  opcode op = opcode::mov;
  std::vector<std::string> mods;  // without .ftz
  std::vector<pattern_operand> srcs;
  bool commutative = false;
};

struct pattern {
  const idiom_def* def = nullptr;
  std::vector<pattern_node> nodes;   // the root is last
  std::vector<std::string> vars;     // pattern variables
  std::vector<std::uint32_t> inputs; // variable indices of the function's arguments
};

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Compiles the text of an idiom; a malformed table entry is a programming error (logic_error).
inline pattern compile(const idiom_def& d) {
  pattern p;
  p.def = &d;
  std::vector<std::string> node_names;
  auto bad = [&](std::string_view why) {
    throw std::logic_error("idiom '" + std::string(d.name) + "': " + std::string(why));
  };
  auto var_index = [&](std::string_view n) {
    for (std::size_t i = 0; i < p.vars.size(); ++i)
      if (p.vars[i] == n) return static_cast<std::uint32_t>(i);
    p.vars.emplace_back(n);
    return static_cast<std::uint32_t>(p.vars.size() - 1);
  };
  std::string_view text = d.pattern;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (line.empty()) continue;
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) bad("missing '='");
    std::string_view dst = trim(line.substr(0, eq));
    std::string_view rest = trim(line.substr(eq + 1));
    std::size_t sp = rest.find(' ');
    std::string_view opc = rest.substr(0, sp);
    std::string_view args = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
    auto m = match_opcode(opc);
    if (!m) bad("unknown opcode");
    pattern_node n;
    n.op = m->op;
    for (std::size_t i = m->modifiers_at; i < opc.size();) {
      std::size_t j = opc.find('.', i + 1);
      if (j == std::string_view::npos) j = opc.size();
      std::string mod(opc.substr(i, j - i));
      if (mod != ".ftz") n.mods.push_back(mod);
      i = j;
    }
    n.commutative = n.op == opcode::add || n.op == opcode::mul || n.op == opcode::fma ||
                    n.op == opcode::min || n.op == opcode::max;
    while (!args.empty()) {
      std::size_t comma = args.find(',');
      std::string_view a = trim(args.substr(0, comma));
      args = comma == std::string_view::npos ? std::string_view{} : args.substr(comma + 1);
      pattern_operand o;
      if (a.size() == 10 && a[0] == '0' && a[1] == 'f') {
        o.kind = pattern_operand::f32;
        o.value = static_cast<std::int64_t>(std::stoull(std::string(a.substr(2)), nullptr, 16));
      } else if (!a.empty() && (a[0] == '-' || (a[0] >= '0' && a[0] <= '9'))) {
        o.kind = pattern_operand::integer;
        o.value = std::stoll(std::string(a));
      } else {
        auto it = std::find(node_names.begin(), node_names.end(), a);
        if (it != node_names.end()) {
          o.kind = pattern_operand::node;
          o.index = static_cast<std::uint32_t>(it - node_names.begin());
        } else {
          o.kind = pattern_operand::var;
          o.index = var_index(a);
        }
      }
      n.srcs.push_back(o);
    }
    node_names.emplace_back(dst);
    p.nodes.push_back(std::move(n));
  }
  if (p.nodes.empty()) bad("empty pattern");
  std::string_view in = d.inputs;
  while (!(in = trim(in)).empty()) {
    std::size_t s = in.find(' ');
    std::string_view v = in.substr(0, s);
    in = s == std::string_view::npos ? std::string_view{} : in.substr(s);
    auto it = std::find(p.vars.begin(), p.vars.end(), v);
    if (it == p.vars.end()) bad("input is not a pattern variable");
    p.inputs.push_back(static_cast<std::uint32_t>(it - p.vars.begin()));
  }
  return p;
}

inline const std::vector<pattern>& compiled_idioms() {
  static const std::vector<pattern> patterns = [] {
    std::vector<pattern> v;
    for (auto& d : idiom_table()) v.push_back(compile(d));
    return v;
  }();
  return patterns;
}

// Register definitions and occurrences of one function (dead instructions skipped).
struct dataflow {
  static constexpr std::uint32_t none = 0xffffffffu;
  static constexpr std::uint32_t many = 0xfffffffeu;
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> def;          // reg -> instruction, or many
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> occurrences;  // reg -> count

  static void regs_of(const operand& o, auto&& f) {
    if (o.kind == operand_kind::reg) f(o.name);
    else if (o.kind == operand_kind::address && o.base == address_base::reg) f(o.name);
    for (auto& e : o.elems) regs_of(e, f);
  }

  void build(const function& fn, const std::vector<bool>& dead) {
    def.clear();
    occurrences.clear();
    for (std::uint32_t i = 0; i < fn.instructions.size(); ++i) {
      if (dead[i]) continue;
      const instruction& ins = fn.instructions[i];
      if (ins.guarded) ++occurrences[ins.guard];
      for (auto& o : ins.operands) regs_of(o, [&](std::uint32_t r) { ++occurrences[r]; });
      // Operand 0 counts as a definition for every opcode: over-counting definitions only makes
      // matching more conservative.
      if (!ins.operands.empty()) {
        const operand& d = ins.operands[0];
        if (d.kind == operand_kind::reg || d.kind == operand_kind::vector || d.kind == operand_kind::pair)
          regs_of(d, [&](std::uint32_t r) {
            auto [it, fresh] = def.emplace(r, i);
            if (!fresh) it->second = many;
          });
      }
    }
  }
  std::uint32_t unique_def(std::uint32_t reg) const {
    auto it = def.find(reg);
    return it == def.end() ? none : it->second;
  }
};

class matcher {
 public:
  matcher(const module& m, const function& f, const dataflow& df, const std::vector<bool>& dead, const pattern& p)
      : m_(m), f_(f), df_(df), dead_(dead), p_(p) {}

  struct state {
    std::vector<std::uint32_t> node_ins;
    std::vector<std::optional<operand>> vars;
    std::vector<std::uint32_t> const_movs;
  };

  bool match_root(std::uint32_t idx) {
    s_.node_ins.assign(p_.nodes.size(), dataflow::none);
    s_.vars.assign(p_.vars.size(), std::nullopt);
    s_.const_movs.clear();
    return node(static_cast<std::uint32_t>(p_.nodes.size() - 1), idx);
  }
  const state& result() const { return s_; }

 private:
  bool mods_match(const instruction& ins, const pattern_node& n) const {
    std::size_t k = 0;
    for (auto id : ins.mods) {
      std::string_view s = m_.str(id);
      if (s == ".ftz") continue;
      if (k >= n.mods.size() || n.mods[k] != s) return false;
      ++k;
    }
    return k == n.mods.size();
  }

  bool node(std::uint32_t n, std::uint32_t idx) {
    if (idx >= f_.instructions.size() || dead_[idx]) return false;
    if (s_.node_ins[n] != dataflow::none) return s_.node_ins[n] == idx;
    for (auto other : s_.node_ins)
      if (other == idx) return false;  // one instruction plays one node
    const instruction& ins = f_.instructions[idx];
    const pattern_node& pn = p_.nodes[n];
    if (ins.op != pn.op || ins.guarded || ins.operands.size() != pn.srcs.size() + 1) return false;
    if (ins.operands[0].kind != operand_kind::reg || !mods_match(ins, pn)) return false;
    s_.node_ins[n] = idx;
    state saved = s_;
    if (sources(pn, ins, false)) return true;
    s_ = saved;
    if (pn.commutative && pn.srcs.size() >= 2 && sources(pn, ins, true)) return true;
    s_ = saved;
    s_.node_ins[n] = dataflow::none;
    return false;
  }

  bool sources(const pattern_node& pn, const instruction& ins, bool swap) {
    for (std::size_t k = 0; k < pn.srcs.size(); ++k) {
      std::size_t j = swap && k < 2 ? 1 - k : k;
      if (!source(pn.srcs[k], ins.operands[j + 1])) return false;
    }
    return true;
  }

  // A constant: the immediate, or a register whose unique definition moves that immediate.
  bool constant(operand_kind kind, std::int64_t value, const operand& o) {
    if (o.kind == kind && o.value == value && !o.negated) return true;
    if (o.kind != operand_kind::reg || o.negated) return false;
    std::uint32_t d = df_.unique_def(o.name);
    if (d >= f_.instructions.size() || dead_[d]) return false;
    const instruction& mv = f_.instructions[d];
    if (mv.op != opcode::mov || mv.guarded || mv.operands.size() != 2) return false;
    const operand& src = mv.operands[1];
    if (src.kind != kind || src.value != value) return false;
    if (std::find(s_.const_movs.begin(), s_.const_movs.end(), d) == s_.const_movs.end()) s_.const_movs.push_back(d);
    return true;
  }

  bool source(const pattern_operand& po, const operand& o) {
    switch (po.kind) {
      case pattern_operand::var: {
        if (o.kind == operand_kind::address || o.kind == operand_kind::vector || o.kind == operand_kind::pair ||
            o.kind == operand_kind::list || o.kind == operand_kind::sink || o.negated)
          return false;
        auto& slot = s_.vars[po.index];
        if (!slot) {
          slot = o;
          return true;
        }
        return *slot == o;
      }
      case pattern_operand::node:
        if (o.kind != operand_kind::reg || o.negated) return false;
        return node(po.index, df_.unique_def(o.name));
      case pattern_operand::f32: return constant(operand_kind::imm_f32, po.value, o);
      case pattern_operand::integer: return constant(operand_kind::imm_int, po.value, o);
    }
    return false;
  }

  const module& m_;
  const function& f_;
  const dataflow& df_;
  const std::vector<bool>& dead_;
  const pattern& p_;
  state s_;
};

// Removes dead instructions, remapping labels, branch targets and the body order.
inline void compact(function& f, const std::vector<bool>& dead) {
  std::vector<std::uint32_t> new_index(f.instructions.size() + 1);
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < f.instructions.size(); ++i) {
    new_index[i] = n;
    if (!dead[i]) ++n;
  }
  new_index[f.instructions.size()] = n;
  std::vector<instruction> kept;
  kept.reserve(n);
  for (std::size_t i = 0; i < f.instructions.size(); ++i)
    if (!dead[i]) kept.push_back(std::move(f.instructions[i]));
  for (auto& ins : kept)
    if (ins.target != instruction::no_target) ins.target = new_index[ins.target];
  for (auto& [label, at] : f.labels) at = new_index[at];
  std::vector<body_item> body;
  body.reserve(f.body.size());
  for (auto it : f.body) {
    if (it.kind == body_item_kind::instruction) {
      if (dead[it.index]) continue;
      it.index = new_index[it.index];
    }
    body.push_back(it);
  }
  f.instructions = std::move(kept);
  f.body = std::move(body);
}

// The precise logf sequence (nvcc 12/13) does not fit the one-block pattern table: a polynomial
// on the mantissa gives the result X, a fix-up block entered by a branch replaces X with x·∞ + ∞
// when x is not finite, and a final selp picks −∞ when x is 0:
//   P1 = x < 2^-126;  F1 = P1 ? x·2^23 : x;  …polynomial…;  X = fma(E, ln2, Y)
//   P2 = bits(F1) <u 0x7f800000;  @P2 bra L;  X = fma(F1, ∞, ∞);  L: D = (F1 == 0) ? −∞ : X
// Over the reals (x > 0, finite) it is log(x). It is recognized from its anchors (the selp, the
// two definitions of X, the branch, the denormal scaling) and lifted only when the whole backward
// slice from D to x is pure arithmetic used by nothing else.
class logf_recognizer {
 public:
  logf_recognizer(const module& m, const function& f, const std::vector<bool>& dead) : m_(m), f_(f), dead_(dead) {}

  struct match {
    std::vector<std::uint32_t> slice;  // the instructions replaced (without the selp)
    operand x;                         // the argument
  };
  std::optional<match> at(std::uint32_t s) const {
    const instruction& sel = f_.instructions[s];
    if (sel.op != opcode::selp || sel.guarded || sel.operands.size() != 4 || last_type(m_, sel) != ".f32") return {};
    if (!is_f32(sel.operands[1], 0xFF800000u)) return {};  // −∞ when x == 0
    const operand& xr = sel.operands[2];
    const operand& p = sel.operands[3];
    if (xr.kind != operand_kind::reg || p.kind != operand_kind::reg || p.negated) return {};
    const instruction* eq = def_reg(p);
    if (!eq || eq->op != opcode::setp || eq->operands.size() != 3 || !has_modifier(m_, *eq, ".eq") ||
        !is_f32(eq->operands[2], 0))
      return {};
    const operand& f1 = eq->operands[1];
    if (f1.kind != operand_kind::reg) return {};
    // The two definitions of X: the polynomial's last fma, then the fix-up fma(F1, ∞, ∞).
    std::vector<std::uint32_t> defs = definitions(xr.name);
    if (defs.size() != 2) return {};
    const std::uint32_t main = defs[0], fix = defs[1];
    const instruction& fx = f_.instructions[fix];
    if (fx.op != opcode::fma || fx.guarded || fx.operands.size() != 4 || !same_reg(fx.operands[1], f1) ||
        !is_f32(fx.operands[2], 0x7F800000u) || !is_f32(fx.operands[3], 0x7F800000u))
      return {};
    const instruction& mn = f_.instructions[main];
    if (mn.op != opcode::fma || mn.guarded || mn.operands.size() != 4 || !is_f32(mn.operands[2], 0x3F317218u)) return {};
    // The branch over the fix-up block, whose target follows it; the block holds nothing else.
    std::uint32_t b = fix;
    do {
      if (b == 0) return {};
      --b;
    } while (b > main && (dead_[b] || is_const_mov(b)));
    const instruction& br = f_.instructions[b];
    if (br.op != opcode::bra || !br.guarded || br.guard_negated || br.target == instruction::no_target || br.target <= fix ||
        br.target > s)
      return {};
    for (std::uint32_t k = b + 1; k < br.target; ++k)
      if (!dead_[k] && k != fix && !is_const_mov(k)) return {};
    const instruction* lt = def(br.guard);
    if (!lt || lt->op != opcode::setp || lt->operands.size() != 3 || !has_modifier(m_, *lt, ".lt") ||
        lt->operands[2].kind != operand_kind::imm_int || lt->operands[2].value != 2139095040)
      return {};
    const instruction* bits = def_reg(lt->operands[1]);
    if (!bits || bits->op != opcode::mov || bits->operands.size() != 2 || !same_reg(bits->operands[1], f1)) return {};
    // F1 = (x < 2^-126) ? x·2^23 : x
    const instruction* scale = def_reg(f1);
    if (!scale || scale->op != opcode::selp || scale->operands.size() != 4) return {};
    const operand x = scale->operands[2];
    if (x.kind != operand_kind::reg || x.negated) return {};
    const instruction* mul = def_reg(scale->operands[1]);
    if (!mul || mul->op != opcode::mul || mul->operands.size() != 3 || !same_reg(mul->operands[1], x) ||
        !is_f32(mul->operands[2], 0x4B000000u))
      return {};
    const instruction* small = def_reg(scale->operands[3]);
    if (!small || small->op != opcode::setp || small->operands.size() != 3 || !has_modifier(m_, *small, ".lt") ||
        !same_reg(small->operands[1], x) || !is_f32(small->operands[2], 0x00800000u))
      return {};
    // The backward slice from the selp (and the branch) to x.
    boost::unordered_flat_set<std::uint32_t> in{s, b};
    std::vector<std::uint32_t> work{s, b};
    while (!work.empty()) {
      const std::uint32_t k = work.back();
      work.pop_back();
      const instruction& ins = f_.instructions[k];
      bool ok = true;
      auto visit = [&](std::uint32_t reg) {
        if (reg == x.name || !ok) return;
        std::vector<std::uint32_t> ds = definitions(reg);
        if (ds.empty() || (ds.size() > 1 && reg != xr.name)) {
          ok = false;
          return;
        }
        for (auto d : ds)
          if (in.insert(d).second) work.push_back(d);
      };
      if (ins.guarded) visit(ins.guard);
      if (k != b)  // a branch's operand is its label
        for (std::size_t o = 1; o < ins.operands.size(); ++o) dataflow::regs_of(ins.operands[o], visit);
      if (!ok) return {};
    }
    match r;
    r.x = x;
    for (auto k : in) {
      if (k == s) continue;
      if (k == b) {
        r.slice.push_back(k);
        continue;
      }
      const instruction& ins = f_.instructions[k];
      switch (ins.op) {
        case opcode::mov: case opcode::add: case opcode::sub: case opcode::mul: case opcode::fma:
        case opcode::and_: case opcode::cvt: case opcode::selp: case opcode::setp: break;
        default: return {};
      }
      if (ins.operands.empty() || ins.operands[0].kind != operand_kind::reg) return {};
      if (k != fix && k != main && ins.guarded) return {};
      // Every value of the slice is used only inside it; a shared constant move stays in place.
      if (ins.operands[0].name != xr.name && used_outside(ins.operands[0].name, in)) {
        if (is_const_mov(k)) continue;
        return {};
      }
      r.slice.push_back(k);
    }
    std::sort(r.slice.begin(), r.slice.end());
    return r;
  }

 private:
  static bool same_reg(const operand& a, const operand& b) {
    return a.kind == operand_kind::reg && b.kind == operand_kind::reg && a.name == b.name && !a.negated && !b.negated;
  }
  // The live instructions whose destination (operand 0) is `reg`.
  std::vector<std::uint32_t> definitions(std::uint32_t reg) const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k) {
      if (dead_[k]) continue;
      const instruction& ins = f_.instructions[k];
      if (ins.operands.empty() || ins.op == opcode::st || ins.op == opcode::bra) continue;
      const operand& d = ins.operands[0];
      if (d.kind != operand_kind::reg && d.kind != operand_kind::vector && d.kind != operand_kind::pair) continue;
      bool defines = false;
      dataflow::regs_of(d, [&](std::uint32_t r) { defines = defines || r == reg; });
      if (defines) out.push_back(k);
    }
    return out;
  }
  const instruction* def(std::uint32_t reg) const {
    auto ds = definitions(reg);
    return ds.size() == 1 && !f_.instructions[ds[0]].guarded ? &f_.instructions[ds[0]] : nullptr;
  }
  const instruction* def_reg(const operand& o) const {
    return o.kind == operand_kind::reg && !o.negated ? def(o.name) : nullptr;
  }
  bool is_const_mov(std::uint32_t k) const {
    const instruction& ins = f_.instructions[k];
    return !dead_[k] && ins.op == opcode::mov && !ins.guarded && ins.operands.size() == 2 &&
           (ins.operands[1].kind == operand_kind::imm_f32 || ins.operands[1].kind == operand_kind::imm_int);
  }
  // An f32 constant: the immediate, or a register whose only definition moves it.
  bool is_f32(const operand& o, std::uint32_t bits) const {
    if (o.kind == operand_kind::imm_f32) return static_cast<std::uint32_t>(o.value) == bits;
    const instruction* mv = def_reg(o);
    return mv && mv->op == opcode::mov && mv->operands.size() == 2 && mv->operands[1].kind == operand_kind::imm_f32 &&
           static_cast<std::uint32_t>(mv->operands[1].value) == bits;
  }
  bool used_outside(std::uint32_t reg, const boost::unordered_flat_set<std::uint32_t>& in) const {
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k) {
      if (dead_[k] || in.contains(k)) continue;
      const instruction& ins = f_.instructions[k];
      if (ins.guarded && ins.guard == reg) return true;
      const bool writes_first = ins.op != opcode::st && !ins.operands.empty() &&
                                (ins.operands[0].kind == operand_kind::reg || ins.operands[0].kind == operand_kind::vector ||
                                 ins.operands[0].kind == operand_kind::pair);
      bool used = false;
      for (std::size_t o = writes_first ? 1 : 0; o < ins.operands.size(); ++o)
        dataflow::regs_of(ins.operands[o], [&](std::uint32_t r) { used = used || r == reg; });
      if (used) return true;
    }
    return false;
  }

  const module& m_;
  const function& f_;
  const std::vector<bool>& dead_;
};

}  // namespace detail

// Lifts every idiom of the table in every function of `m`, in place.
GPUEQ_ENTRY lift_report lift(module& m);

}  // namespace gpueq::ptx

// The body of lift: compiled here (header-only) or in gpueq::compiled (support/entry.hpp).
#if GPUEQ_ENTRY_BODIES
#include <gpueq/ptx/lift_entries.hpp>
#endif
