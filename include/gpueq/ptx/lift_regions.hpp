// Lifting of multi-block math sequences: the double-precision `log` and `exp` that nvcc inlines
// from libdevice. Unlike the float idioms of lift.hpp (one basic block, a DAG of a dozen
// instructions), these take the exponent and mantissa of x apart with bit operations and branch
// on them (subnormal scaling, the mantissa's range, infinities, zero, overflow), so they cannot
// be matched instruction by instruction along one block, and nvcc lays them out a little
// differently in each kernel: register copies where x stays live, the order of the two word
// extractions, one extraction of x's high word shared with a neighbouring `exp` (CSE).
//
// Recognition compares *meanings*, not text. A region of the kernel (from the start of the basic
// block of a candidate first branch to the join of its last branch) is evaluated structurally
// along every path through it: each register holds a node of a hash-consed value graph (an
// instruction's full spelling applied to its operands' nodes; copies are the same node, `mov.b64
// {lo, hi}, x` makes two projections of x), and each path records its branch conditions. The same
// is done once for a template: the PTX nvcc 13 emits for `*y = log(x)` (sm_80) in a kernel of its
// own, kept below. The region is lifted when, path by path in the same order, its branch
// conditions and the value of one register at the join are the template's, with the template's
// x standing for one value of the region. Equal graphs mean the same function of x, bit for bit
// (every operation, modifier and constant is the same), so the rewrite is sound whatever the
// libdevice code does; anything else (another nvcc's sequence, a guarded instruction, a store or
// a call inside, an extra branch) is not lifted, and the instructions run as they are.
//
// The rewrite: the region's branchy part becomes one `gpueq.lifted.<fn>.f64 r, x` at the first
// branch; instructions before it that only fed the sequence go, the others (address arithmetic,
// the load of x, a word of x another sequence reads) stay. The region is lifted only when no
// branch from outside enters it, no register it defines other than r is read outside it, and x
// is in a register where the first branch stands. Afterwards the instructions that computed
// values only the removed code read (such as x's high word once both neighbours are lifted) go.
//
// pow(x, c) for a constant c (nvcc 13, sm_80): nvcc does not inline libdevice's pow; it calls a
// helper, `__internal_accurate_pow(|x|)` (a `.func` of the module whose body has c as a
// constant), and handles the special cases around the call. Both halves are compared with the
// template `libdevice_pow_f64` (nvcc's output for pow(x, 2.5)), never trusted by name: the
// helper's body on every path (`evaluate_helper`, `pow_helpers`: once per module, before anything
// is lifted), and the caller's region, in which the call of a helper that matched is the node
// `call:pow` of its argument (the `st.param`/`call`/`ld.param` of the call site) and which goes on
// past its join through the pure instructions that follow (the template's `x == 1 ? 1 : ...`, its
// tail). The template's 2.5 stands for one f64 immediate c, the same in the helper and around the
// call, and the odd-integer test's constant for K(c) (`odd_test_constant`); c must be finite and
// not 0. A module that calls pow with several exponents gets nvcc's generic helper of |x| and the
// exponent instead: the second template (`libdevice_pow_xy_f64`) has that helper, compared with
// both parameters as inputs, and c is then the immediate the call passes. The exponent must be
// an immediate: pow with a symbolic exponent is not lifted and runs as it is, stopping where it
// takes a symbolic double apart.
// A register live into a region that holds a word of another (written once, by
// `mov.b64 {lo, hi}, v` before the region, on every way into it) is that word of v, as x's high
// word that log and exp share with pow is. The region becomes `gpueq.lifted.pow.f64 r, x, c`
// where r was written; the call goes with it (the helper stays in the module, uncalled). Over the
// reals it is e^(c·log x) (real_op::pow): x > 0, as for log.
//
// The value graph and the structural evaluation of regions and of helpers (region_evaluator,
// evaluate_helper) are in ptx/lift_regions_eval.hpp; this header holds the templates, the
// matching of a region's graph with a template's, and the rewrite (region_lifter).
#pragma once

