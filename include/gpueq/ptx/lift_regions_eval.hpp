// The structural evaluation behind ptx/lift_regions.hpp (see its header comment): the
// hash-consed value graph of what a region computes (value_graph), the evaluation of a region of
// a kernel along every path through it (region_evaluator, with the calls of matched pow helpers
// as nodes of their arguments), the tail of pure instructions after a join (tail_end), and the
// meaning of a helper `.func` that nvcc calls (evaluate_helper). lift_regions.hpp includes this
// header and compares these meanings with the templates'.
#pragma once

#include <gpueq/ptx/inline.hpp>
#include <gpueq/ptx/ir.hpp>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpueq::ptx {
namespace detail {

// A hash-consed graph of the values a region computes.
class value_graph {
 public:
  enum class vk : std::uint8_t {
    imm,     // an immediate: op is its kind ("i", "f", "d"), value its bits
    opaque,  // a value the graph does not look into: value is an instruction index (its result),
             // or a live-in register (op "in", value the register); never equal to another
    op,      // op (the instruction's spelling: opcode and modifiers) applied to kids
    part,    // word `value` of kids[0] (mov.b64 {lo, hi}, x), or the negation "!" of a predicate
  };
  struct vnode {
    vk k;
    std::string op;
    std::int64_t value = 0;
    std::vector<std::uint32_t> kids;
  };
  std::uint32_t intern(vk k, std::string op, std::int64_t value, std::vector<std::uint32_t> kids) {
    std::string key;
    key.reserve(op.size() + 16 + 6 * kids.size());
    key += static_cast<char>('0' + static_cast<int>(k));
    key += op;
    key += '|';
    key += std::to_string(value);
    for (auto c : kids) {
      key += ',';
      key += std::to_string(c);
    }
    auto [it, fresh] = index_.try_emplace(std::move(key), static_cast<std::uint32_t>(nodes_.size()));
    if (fresh) nodes_.push_back(vnode{k, std::move(op), value, std::move(kids)});
    return it->second;
  }
  const vnode& at(std::uint32_t n) const { return nodes_[n]; }

 private:
  std::vector<vnode> nodes_;
  boost::unordered_flat_map<std::string, std::uint32_t> index_;
};

// One path through a region: its branch decisions (predicate node, value it had) and every
// register it wrote, with the value at the region's end.
struct region_path {
  std::vector<std::pair<std::uint32_t, bool>> conditions;
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> regs;
};

// The registers an operand names (its own, an address's base, a vector's elements).
template <class F>
void regs_in(const operand& o, F&& f) {
  if (o.kind == operand_kind::reg) f(o.name);
  else if (o.kind == operand_kind::address && o.base == address_base::reg) f(o.name);
  for (auto& e : o.elems) regs_in(e, f);
}

// Opcodes without side effects whose result the value graph can name.
inline bool pure_opcode(opcode op) {
  switch (op) {
    case opcode::mov: case opcode::add: case opcode::sub: case opcode::mul: case opcode::mad: case opcode::fma:
    case opcode::neg: case opcode::abs: case opcode::min: case opcode::max: case opcode::and_: case opcode::or_:
    case opcode::xor_: case opcode::not_: case opcode::shl: case opcode::shr: case opcode::setp: case opcode::selp:
    case opcode::cvt: case opcode::rcp: case opcode::sqrt: case opcode::div: case opcode::copysign:
      return true;
    default: return false;
  }
}

// A helper nvcc calls for pow whose body matched a template's (`pow_helpers`): of |x| alone with
// the exponent c a constant of its body (params 1), or of |x| and the exponent (params 2: nvcc's
// generic helper, when a module calls pow with several exponents or a symbolic one).
struct pow_helper {
  std::uint8_t params = 1;
  std::uint64_t c = 0;  // params 1: the bits of c
};
using pow_helper_map = boost::unordered_flat_map<std::uint32_t, pow_helper>;

// Structural evaluation of instructions [s, e) of f along every path (forward branches only, all
// of them landing in (i, e]). Instructions before `b0` may be anything: those that are not pure
// give their results opaque values. From b0 on, only pure unguarded instructions and branches
// are allowed. `at_b0` receives the registers written before b0 (the state where b0 stands).
class region_evaluator {
 public:
  region_evaluator(const module& m, const function& f, const std::vector<bool>& dead, value_graph& g)
      : m_(m), f_(f), dead_(dead), g_(g) {}

