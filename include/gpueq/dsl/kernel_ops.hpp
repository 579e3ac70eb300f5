// The operations of the kernel language (dsl/kernel.hpp, which includes this header at its end
// and whose header comment describes the language): the free functions on values (f32 and i32
// arithmetic, exp/log/sqrt/... as the sequences nvcc emits, fma, select, conversions,
// comparisons giving predicates, && || !, if_, the warp shuffles), and the member functions of
// arrays and element references that emit the index arithmetic, loads and stores.
#pragma once

#include <gpueq/dsl/kernel.hpp>

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace gpueq::dsl::kl {

namespace detail {
inline kernel& common(kernel* a, kernel* b) {
  if (!a && !b) misuse("an operation on constants only (compute it in C++)");
  if (a && b) a->own(*b);
  return a ? *a : *b;
}
template <class T>
val<T> binary(std::string_view op, const arg<T>& a, const arg<T>& b) {
  kernel& k = common(a.k, b.k);
  val<T> r = k.template fresh<T>(a.at);
  std::string lhs = k.in_register(a);
  k.emit(a.at, std::string(op) + " " + r.reg() + ", " + lhs + ", " + b.text + ";");
  return r;
}
template <class T>
val<T> unary(std::string_view op, const arg<T>& a) {
  kernel& k = common(a.k, nullptr);
  val<T> r = k.template fresh<T>(a.at);
  k.emit(a.at, std::string(op) + " " + r.reg() + ", " + a.text + ";");
  return r;
}
inline pred logical(std::string_view op, const pred& a, const pred& b) {
  kernel& k = a.owner();
  k.own(b.owner());
  pred r = k.fresh_pred(a.at());
  k.emit(a.at(), std::string(op) + " " + r.reg() + ", " + a.reg() + ", " + b.reg() + ";");
  return r;
}
}  // namespace detail

// f32 arithmetic. Division is div.rn (the exact real quotient after lifting).
inline f32 operator+(arg<f32_tag> a, arg<f32_tag> b) { return detail::binary("add.f32", a, b); }
inline f32 operator-(arg<f32_tag> a, arg<f32_tag> b) { return detail::binary("sub.f32", a, b); }
inline f32 operator*(arg<f32_tag> a, arg<f32_tag> b) { return detail::binary("mul.f32", a, b); }
inline f32 operator/(arg<f32_tag> a, arg<f32_tag> b) { return detail::binary("div.rn.f32", a, b); }
inline f32 operator-(arg<f32_tag> a) { return detail::unary("neg.f32", a); }
inline f32 max(arg<f32_tag> a, arg<f32_tag> b) { return detail::binary("max.f32", a, b); }
inline f32 min(arg<f32_tag> a, arg<f32_tag> b) { return detail::binary("min.f32", a, b); }
inline f32 abs(arg<f32_tag> a) { return detail::unary("abs.f32", a); }
inline f32 sqrt(arg<f32_tag> a) { return detail::unary("sqrt.rn.f32", a); }
inline f32 rsqrt(arg<f32_tag> a) { return detail::unary("rsqrt.approx.f32", a); }
inline f32 tanh(arg<f32_tag> a) { return detail::unary("tanh.approx.f32", a); }
// exp and log as nvcc's __expf / __logf sequences, which the lifter recognizes.
inline f32 exp(arg<f32_tag> a) {
  f32 t = detail::binary("mul.f32", a, arg<f32_tag>(std::bit_cast<float>(0x3FB8AA3Bu), a.at));
  return detail::unary("ex2.approx.f32", arg<f32_tag>(t, a.at));
}
inline f32 log(arg<f32_tag> a) {
  f32 t = detail::unary("lg2.approx.f32", a);
  return detail::binary("mul.f32", arg<f32_tag>(t, a.at), arg<f32_tag>(std::bit_cast<float>(0x3F317218u), a.at));
}
inline f32 fma(arg<f32_tag> a, arg<f32_tag> b, arg<f32_tag> c) {
  kernel& k = detail::common(a.k, b.k ? b.k : c.k);  // the kernel, checked against a and b (or c)
  if (c.k) k.own(*c.k);
  f32 r = k.fresh<f32_tag>(a.at);
  std::string x = k.in_register(a);
  k.emit(a.at, "fma.rn.f32 " + r.reg() + ", " + x + ", " + b.text + ", " + c.text + ";");
  return r;
}
// p ? a : b, per thread (selp).
template <class T>
val<T> select_(const pred& p, const arg<T>& a, const arg<T>& b) {
  kernel& k = p.owner();
  if (a.k) k.own(*a.k);
  if (b.k) k.own(*b.k);
  val<T> r = k.template fresh<T>(a.at);
  k.emit(a.at, "selp" + std::string(T::type) + " " + r.reg() + ", " + a.text + ", " + b.text + ", " + p.reg() + ";");
  return r;
}
inline f32 select(const pred& p, arg<f32_tag> a, arg<f32_tag> b) { return select_<f32_tag>(p, a, b); }
inline i32 select(const pred& p, arg<s32_tag> a, arg<s32_tag> b) { return select_<s32_tag>(p, a, b); }

// i32 arithmetic (signed: division truncates, >> is arithmetic).
inline i32 operator+(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("add.s32", a, b); }
inline i32 operator-(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("sub.s32", a, b); }
inline i32 operator*(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("mul.lo.s32", a, b); }
inline i32 operator/(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("div.s32", a, b); }
inline i32 operator%(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("rem.s32", a, b); }
inline i32 operator&(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("and.b32", a, b); }
inline i32 operator|(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("or.b32", a, b); }
inline i32 operator^(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("xor.b32", a, b); }
inline i32 operator<<(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("shl.b32", a, b); }
inline i32 operator>>(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("shr.s32", a, b); }
inline i32 operator-(arg<s32_tag> a) { return detail::unary("neg.s32", a); }
inline i32 max(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("max.s32", a, b); }
inline i32 min(arg<s32_tag> a, arg<s32_tag> b) { return detail::binary("min.s32", a, b); }

// Conversions: i32 -> f32 rounds to nearest; f32 -> i32 truncates toward zero.
inline f32 to_f32(arg<s32_tag> a) {
  if (!a.k) detail::misuse("to_f32 of a constant (write a float constant)");
  f32 r = a.k->fresh<f32_tag>(a.at);
  a.k->emit(a.at, "cvt.rn.f32.s32 " + r.reg() + ", " + a.text + ";");
  return r;
}
inline i32 to_i32(arg<f32_tag> a) {
  if (!a.k) detail::misuse("to_i32 of a constant (write an integer constant)");
  i32 r = a.k->fresh<s32_tag>(a.at);
  a.k->emit(a.at, "cvt.rzi.s32.f32 " + r.reg() + ", " + a.text + ";");
  return r;
}

// Comparisons give predicates.
#define GPUEQ_KL_COMPARE(op, cmp)                                                                         \
  inline pred operator op(arg<f32_tag> a, arg<f32_tag> b) {                                             \
    return detail::common(a.k, b.k).compare(cmp, a, b);                                                 \
  }                                                                                                     \
  inline pred operator op(arg<s32_tag> a, arg<s32_tag> b) { return detail::common(a.k, b.k).compare(cmp, a, b); }
GPUEQ_KL_COMPARE(<, "lt")
GPUEQ_KL_COMPARE(<=, "le")
GPUEQ_KL_COMPARE(>, "gt")
GPUEQ_KL_COMPARE(>=, "ge")
GPUEQ_KL_COMPARE(==, "eq")
GPUEQ_KL_COMPARE(!=, "ne")
#undef GPUEQ_KL_COMPARE

inline pred operator&&(const pred& a, const pred& b) { return detail::logical("and.pred", a, b); }
inline pred operator||(const pred& a, const pred& b) { return detail::logical("or.pred", a, b); }
inline pred operator!(const pred& a) {
  pred r = a.owner().fresh_pred(a.at());
  a.owner().emit(a.at(), "not.pred " + r.reg() + ", " + a.reg() + ";");
  return r;
}

// Structured control flow as free functions (the kernel is the predicate's).
template <class Then>
void if_(const pred& p, Then&& then, site s = {}) {
  p.owner().if_(p, std::forward<Then>(then), s);
}
template <class Then, class Else>
void if_(const pred& p, Then&& then, Else&& otherwise, site s = {}) {
  p.owner().if_(p, std::forward<Then>(then), std::forward<Else>(otherwise), s);
}

// ---- warp shuffles (shfl.sync): lanes of `mask` exchange registers within segments of `width`
namespace detail {
template <class T>
val<T> shuffle(std::string_view mode, const arg<T>& v, const arg<s32_tag>& lane, std::uint32_t mask, unsigned width,
               site s) {
  if (width == 0 || width > 32 || (width & (width - 1)) != 0) misuse("shuffle width " + std::to_string(width) + " is not a power of two in 1..32");
  if (!v.k) misuse("shuffle of a constant");
  kernel& k = *v.k;
  if (lane.k) k.own(*lane.k);
  // c: the segment mask in bits 8..12 and the clamp lane in bits 0..4 (PTX ISA, shfl.sync).
  std::uint32_t c = ((32u - width) << 8) | (mode == "up" ? 0u : 0x1fu);
  val<T> r = k.template fresh<T>(s);
  k.emit(s, "shfl.sync." + std::string(mode) + ".b32 " + r.reg() + ", " + v.text + ", " + lane.text + ", " +
                std::to_string(c) + ", " + kernel::hex(mask) + ";");
  return r;
}
}  // namespace detail
inline f32 shfl_down(arg<f32_tag> v, arg<s32_tag> delta, std::uint32_t mask = 0xffffffffu, unsigned width = 32, site s = {}) {
  return detail::shuffle("down", v, delta, mask, width, s);
}
inline f32 shfl_up(arg<f32_tag> v, arg<s32_tag> delta, std::uint32_t mask = 0xffffffffu, unsigned width = 32, site s = {}) {
  return detail::shuffle("up", v, delta, mask, width, s);
}
inline f32 shfl_xor(arg<f32_tag> v, arg<s32_tag> lane_mask, std::uint32_t mask = 0xffffffffu, unsigned width = 32, site s = {}) {
  return detail::shuffle("bfly", v, lane_mask, mask, width, s);
}
inline f32 shfl_idx(arg<f32_tag> v, arg<s32_tag> lane, std::uint32_t mask = 0xffffffffu, unsigned width = 32, site s = {}) {
  return detail::shuffle("idx", v, lane, mask, width, s);
}
inline i32 shfl_down(arg<s32_tag> v, arg<s32_tag> delta, std::uint32_t mask = 0xffffffffu, unsigned width = 32, site s = {}) {
  return detail::shuffle("down", v, delta, mask, width, s);
}
inline i32 shfl_xor(arg<s32_tag> v, arg<s32_tag> lane_mask, std::uint32_t mask = 0xffffffffu, unsigned width = 32, site s = {}) {
  return detail::shuffle("bfly", v, lane_mask, mask, width, s);
}
inline i32 shfl_idx(arg<s32_tag> v, arg<s32_tag> lane, std::uint32_t mask = 0xffffffffu, unsigned width = 32, site s = {}) {
  return detail::shuffle("idx", v, lane, mask, width, s);
}

// ---- arrays and element references ---------------------------------------------------------

template <class T>
std::string array<T>::address(const arg<s32_tag>& i) const {
  kernel& k = *k_;
  if (i.k) k.own(*i.k);
  if (i.immediate()) {
    long long e = std::stoll(i.text);
    if (e < 0 || (shared_ && static_cast<std::uint64_t>(e) >= size_))
      detail::misuse("index " + i.text + " is outside " + name_ + (shared_ ? "[" + std::to_string(size_) + "]" : std::string()));
    return "[" + base_ + (e ? "+" + std::to_string(e * 4) : std::string()) + "]";
  }
  if (shared_) {
    i32 b = k.fresh<s32_tag>(i.at), o = k.fresh<s32_tag>(i.at), a = k.fresh<s32_tag>(i.at);
    k.emit(i.at, "mov.u32 " + b.reg() + ", " + base_ + ";");
    k.emit(i.at, "shl.b32 " + o.reg() + ", " + i.text + ", 2;");
    k.emit(i.at, "add.s32 " + a.reg() + ", " + b.reg() + ", " + o.reg() + ";");
    return "[" + a.reg() + "]";
  }
  std::string o = k.fresh_wide(), a = k.fresh_wide();
  k.emit(i.at, "mul.wide.s32 " + o + ", " + i.text + ", 4;");
  k.emit(i.at, "add.s64 " + a + ", " + base_ + ", " + o + ";");
  return "[" + a + "]";
}

template <class T>
val<T> array<T>::load(arg<s32_tag> i) const {
  std::string at = address(i);
  val<T> r = k_->fresh<T>(i.at);
  k_->emit(i.at, std::string(shared_ ? "ld.shared" : "ld.global") + std::string(T::memory) + " " +
                     r.reg() + ", " + at + ";");
  return r;
}

template <class T>
void array<T>::store(arg<s32_tag> i, arg<T> v) const {
  if (v.k) k_->own(*v.k);
  std::string value = k_->in_register(v);
  std::string at = address(i);
  k_->emit(i.at, std::string(shared_ ? "st.shared" : "st.global") + std::string(T::memory) + " " +
                     at + ", " + value + ";");
}

template <class T>
val<T> elem_ref<T>::load() const {
  return a_->load(index_);
}
template <class T>
void elem_ref<T>::operator=(elem_ref&& o) && {
  val<T> v = o.load();
  a_->store(index_, arg<T>(v, index_.at));
}
template <class T>
void elem_ref<T>::operator=(arg<T> v) && {
  a_->store(index_, v);
}
template <class T>
void elem_ref<T>::operator+=(arg<T> v) && {
  val<T> x = load();
  a_->store(index_, arg<T>(arg<T>(x, index_.at) + v, index_.at));
}
template <class T>
void elem_ref<T>::operator-=(arg<T> v) && {
  val<T> x = load();
  a_->store(index_, arg<T>(arg<T>(x, index_.at) - v, index_.at));
}
template <class T>
void elem_ref<T>::operator*=(arg<T> v) && {
  val<T> x = load();
  a_->store(index_, arg<T>(arg<T>(x, index_.at) * v, index_.at));
}
template <class T>
elem_ref<T>::operator val<T>() && {
  return load();
}

}  // namespace gpueq::dsl::kl