#include <gpueq/ptx/libdevice_templates.hpp>
#include <gpueq/ptx/ir.hpp>
#include <gpueq/ptx/lift_regions_eval.hpp>
#include <gpueq/ptx/parser.hpp>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::ptx {
namespace detail {

// A template: the meaning of nvcc's sequence for fn, evaluated once from its PTX.
struct region_template {
  std::string_view name;
  real_function fn;
  std::uint64_t anchor = 0;  // an f64 constant the sequence holds (a cheap first test)
  value_graph g;
  std::vector<region_path> paths;
  std::vector<std::uint32_t> results;  // the result's node on each path
  std::uint32_t x = 0;                 // the node of the argument
  std::size_t branches = 0;
  // pow(x, c): the sequence calls a helper (its meaning kept here) and ends in a tail after its
  // join; c and the odd-integer test's constant K(c) are nodes that stand for the candidate's
  // immediates (bound once, c the same in the helper's body and around the call).
  std::optional<function_meaning> helper;
  std::optional<std::uint32_t> exponent, odd_test;  // template nodes (of g) of c and K(c)
  std::optional<std::uint32_t> helper_exponent;     // the node of c in helper->g
  bool tail = false;
};

// The templates (nvcc 13's own output for log, exp and pow): ptx/libdevice_templates.hpp.


inline constexpr std::uint64_t pow_template_exponent = 0x4004000000000000ull;  // 2.5

// The constant nvcc folds pow's odd-integer test of a constant c into: libdevice tests whether c
// is an odd integer by shifting c's bits left by (its exponent field − 1012) and comparing with
// 2⁶³; with c known, nvcc turns this into a comparison of the exponent field (taken from c's
// high word at run time) with the one value for which the lowest set bit of c lands on bit 63:
// ((1075 − ctz(bits c)) << 20). Checked against nvcc 13's output for c = 2.5, 3.5, −2.5, 7, 1.5,
// 3, 0.3 and 1e300. It matters only for x < 0 (the sign of the result), outside pow's real domain.
inline std::int64_t odd_test_constant(std::uint64_t c) {
  return static_cast<std::int64_t>(1075 - std::countr_zero(c)) << 20;
}

// The exponents the lift accepts: finite and not zero (nvcc folds away the tests of c = 0, NaN and
// ±∞, so the template's shape says nothing about those).
inline bool pow_exponent_ok(std::uint64_t c) {
  double v;
  std::memcpy(&v, &c, sizeof v);
  return std::isfinite(v) && v != 0;
}

// Builds a template from its PTX: the region runs from the kernel's start to the join of its
// branches; the result is the register the kernel stores, x the loaded f64 parameter.
// Where a template kernel's parts are: its first branch (b0), the join of its last branch (e),
// the load of x (x_at) and the store of the result (st); counts the template's branches.
struct template_layout {
  std::uint32_t b0 = 0, e = 0, x_at = 0, st = 0;
};
inline template_layout layout_of_template(const function& f, region_template& t) {
  template_layout l;
  while (f.instructions[l.b0].op != opcode::bra) ++l.b0;
  while (f.instructions[l.x_at].op != opcode::ld) ++l.x_at;
  l.st = l.b0;
  while (f.instructions[l.st].op != opcode::st) ++l.st;
  for (std::uint32_t i = l.b0; i < l.st; ++i)
    if (f.instructions[i].op == opcode::bra) {
      ++t.branches;
      l.e = std::max(l.e, f.instructions[i].target);  // the join
    }
  return l;
}

inline region_template make_region_template(std::string_view name, real_function fn, std::uint64_t anchor,
                                            std::string_view text) {
  region_template t;
  t.name = name;
  t.fn = fn;
  t.anchor = anchor;
  module m = parse(text, std::string(name) + " template");
  const function& f = m.functions.at(0);
  std::vector<bool> dead(f.instructions.size(), false);
  const auto [b0, e, x_at, st] = layout_of_template(f, t);
  region_evaluator ev(m, f, dead, t.g);
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> at_b0;
  if (!ev.run(0, b0, e, t.paths, at_b0)) throw std::logic_error("region template " + std::string(name) + " does not evaluate");
  const std::uint32_t r = f.instructions[st].operands[1].name;
  for (auto& p : t.paths) t.results.push_back(ev.read(p, r));
  t.x = t.g.intern(value_graph::vk::opaque, "ins", static_cast<std::int64_t>(x_at) * 8, {});
  return t;
}

// The f64 constants the templates anchor on (region_template::anchor): log's and exp's, and the
// NaN of pow's x < 0 with c not an integer.
inline constexpr std::uint64_t log_anchor = 0x3ED0EE258B7A8B04ull, exp_anchor = 0x3E5ADE1569CE2BDFull,
                               pow_anchor = 0xFFF8000000000000ull;
inline bool is_template_anchor(std::uint64_t bits) {
  return bits == log_anchor || bits == exp_anchor || bits == pow_anchor;
}
// Whether a function of m holds an anchor as an immediate: without one no template can match, and
// lift does not build the templates (parsing and evaluating libdevice's text cost every check of
// a small pair a third of its instructions, about 3 ms).
inline bool holds_template_anchor(const module& m) {
  for (const function& f : m.functions)
    for (const instruction& ins : f.instructions)
      for (const operand& o : ins.operands)
        if (o.kind == operand_kind::imm_f64 && is_template_anchor(static_cast<std::uint64_t>(o.value))) return true;
  return false;
}

// The pow template: the kernel's region from the first branch after the call to the join, and
// the tail after it up to the store; the helper evaluated on its own.
inline region_template make_pow_template(std::string_view text) {
  region_template t;
  t.name = "pow (f64)";
  t.fn = real_function::pow;
  t.anchor = pow_anchor;
  t.tail = true;
  module m = parse(text, "pow (f64) template");
  const function* kernel = nullptr;
  const function* helper = nullptr;
  for (const function& f : m.functions) {
    if (f.entry) kernel = &f;
    else if (f.has_body) helper = &f;
  }
  if (!kernel || !helper) throw std::logic_error("region template pow (f64) lacks its kernel or helper");
  t.helper = evaluate_helper(m, *helper);
  if (!t.helper) throw std::logic_error("region template pow (f64): the helper does not evaluate");
  if (!t.helper->y)
    t.helper_exponent = t.helper->g.intern(value_graph::vk::imm, "d", static_cast<std::int64_t>(pow_template_exponent), {});
  const function& f = *kernel;
  std::vector<bool> dead(f.instructions.size(), false);
  const auto [b0, e, x_at, st] = layout_of_template(f, t);
  const std::uint32_t te = tail_end(f, dead, e);
  pow_helper_map callees{{helper->name, pow_helper{static_cast<std::uint8_t>(t.helper->y ? 2 : 1), pow_template_exponent}}};
  region_evaluator ev(m, f, dead, t.g);
  ev.set_calls(&callees);
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> at_b0;
  if (!ev.run(0, b0, e, t.paths, at_b0, te) || ev.calls.size() != 1)
    throw std::logic_error("region template pow (f64) does not evaluate");
  const std::uint32_t r = f.instructions[st].operands[1].name;
  for (auto& p : t.paths) t.results.push_back(ev.read(p, r));
  t.x = t.g.intern(value_graph::vk::opaque, "ins", static_cast<std::int64_t>(x_at) * 8, {});
  t.exponent = t.g.intern(value_graph::vk::imm, "d", static_cast<std::int64_t>(pow_template_exponent), {});
  t.odd_test = t.g.intern(value_graph::vk::imm, "i", odd_test_constant(pow_template_exponent), {});
  return t;
}

inline const std::vector<region_template>& region_templates() {
  static const std::vector<region_template> ts = [] {
    std::vector<region_template> v;
    v.push_back(make_region_template("log (f64)", real_function::log, log_anchor, libdevice_log_f64));
    v.push_back(make_region_template("exp (f64)", real_function::exp, exp_anchor, libdevice_exp_f64));
    v.push_back(make_pow_template(libdevice_pow_f64));
    v.push_back(make_pow_template(libdevice_pow_xy_f64));
    return v;
  }();
  return ts;
}

// Template graph against the region's graph, with the template's x bound to one region node, and
// for pow the template's c and K(c) bound to one immediate each (c also by the `call:pow` nodes,
// whose value is the exponent of the helper called).
class graph_matcher {
 public:
  graph_matcher(const value_graph& tg, std::uint32_t tx, const value_graph& c) : tg_(tg), tx_(tx), c_(c) {}
  graph_matcher(const region_template& t, const value_graph& c) : graph_matcher(t.g, t.x, c) {
    exponent_node_ = t.exponent;
    odd_node_ = t.odd_test;
  }
  void exponent_node(std::optional<std::uint32_t> n) { exponent_node_ = n; }
  void second_input(std::optional<std::uint32_t> ty) { ty_ = ty; }  // a helper's y
  bool match(std::uint32_t tn, std::uint32_t cn) {
    if (tn == tx_) {
      if (!x_) x_ = cn;
      return *x_ == cn;
    }
    if (ty_ && tn == *ty_) {
      if (!y_) y_ = cn;
      return *y_ == cn;
    }
    const auto &a = tg_.at(tn), &b = c_.at(cn);
    if (exponent_node_ && tn == *exponent_node_)
      return b.k == value_graph::vk::imm && b.op == "d" && bind(exponent_, b.value);
    if (odd_node_ && tn == *odd_node_) return b.k == value_graph::vk::imm && b.op == "i" && bind(odd_, b.value);
    const std::uint64_t key = (std::uint64_t{tn} << 32) | cn;
    if (same_.contains(key)) return true;
    const bool call = a.k == value_graph::vk::op && a.op == "call:pow";
    if (a.k != b.k || a.k == value_graph::vk::opaque || a.op != b.op || a.kids.size() != b.kids.size()) return false;
    if (call ? !bind(exponent_, b.value) : a.value != b.value) return false;
    for (std::size_t k = 0; k < a.kids.size(); ++k)
      if (!match(a.kids[k], b.kids[k])) return false;
    same_.insert(key);
    return true;
  }
  std::optional<std::uint32_t> x() const { return x_; }
  std::optional<std::uint32_t> y() const { return y_; }
  std::optional<std::int64_t> exponent() const { return exponent_; }
  std::optional<std::int64_t> odd_test() const { return odd_; }