  // [e, te) is a tail: straight-line pure instructions after the join, evaluated on every path.
  bool run(std::uint32_t s, std::uint32_t b0, std::uint32_t e, std::vector<region_path>& out,
           boost::unordered_flat_map<std::uint32_t, std::uint32_t>& at_b0, std::uint32_t te = 0) {
    s_ = s, b0_ = b0, e_ = e;
    out.clear();
    words_.clear();
    calls.clear();
    slots_.clear();
    region_path p;
    for (std::uint32_t i = s; i < b0; ++i)
      if (!dead_[i] && !step(i, p, true)) return false;
    at_b0 = p.regs;
    if (!walk(b0, std::move(p), out)) return false;
    for (auto& path : out)
      for (std::uint32_t i = e; i < te; ++i)
        if (!dead_[i] && !step(i, path, false)) return false;
    return true;
  }

  // The calls the graph may look into: the pow helpers whose bodies were compared with a
  // template's (`pow_helpers`). A call of one, with its `st.param`s of the arguments and
  // `ld.param` of the result, before the first branch is the node `call:pow` (value c) of |x|
  // for a helper of one parameter, `call:pow.xy` of |x| and the exponent for one of two; any
  // other call stays opaque.
  void set_calls(const pow_helper_map* callees) { callees_ = callees; }

  // The instructions of each call the graph looked into (for the rewrite, which removes them).
  struct call_site {
    std::vector<std::uint32_t> stores, loads;
    std::uint32_t call = 0;
  };
  std::vector<call_site> calls;

  // Registers defined once in the whole function, by an unguarded move of an immediate: a
  // constant nvcc materialized once and shared between sequences (as lift.hpp's matcher reads them).
  void set_constants(const boost::unordered_flat_map<std::uint32_t, operand>* constants) { constants_ = constants; }

  std::uint32_t read(const region_path& p, std::uint32_t reg) {
    auto it = p.regs.find(reg);
    if (it != p.regs.end()) return it->second;
    if (constants_)
      if (auto c = constants_->find(reg); c != constants_->end())
        if (auto n = operand_node(p, c->second)) return *n;
    if (auto w = word_of_live_in(reg)) return *w;
    return g_.intern(value_graph::vk::opaque, "in", reg, {});
  }

 private:
  static constexpr std::size_t max_paths = 256;

  bool walk(std::uint32_t i, region_path p, std::vector<region_path>& out) {
    for (;; ++i) {
      if (i == e_) {
        if (out.size() >= max_paths) return false;
        out.push_back(std::move(p));
        return true;
      }
      if (i > e_ || dead_[i]) {
        if (i > e_) return false;
        continue;
      }
      const instruction& ins = f_.instructions[i];
      if (ins.op != opcode::bra) {
        if (!step(i, p, false)) return false;
        continue;
      }
      const std::uint32_t t = ins.target;
      if (t == instruction::no_target || t <= i || t > e_) return false;
      if (!ins.guarded) {
        i = t - 1;
        continue;
      }
      const std::uint32_t c = read(p, ins.guard);
      region_path taken = p;
      taken.conditions.emplace_back(c, !ins.guard_negated);
      if (!walk(t, std::move(taken), out)) return false;
      p.conditions.emplace_back(c, ins.guard_negated);
    }
  }

