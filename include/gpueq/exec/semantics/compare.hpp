// Comparisons and selections (semantics of engine<D, O>, declared in exec/engine.hpp): setp, set,
// selp and slct. A comparison of symbolic reals gives an undecided predicate; `choose` is the one
// consumer that may take it (selp, slct, or a predicated mov), and turns a selection between the
// compared values into max/min; any other selection on it takes one outcome under a case split
// (exec/case_split.hpp) and stops the run otherwise. The fast forms: setp on integers is integer.hpp's fast_integer, setp.f32 is
// float.hpp's fast_float_finish, selp on a concrete predicate is a case of the engine's fast_step.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <cstdint>
#include <optional>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// p ? a : b for an undecided comparison p = (u cmp v): max/min when {a, b} = {u, v}.
template <value_domain D, observer O>
inline auto engine<D, O>::choose(std::uint32_t t, const value& a, const value& b, const value& p) -> value {
  rkind k = p.k;
  real ra = to_real(a, k, t), rb = to_real(b, k, t);
  bool negated = p.negated;
  cmp_op c = p.cmp;
  bool greater = c == cmp_op::gt || c == cmp_op::ge || c == cmp_op::gtu || c == cmp_op::geu;
  bool less = c == cmp_op::lt || c == cmp_op::le || c == cmp_op::ltu || c == cmp_op::leu;
  if (negated) std::swap(greater, less);
  if (greater || less) {
    real xs[2] = {ra, rb};
    if (d_.same(ra, p.r) && d_.same(rb, p.r2))  // u > v ? u : v
      return value::of_real(guarded([&] { return d_.arith(greater ? aop::max : aop::min, xs, k, {}); }, t), k);
    if (d_.same(ra, p.r2) && d_.same(rb, p.r))  // u > v ? v : u
      return value::of_real(guarded([&] { return d_.arith(greater ? aop::min : aop::max, xs, k, {}); }, t), k);
  }
  if (auto o = branch(p)) return *o ? a : b;  // under a case split: one outcome of the comparison
  fail_at(error_kind::not_structured, t,
          "a selection on a comparison of symbolic values that is not max/min of the compared values (" +
              d_.show(p.r) + " vs " + d_.show(p.r2) + ")");
}

// a cmp b as a cell: concrete bits, or an undecided predicate of two symbolic reals.
template <value_domain D, observer O>
inline auto engine<D, O>::compare(std::uint32_t t, const xinstr& x, const value& a, const value& b) -> value {
  if (!x.has_cmp) fail_at(error_kind::unsupported, t, "comparison without an operator");
  if (auto k = rkind_of(x.type)) {
    real ra = to_real(a, *k, t), rb = to_real(b, *k, t);
    if (auto r = d_.compare(x.cmp, ra, rb, *k)) return value::of_bits(*r);
    value p;
    p.t = value::tag::predicate;
    p.k = *k;
    p.cmp = x.cmp;
    p.r = ra;
    p.r2 = rb;
    return p;
  }
  if (is_symbolic(a) || is_symbolic(b)) {
    rkind k = rkind::integer;
    real ra = to_real(a, k, t), rb = to_real(b, k, t);
    if (auto r = d_.compare(x.cmp, ra, rb, k)) return value::of_bits(*r);
    fail_at(error_kind::not_structured, t, "a comparison of symbolic integer data");
  }
  std::uint64_t ua = to_bits(a, t) & mask_of(x.type), ub = to_bits(b, t) & mask_of(x.type);
  std::int64_t sa = sext(ua, x.type), sb = sext(ub, x.type);
  bool s = is_signed(x.type);
  switch (x.cmp) {
    case cmp_op::eq: return value::of_bits(ua == ub);
    case cmp_op::ne: return value::of_bits(ua != ub);
    case cmp_op::lt: return value::of_bits(s ? sa < sb : ua < ub);
    case cmp_op::le: return value::of_bits(s ? sa <= sb : ua <= ub);
    case cmp_op::gt: return value::of_bits(s ? sa > sb : ua > ub);
    case cmp_op::ge: return value::of_bits(s ? sa >= sb : ua >= ub);
    case cmp_op::lo: return value::of_bits(ua < ub);
    case cmp_op::ls: return value::of_bits(ua <= ub);
    case cmp_op::hi: return value::of_bits(ua > ub);
    case cmp_op::hs: return value::of_bits(ua >= ub);
    default: fail_at(error_kind::unsupported, t, "this comparison on integers");
  }
}