 private:
  static bool bind(std::optional<std::int64_t>& slot, std::int64_t v) {
    if (!slot) slot = v;
    return *slot == v;
  }
  const value_graph& tg_;
  std::uint32_t tx_;
  const value_graph& c_;
  std::optional<std::uint32_t> x_, y_, ty_;
  std::optional<std::uint32_t> exponent_node_, odd_node_;
  std::optional<std::int64_t> exponent_, odd_;
  boost::unordered_flat_set<std::uint64_t> same_;
};

// Paths of a candidate against a template's, in the same order: the same branch conditions, and
// the results (one node per path) the template's.
inline bool same_paths(graph_matcher& mt, const std::vector<region_path>& tpaths, const std::vector<std::uint32_t>& tresults,
                       const std::vector<region_path>& paths, auto&& result_of) {
  if (paths.size() != tpaths.size()) return false;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    if (paths[k].conditions.size() != tpaths[k].conditions.size()) return false;
    for (std::size_t c = 0; c < paths[k].conditions.size(); ++c)
      if (paths[k].conditions[c].second != tpaths[k].conditions[c].second ||
          !mt.match(tpaths[k].conditions[c].first, paths[k].conditions[c].first))
        return false;
    if (!mt.match(tresults[k], result_of(k))) return false;
  }
  return true;
}