  // A register live into the region that holds a word of another live-in register: defined once
  // in the function, before s, by `mov.b64 {lo, hi}, v` (nvcc extracts x's high word once and
  // shares it between the sequences that read it), where every way into (d, s] passes through
  // the definition d and v is not written between d and s. It is then that word of v as v is at s.
  std::optional<std::uint32_t> word_of_live_in(std::uint32_t reg) {
    if (auto c = words_.find(reg); c != words_.end()) return c->second;
    auto& out = words_[reg];
    const auto& ins = f_.instructions;
    const auto n = static_cast<std::uint32_t>(ins.size());
    std::optional<std::uint32_t> d;
    for (std::uint32_t k = 0; k < n; ++k) {
      if (dead_[k] || ins[k].op == opcode::st || ins[k].op == opcode::bra || ins[k].operands.empty()) continue;
      bool writes = false;
      regs_in(ins[k].operands[0], [&](std::uint32_t w) { writes = writes || w == reg; });
      if (!writes) continue;
      if (d) return std::nullopt;  // written twice
      d = k;
    }
    if (!d || *d >= s_) return std::nullopt;
    const instruction& def = ins[*d];
    if (def.op != opcode::mov || def.guarded || def.operands.size() != 2 || def.operands[0].kind != operand_kind::vector ||
        def.operands[1].kind != operand_kind::reg)
      return std::nullopt;
    const std::uint32_t v = def.operands[1].name;
    for (std::uint32_t k = 0; k < n; ++k) {
      if (dead_[k]) continue;
      if (ins[k].op == opcode::brx_idx) return std::nullopt;  // a branch through a table: may land anywhere
      if (ins[k].op == opcode::bra) {
        const bool inside = k >= *d && k < s_;
        if (!inside && ins[k].target > *d && ins[k].target <= s_) return std::nullopt;
        if (ins[k].target == instruction::no_target) return std::nullopt;
        continue;
      }
      if (k > *d && k < s_ && ins[k].op != opcode::st && !ins[k].operands.empty()) {
        bool writes_v = false;
        regs_in(ins[k].operands[0], [&](std::uint32_t w) { writes_v = writes_v || w == v; });
        if (writes_v) return std::nullopt;
      }
    }
    const std::uint32_t vn = g_.intern(value_graph::vk::opaque, "in", v, {});
    for (std::size_t k = 0; k < def.operands[0].elems.size(); ++k)
      if (def.operands[0].elems[k].kind == operand_kind::reg && def.operands[0].elems[k].name == reg)
        out = g_.intern(value_graph::vk::part, spelling(def), static_cast<std::int64_t>(k), {vn});
    return out;
  }

  std::optional<std::uint32_t> operand_node(const region_path& p, const operand& o) {
    switch (o.kind) {
      case operand_kind::reg: {
        std::uint32_t n = read(p, o.name);
        return o.negated ? g_.intern(value_graph::vk::part, "!", 0, {n}) : n;
      }
      case operand_kind::imm_int: return g_.intern(value_graph::vk::imm, "i", o.value, {});
      case operand_kind::imm_f32: return g_.intern(value_graph::vk::imm, "f", o.value, {});
      case operand_kind::imm_f64: return g_.intern(value_graph::vk::imm, "d", o.value, {});
      default: return std::nullopt;
    }
  }

  // A call's `.param` traffic before b0: `st.param [param0+0], v` and `ld.param r, [retval0+0]`
  // of a call of a known helper. False when the instruction is not such a piece.
  bool call_piece(std::uint32_t i, region_path& p) {
    const instruction& ins = f_.instructions[i];
    if (!callees_ || ins.guarded) return false;
    auto param_slot = [&](const operand& a) -> std::optional<std::uint32_t> {
      if (a.kind != operand_kind::address || a.base != address_base::symbol || a.value != 0) return std::nullopt;
      return a.name;
    };
    const std::string sp = spelling(ins);
    if (ins.op == opcode::st && sp.starts_with("st.param") && ins.operands.size() == 2) {
      auto slot = param_slot(ins.operands[0]);
      auto v = operand_node(p, ins.operands[1]);
      if (!slot || !v) return false;
      slots_[*slot] = {*v, i};
      return true;
    }
    if (ins.op == opcode::call) {
      call_parts c = parts_of_call(ins);
      if (!c.rets || !c.args || !c.callee || c.callee->kind != operand_kind::symbol || c.rets->elems.size() != 1 ||
          c.rets->elems[0].kind != operand_kind::symbol)
        return false;
      auto known = callees_->find(c.callee->name);
      if (known == callees_->end() || c.args->elems.size() != known->second.params) return false;
      call_site site;
      std::vector<std::uint32_t> kids;
      for (const operand& a : c.args->elems) {
        if (a.kind != operand_kind::symbol) return false;
        auto arg = slots_.find(a.name);
        if (arg == slots_.end()) return false;
        kids.push_back(arg->second.first);
        site.stores.push_back(arg->second.second);
      }
      for (const operand& a : c.args->elems) slots_.erase(a.name);
      const bool one = known->second.params == 1;
      const std::uint32_t n = g_.intern(value_graph::vk::op, one ? "call:pow" : "call:pow.xy",
                                        one ? static_cast<std::int64_t>(known->second.c) : 0, std::move(kids));
      site.call = i;
      calls.push_back(site);
      results_[c.rets->elems[0].name] = {n, static_cast<std::uint32_t>(calls.size() - 1)};
      return true;
    }
    if (ins.op == opcode::ld && sp.starts_with("ld.param") && ins.operands.size() == 2 &&
        ins.operands[0].kind == operand_kind::reg) {
      auto slot = param_slot(ins.operands[1]);
      if (!slot) return false;
      auto r = results_.find(*slot);
      if (r == results_.end()) return false;
      p.regs[ins.operands[0].name] = g_.intern(value_graph::vk::op, sp, 0, {r->second.first});
      calls[r->second.second].loads.push_back(i);
      return true;
    }
    return false;
  }