template <value_domain D, observer O>
inline auto engine<D, O>::combine(std::uint32_t t, const xinstr& x, value p, const value& c) -> value {
  if (!(x.has(flag::and_) || x.has(flag::or_) || x.has(flag::xor_))) return p;
  bool a = truth(t, p), b = truth(t, c);
  if (x.has(flag::and_)) return value::of_bits(a && b);
  if (x.has(flag::or_)) return value::of_bits(a || b);
  return value::of_bits(a != b);
}

template <value_domain D, observer O>
inline void engine<D, O>::setp(std::uint32_t t, const xinstr& x) {
  value p = compare(t, x, read(t, x.ops[1]), read(t, x.ops[2]));
  if (x.ops.size() > 3) p = combine(t, x, p, read(t, x.ops[3]));
  const xoperand& d = x.ops[0];
  if (d.k == xoperand::kind::vector) {  // p|q: q is the complement
    write(t, d.elems[0], p);
    value q = p;
    if (q.t == value::tag::bits) q.bits = !q.bits;
    else if (q.t == value::tag::predicate) q.negated = !q.negated;
    write(t, d.elems[1], q);
    return;
  }
  write(t, d, p);
}

template <value_domain D, observer O>
inline void engine<D, O>::set(std::uint32_t t, const xinstr& x) {
  if (x.types.size() < 2) fail_at(error_kind::unsupported, t, "set without two types");
  xinstr cmp_x = x;
  cmp_x.type = x.types.back();
  value p = compare(t, cmp_x, read(t, x.ops[1]), read(t, x.ops[2]));
  if (x.ops.size() > 3) p = combine(t, x, p, read(t, x.ops[3]));
  bool r = truth(t, p);
  vtype to = x.types[x.types.size() - 2];
  if (to == vtype::f32) return write(t, x.ops[0], value::of_bits(r ? 0x3f800000u : 0));
  write(t, x.ops[0], value::of_bits(r ? mask_of(to) : 0));
}

template <value_domain D, observer O>
inline void engine<D, O>::selp(std::uint32_t t, const xinstr& x) {
  value p = read(t, x.ops[3]);
  if (p.t == value::tag::predicate) return write(t, x.ops[0], choose(t, read(t, x.ops[1]), read(t, x.ops[2]), p));
  write(t, x.ops[0], truth(t, p) ? read(t, x.ops[1]) : read(t, x.ops[2]));
}

// slct.dtype.s32 d, a, b, c and slct{.ftz}.dtype.f32 d, a, b, c (PTX ISA): d = (c >= 0) ? a : b,
// a and b copied as they are. c >= 0 is compare's: a NaN c is not >= 0 (d = b), -0 is (d = a);
// with .ftz a subnormal c is a zero of its sign, so it selects a. A comparison of a symbolic c is
// selp's undecided predicate: `slct d, x, 0, x` is max(x, 0), any other selection a branch point
// of the case split where one runs, else the run stops as not structured.
template <value_domain D, observer O>
inline void engine<D, O>::slct(std::uint32_t t, const xinstr& x) {
  if (x.types.size() != 2 || (x.type != vtype::s32 && x.type != vtype::f32))
    fail_at(error_kind::unsupported, t, "slct needs a destination type and a selector type, .s32 or .f32");
  if (x.has(flag::ftz) && x.type != vtype::f32) fail_at(error_kind::unsupported, t, "slct .ftz needs an .f32 selector");
  const value a = read(t, x.ops[1]), b = read(t, x.ops[2]), c = read(t, x.ops[3]);
  if (x.has(flag::ftz)) {
    std::optional<std::uint64_t> cb;
    if (c.t == value::tag::bits) cb = c.bits & 0xffffffffu;
    else if (c.t == value::tag::real && c.k != rkind::integer) cb = d_.float_bits(c.r, rkind::f32);
    if (cb && (*cb & 0x7f800000u) == 0) return write(t, x.ops[0], a);  // a zero or a subnormal: >= 0 once flushed
  }
  xinstr ge;
  ge.type = x.type;
  ge.cmp = cmp_op::ge;
  ge.has_cmp = true;
  const value p = compare(t, ge, c, value::of_bits(0));
  if (p.t == value::tag::predicate) return write(t, x.ops[0], choose(t, a, b, p));
  write(t, x.ops[0], truth(t, p) ? a : b);
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