// The helpers of m that compute, bit for bit, a pow template's helper: of one parameter with its
// exponent c replaced by another finite non-zero constant (name -> c), or of two (x and y, both
// bound to the candidate's parameters); added to `out`.
inline void pow_helpers(const module& m, const region_template& t, pow_helper_map& out) {
  const std::size_t np = t.helper->y ? 2 : 1;
  for (const function& f : m.functions) {
    if (f.entry || !f.has_body || f.params.size() != np) continue;
    auto fm = evaluate_helper(m, f);
    if (!fm) continue;
    graph_matcher mt(t.helper->g, t.helper->x, fm->g);
    mt.exponent_node(t.helper_exponent);
    mt.second_input(t.helper->y);
    if (!same_paths(mt, t.helper->paths, t.helper->results, fm->paths, [&](std::size_t k) { return fm->results[k]; }))
      continue;
    if (!mt.x() || *mt.x() != fm->x) continue;
    if (np == 2) {
      if (mt.y() != fm->y) continue;
      out[f.name] = pow_helper{2, 0};
      continue;
    }
    if (!mt.exponent() || !pow_exponent_ok(static_cast<std::uint64_t>(*mt.exponent()))) continue;
    out[f.name] = pow_helper{1, static_cast<std::uint64_t>(*mt.exponent())};
  }
}