  // One non-branch instruction. Before b0 (`entry`) anything is allowed: what the graph cannot
  // name gets an opaque value per instruction.
  bool step(std::uint32_t i, region_path& p, bool entry) {
    const instruction& ins = f_.instructions[i];
    if (ins.op == opcode::bra || ins.op == opcode::ret || ins.op == opcode::exit) return false;
    if (ins.operands.empty()) return entry;
    if (entry && call_piece(i, p)) return true;
    const operand& d = ins.operands[0];
    auto opaque = [&]() {
      if (!entry) return false;
      if (ins.op == opcode::st) return true;  // no register result
      std::int64_t k = 0;
      regs_in(d, [&](std::uint32_t r) {
        p.regs[r] = g_.intern(value_graph::vk::opaque, "ins", static_cast<std::int64_t>(i) * 8 + k++, {});
      });
      return true;
    };
    if (!pure_opcode(ins.op) || ins.guarded) return opaque();
    if (ins.op == opcode::mov && d.kind == operand_kind::vector) {  // mov.b64 {lo, hi}, x
      if (ins.operands.size() != 2) return opaque();
      auto x = operand_node(p, ins.operands[1]);
      if (!x) return opaque();
      std::string op = spelling(ins);
      for (std::size_t k = 0; k < d.elems.size(); ++k)
        if (d.elems[k].kind == operand_kind::reg)
          p.regs[d.elems[k].name] = g_.intern(value_graph::vk::part, op, static_cast<std::int64_t>(k), {*x});
      return true;
    }
    if (d.kind != operand_kind::reg) return opaque();
    if (ins.op == opcode::mov && ins.operands.size() == 2) {
      const operand& src = ins.operands[1];
      if (src.kind == operand_kind::vector) {  // mov.b64 x, {lo, hi}
        std::vector<std::uint32_t> kids;
        for (auto& el : src.elems) {
          auto n = operand_node(p, el);
          if (!n) return opaque();
          kids.push_back(*n);
        }
        p.regs[d.name] = g_.intern(value_graph::vk::op, spelling(ins), 0, std::move(kids));
        return true;
      }
      auto n = operand_node(p, src);  // a copy or a constant: the same node (mov copies bits)
      if (!n) return opaque();
      p.regs[d.name] = *n;
      return true;
    }
    std::vector<std::uint32_t> kids;
    for (std::size_t k = 1; k < ins.operands.size(); ++k) {
      auto n = operand_node(p, ins.operands[k]);
      if (!n) return opaque();
      kids.push_back(*n);
    }
    p.regs[d.name] = g_.intern(value_graph::vk::op, spelling(ins), 0, std::move(kids));
    return true;
  }

  std::string spelling(const instruction& ins) const {
    std::string s(name(ins.op));
    for (auto id : ins.mods) s += m_.str(id);
    return s;
  }

  const module& m_;
  const function& f_;
  const std::vector<bool>& dead_;
  value_graph& g_;
  const boost::unordered_flat_map<std::uint32_t, operand>* constants_ = nullptr;
  const pow_helper_map* callees_ = nullptr;
  boost::unordered_flat_map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> slots_;    // param -> (node, st)
  boost::unordered_flat_map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> results_;  // retval -> (node, call)
  boost::unordered_flat_map<std::uint32_t, std::optional<std::uint32_t>> words_;  // word_of_live_in
  std::uint32_t s_ = 0, b0_ = 0, e_ = 0;
};

// The end of the tail after a join at e: the straight-line pure, unguarded instructions from e on
// (no branch, no other label), at most 16 of them.
inline std::uint32_t tail_end(const function& f, const std::vector<bool>& dead, std::uint32_t e) {
  boost::unordered_flat_set<std::uint32_t> targets;
  for (std::uint32_t k = 0; k < f.instructions.size(); ++k)
    if (!dead[k] && f.instructions[k].op == opcode::bra) targets.insert(f.instructions[k].target);
  std::uint32_t i = e, live = 0;
  for (; i < f.instructions.size() && live < 16; ++i) {
    if (dead[i]) continue;
    const instruction& in = f.instructions[i];
    if ((i > e && targets.contains(i)) || !pure_opcode(in.op) || in.guarded) break;
    ++live;
  }
  return i;
}

// The meaning of a helper function `(.param .b64 r) f(.param .b64 a[, .param .b64 b])` that nvcc
// calls: its body evaluated on every path, from the `ld.param`s of a (x) and b (y), its first
// instructions, to the `st.param` of r (the result), which must be followed by `ret`. Every
// instruction in between is pure and unguarded, or a forward branch: the helper has no effect
// besides its result.
struct function_meaning {
  value_graph g;
  std::vector<region_path> paths;
  std::vector<std::uint32_t> results;
  std::uint32_t x = 0;
  std::optional<std::uint32_t> y;
};

inline std::optional<function_meaning> evaluate_helper(const module& m, const function& f) {
  const auto np = static_cast<std::uint32_t>(f.params.size());
  if (f.entry || !f.has_body || np < 1 || np > 2 || f.returns.size() != 1) return std::nullopt;
  const auto& ins = f.instructions;
  const auto n = static_cast<std::uint32_t>(ins.size());
  auto param_of = [&](const operand& a, std::uint32_t name) {
    return a.kind == operand_kind::address && a.base == address_base::symbol && a.name == name && a.value == 0;
  };
  if (n < np + 2) return std::nullopt;
  for (std::uint32_t k = 0; k < np; ++k)
    if (ins[k].op != opcode::ld || ins[k].guarded || ins[k].operands.size() != 2 ||
        ins[k].operands[0].kind != operand_kind::reg || !param_of(ins[k].operands[1], f.params[k].name) ||
        m.str(ins[k].mods.empty() ? 0 : ins[k].mods[0]) != ".param")
      return std::nullopt;
  const std::uint32_t st = n - 2;
  if (ins[n - 1].op != opcode::ret || ins[n - 1].guarded || ins[st].op != opcode::st || ins[st].guarded ||
      ins[st].operands.size() != 2 || !param_of(ins[st].operands[0], f.returns[0].name) ||
      ins[st].operands[1].kind != operand_kind::reg || m.str(ins[st].mods.empty() ? 0 : ins[st].mods[0]) != ".param")
    return std::nullopt;
  std::uint32_t b0 = 0;
  for (std::uint32_t k = np; k < st; ++k) {
    if (ins[k].op == opcode::bra) {
      if (!b0) b0 = k;
      continue;
    }
    if (!pure_opcode(ins[k].op) || ins[k].guarded) return std::nullopt;
  }
  if (!b0) return std::nullopt;
  function_meaning fm;
  std::vector<bool> dead(n, false);
  region_evaluator ev(m, f, dead, fm.g);
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> at_b0;
  if (!ev.run(0, b0, st, fm.paths, at_b0)) return std::nullopt;
  for (auto& p : fm.paths) fm.results.push_back(ev.read(p, ins[st].operands[1].name));
  fm.x = fm.g.intern(value_graph::vk::opaque, "ins", 0, {});
  if (np == 2) fm.y = fm.g.intern(value_graph::vk::opaque, "ins", 8, {});
  return fm;
}

}  // namespace detail
}  // namespace gpueq::ptx