// One lifted region, for the report.
struct region_lift {
  const region_template* t = nullptr;
  std::uint32_t at = 0;  // the lifted instruction (before compaction)
  std::vector<std::uint32_t> lines;
};

// Lifts every region of f that matches a template; marks removed instructions in `dead`.
class region_lifter {
 public:
  // pow_helpers: the module's helpers that are the pow template's (pow_helpers(), computed once per
  // module before any function is lifted, as lifting the helper's own exp changes its body).
  region_lifter(module& m, function& f, std::vector<bool>& dead, const pow_helper_map* pow_helpers = nullptr)
      : m_(m), f_(f), dead_(dead), pow_helpers_(pow_helpers) {}

  std::vector<region_lift> run() {
    std::vector<region_lift> done;
    // A branch through a table (brx.idx) may enter a region anywhere: nothing is lifted.
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k)
      if (!dead_[k] && f_.instructions[k].op == opcode::brx_idx) return done;
    boost::unordered_flat_set<std::uint64_t> f64s;
    for (auto& ins : f_.instructions)
      for (auto& o : ins.operands)
        if (o.kind == operand_kind::imm_f64) f64s.insert(static_cast<std::uint64_t>(o.value));
    if (std::none_of(f64s.begin(), f64s.end(), is_template_anchor)) return done;  // (no template is built)
    for (const region_template& t : region_templates()) {
      if (!f64s.contains(t.anchor)) continue;
      if (t.helper && (!pow_helpers_ || pow_helpers_->empty())) continue;
      for (std::uint32_t b0 = 0; b0 < f_.instructions.size(); ++b0)
        if (!dead_[b0] && f_.instructions[b0].op == opcode::bra && f_.instructions[b0].guarded)
          if (auto r = try_at(t, b0)) done.push_back(std::move(*r));
    }
    return done;
  }

 private:
  std::optional<region_lift> try_at(const region_template& t, std::uint32_t b0) {
    const auto& ins = f_.instructions;
    const std::uint32_t n = static_cast<std::uint32_t>(ins.size());
    // The join: the furthest target of the template's number of branches from b0 on.
    std::uint32_t e = 0, seen = 0, i = b0;
    for (; i < n && seen < t.branches; ++i) {
      if (dead_[i] || ins[i].op != opcode::bra) continue;
      if (ins[i].target == instruction::no_target || ins[i].target <= i) return std::nullopt;
      e = std::max(e, ins[i].target);
      ++seen;
    }
    if (seen != t.branches || e < i) return std::nullopt;
    // Who branches where: the region is entered only at its start.
    boost::unordered_flat_set<std::uint32_t> targets;
    for (std::uint32_t k = 0; k < n; ++k) {
      if (dead_[k] || ins[k].op != opcode::bra) continue;
      targets.insert(ins[k].target);
      const bool inside = k >= b0 && k < e;
      if (inside && (ins[k].target <= k || ins[k].target > e)) return std::nullopt;
      if (!inside && ins[k].target > b0 && ins[k].target < e) return std::nullopt;
    }
    // The start of b0's basic block (at most 512 instructions back).
    std::uint32_t s = b0;
    while (s > 0 && b0 - s < 512 && !targets.contains(s)) {
      std::uint32_t k = s - 1;
      if (!dead_[k] && (ins[k].op == opcode::bra || ins[k].op == opcode::ret || ins[k].op == opcode::exit)) break;
      s = k;
    }
    value_graph g;
    region_evaluator ev(m_, f_, dead_, g);
    index_constants();
    ev.set_constants(&constants_);
    if (t.helper) ev.set_calls(pow_helpers_);
    const std::uint32_t te = t.tail ? tail_end(f_, dead_, e) : e;
    std::vector<region_path> paths;
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> at_b0;
    if (!ev.run(s, b0, e, paths, at_b0, te) || paths.size() != t.paths.size()) return std::nullopt;
    if (t.helper && ev.calls.size() != 1) return std::nullopt;
    for (std::size_t k = 0; k < paths.size(); ++k)
      if (paths[k].conditions.size() != t.paths[k].conditions.size()) return std::nullopt;
    // The result: a register whose value on every path is the template's.
    std::vector<std::uint32_t> candidates;
    for (std::uint32_t k = s; k < te; ++k)
      if (!dead_[k] && !ins[k].operands.empty() && ins[k].operands[0].kind == operand_kind::reg && ins[k].op != opcode::st)
        candidates.push_back(ins[k].operands[0].name);
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (std::uint32_t r : candidates) {
      graph_matcher mt(t, g);
      bool ok = true;
      for (std::size_t k = 0; k < paths.size() && ok; ++k) {
        for (std::size_t c = 0; c < paths[k].conditions.size() && ok; ++c)
          ok = paths[k].conditions[c].second == t.paths[k].conditions[c].second &&
               mt.match(t.paths[k].conditions[c].first, paths[k].conditions[c].first);
        ok = ok && mt.match(t.results[k], ev.read(paths[k], r));
      }
      if (!ok || !mt.x()) continue;
      std::optional<std::uint64_t> c;
      if (t.helper) {  // pow: c as the helper's, K(c) nvcc's folding of the odd-integer test for c
        if (!mt.exponent() || !mt.odd_test()) continue;
        c = static_cast<std::uint64_t>(*mt.exponent());
        if (!pow_exponent_ok(*c) || *mt.odd_test() != odd_test_constant(*c)) continue;
      }
      if (auto done = rewrite(t, s, b0, e, te, r, *mt.x(), at_b0, g, ev.calls, c)) return done;
    }
    return std::nullopt;
  }

  void index_constants() {
    constants_.clear();
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> defs;
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k)
      if (!dead_[k]) for_writes(f_.instructions[k], [&](std::uint32_t w) { ++defs[w]; });
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k) {
      const instruction& in = f_.instructions[k];
      if (dead_[k] || in.op != opcode::mov || in.guarded || in.operands.size() != 2 ||
          in.operands[0].kind != operand_kind::reg || defs[in.operands[0].name] != 1)
        continue;
      const operand_kind c = in.operands[1].kind;
      if (c == operand_kind::imm_int || c == operand_kind::imm_f32 || c == operand_kind::imm_f64)
        constants_[in.operands[0].name] = in.operands[1];
    }
  }

  // Which live instructions read each register.
  void index_reads() {
    reads_.clear();
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k) {
      if (dead_[k]) continue;
      for_reads(f_.instructions[k], [&](std::uint32_t r) { reads_[r].push_back(k); });
    }
  }
  template <class F>
  static void for_reads(const instruction& ins, F&& f) {
    if (ins.guarded) f(ins.guard);
    const bool writes_first = ins.op != opcode::st && !ins.operands.empty() &&
                              (ins.operands[0].kind == operand_kind::reg || ins.operands[0].kind == operand_kind::vector);
    for (std::size_t o = writes_first ? 1 : 0; o < ins.operands.size(); ++o) regs_in(ins.operands[o], f);
  }
  static void for_writes(const instruction& ins, auto&& f) {
    if (ins.op == opcode::st || ins.op == opcode::bra || ins.operands.empty()) return;
    const operand& d = ins.operands[0];
    if (d.kind == operand_kind::reg || d.kind == operand_kind::vector) regs_in(d, f);
  }

  std::optional<region_lift> rewrite(const region_template& t, std::uint32_t s, std::uint32_t b0, std::uint32_t e,
                                     std::uint32_t te, std::uint32_t r, std::uint32_t x,
                                     const boost::unordered_flat_map<std::uint32_t, std::uint32_t>& at_b0, value_graph& g,
                                     const std::vector<region_evaluator::call_site>& calls, std::optional<std::uint64_t> c) {
    auto& ins = f_.instructions;
    // x must be in a register where b0 stands.
    std::optional<std::uint32_t> xr;
    for (auto& [reg, node] : at_b0)
      if (node == x && (!xr || reg < *xr)) xr = reg;
    if (!xr) {  // x is a register live into the region, not written before b0
      const auto& xn = g.at(x);
      if (xn.k == value_graph::vk::opaque && xn.op == "in" && !at_b0.contains(static_cast<std::uint32_t>(xn.value)))
        xr = static_cast<std::uint32_t>(xn.value);
    }
    if (!xr) return std::nullopt;
    index_reads();
    const auto size = static_cast<std::uint32_t>(ins.size());
    std::vector<bool> removed(ins.size(), false);
    for (std::uint32_t k = b0; k < e; ++k) removed[k] = !dead_[k];
    auto read_outside = [&](std::uint32_t reg, std::uint32_t from, std::uint32_t to) {
      auto it = reads_.find(reg);
      if (it == reads_.end()) return false;
      for (auto k : it->second)
        if (!removed[k] && k >= from && k < to) return true;
      return false;
    };
    // The tail: the instruction that writes r last goes, and the pure ones whose results only
    // removed instructions read; the lifted instruction then stands where r was written.
    std::optional<std::uint32_t> at_r;
    for (std::uint32_t k = e; k < te; ++k)
      if (!dead_[k]) for_writes(ins[k], [&](std::uint32_t w) { if (w == r) at_r = k; });
    if (te > e && !at_r) return std::nullopt;
    for (std::uint32_t k = te; k-- > e;) {
      if (dead_[k] || !pure_opcode(ins[k].op) || ins[k].guarded) continue;
      bool go = true;
      for_writes(ins[k], [&](std::uint32_t w) {
        if (w == *xr) go = false;
        else if (w == r) go = go && k == *at_r;
        else go = go && !read_outside(w, 0, size);
      });
      removed[k] = go;
    }
    if (at_r && !removed[*at_r]) return std::nullopt;
    // A call of a helper the graph looked into: its `ld.param` goes when only removed
    // instructions read its result, the call and its `st.param` with it.
    boost::unordered_flat_map<std::uint32_t, std::size_t> call_piece;
    for (std::size_t c2 = 0; c2 < calls.size(); ++c2) {
      for (auto k : calls[c2].loads) call_piece[k] = c2;
      for (auto k : calls[c2].stores) call_piece[k] = c2;
      call_piece[calls[c2].call] = c2;
    }
    // Before b0: a pure instruction goes when only removed instructions read what it writes
    // (its write of r is dead anyway when nothing reads it before b0); x's register stays.
    for (std::uint32_t k = b0; k-- > s;) {
      if (auto cp = call_piece.find(k); cp != call_piece.end() && !dead_[k]) {
        const auto& site = calls[cp->second];
        if (k == site.call) {
          removed[k] = std::all_of(site.loads.begin(), site.loads.end(), [&](std::uint32_t l) { return removed[l]; });
        } else if (std::find(site.stores.begin(), site.stores.end(), k) != site.stores.end()) {
          removed[k] = removed[site.call];
        } else {
          bool go = true;
          for_writes(ins[k], [&](std::uint32_t w) { go = go && w != *xr && w != r && !read_outside(w, 0, size); });
          removed[k] = go;
        }
        continue;
      }
      if (dead_[k] || !pure_opcode(ins[k].op) || ins[k].guarded || ins[k].operands.empty() ||
          (ins[k].operands[0].kind != operand_kind::reg && ins[k].operands[0].kind != operand_kind::vector))
        continue;
      bool go = true;
      for_writes(ins[k], [&](std::uint32_t w) {
        if (w == *xr) go = false;
        else if (w == r) go = go && !read_outside(w, k + 1, b0);
        else go = go && !read_outside(w, 0, size);
      });
      removed[k] = go;
    }
    // Nothing the removed code writes, except r, may be read by what stays; x's register (which
    // the sequence may scale in place) only by what runs before the region, where it holds x.
    // With a tail, r is written where its last write stood, so nothing else removed may write it,
    // and nothing that stays may write x's register before it.
    for (std::uint32_t k = s; k < te; ++k) {
      if (!removed[k]) {
        if (at_r && k >= b0 && k < *at_r && !dead_[k]) {
          bool ok = true;
          for_writes(ins[k], [&](std::uint32_t w) { ok = ok && w != *xr; });
          if (!ok) return std::nullopt;
        }
        continue;
      }
      bool ok = true;
      for_writes(ins[k], [&](std::uint32_t w) {
        if (w == *xr) ok = ok && !read_outside(w, 0, s) && !read_outside(w, te, size);
        else if (w != r) ok = ok && !read_outside(w, 0, size);
        else if (at_r && k != *at_r) ok = false;
      });
      if (!ok) return std::nullopt;
    }
    // A removed call piece: nothing that stays may be a piece of the same call.
    for (auto& site : calls) {
      bool any = removed[site.call], all = removed[site.call];
      for (auto k : site.loads) any = any || removed[k], all = all && removed[k];
      for (auto k : site.stores) any = any || removed[k], all = all && removed[k];
      if (any != all || !all) return std::nullopt;
    }
    region_lift done;
    done.t = &t;
    const std::uint32_t at = at_r ? *at_r : b0;
    done.at = at;
    std::vector<std::uint32_t> fed;  // registers the removed code read
    for (std::uint32_t k = s; k < te; ++k) {
      if (!removed[k]) continue;
      done.lines.push_back(ins[k].line);
      for_reads(ins[k], [&](std::uint32_t reg) { fed.push_back(reg); });
      dead_[k] = true;
    }
    instruction lifted;
    lifted.op = opcode::lifted;
    lifted.lifted_fn = t.fn;
    lifted.mods.push_back(m_.names.intern(".f64"));
    operand rd, xo;
    rd.kind = xo.kind = operand_kind::reg;
    rd.name = r;
    xo.name = *xr;
    lifted.operands.push_back(rd);
    lifted.operands.push_back(xo);
    if (c) {  // pow(x, c): the exponent as an immediate
      operand co;
      co.kind = operand_kind::imm_f64;
      co.value = static_cast<std::int64_t>(*c);
      lifted.operands.push_back(co);
    }
    lifted.line = ins[at].line;
    lifted.column = ins[at].column;
    lifted.loc = ins[at].loc;
    lifted.lifted_lines = done.lines;
    ins[at] = std::move(lifted);
    dead_[at] = false;
    sweep(fed);
    return done;
  }

  // Pure instructions whose results nothing reads any more (after a rewrite) go too.
  void sweep(std::vector<std::uint32_t> work) {
    index_reads();
    while (!work.empty()) {
      const std::uint32_t reg = work.back();
      work.pop_back();
      if (auto it = reads_.find(reg); it != reads_.end() && !it->second.empty()) continue;
      for (std::uint32_t k = 0; k < f_.instructions.size(); ++k) {
        const instruction& in = f_.instructions[k];
        if (dead_[k] || !pure_opcode(in.op) || in.guarded) continue;
        bool writes = false, all_unread = true;
        for_writes(in, [&](std::uint32_t w) {
          writes = writes || w == reg;
          auto it = reads_.find(w);
          all_unread = all_unread && (it == reads_.end() || it->second.empty());
        });
        if (!writes || !all_unread) continue;
        dead_[k] = true;
        for_reads(in, [&](std::uint32_t r2) {
          auto& v = reads_[r2];
          v.erase(std::remove(v.begin(), v.end(), k), v.end());
          work.push_back(r2);
        });
      }
    }
  }

  module& m_;
  function& f_;
  std::vector<bool>& dead_;
  const pow_helper_map* pow_helpers_ = nullptr;
  boost::unordered_flat_map<std::uint32_t, std::vector<std::uint32_t>> reads_;
  boost::unordered_flat_map<std::uint32_t, operand> constants_;
};

}  // namespace detail
}  // namespace gpueq::ptx
