// Arithmetic of normal forms (member functions of normal_forms, declared in canon/normal_form.hpp):
// products and powers of monomials, the accumulator's merge (finish), sums and products of
// polynomials, the translation-invariant order that picks a denominator's leading term, and
// sums, products and powers of fractions with normalized denominators. Included by
// normal_form.hpp at its end; includes it, so it compiles alone.
#pragma once

#include <gpueq/canon/normal_form.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpueq::canon {

inline mono_id normal_forms::mono_mul(mono_id a, mono_id b, std::int32_t b_power) {
  if (b == unit_mono) return a;
  if (a == unit_mono && b_power == 1) return b;
  // a·b = b·a: one memo entry for both orders (a product of sums meets both).
  std::uint64_t key = b_power == 1 && b < a ? (static_cast<std::uint64_t>(b) << 32) | a
                                            : (static_cast<std::uint64_t>(a) << 32) | b;
  if (b_power == 1) {
    auto it = mono_mul_memo_.find(key);
    if (it != mono_mul_memo_.end()) return it->second;
  }
  boost::container::small_vector<mono_factor, 16> out;
  auto fa = factors(a), fb = factors(b);
  out.reserve(fa.size() + fb.size());
  std::size_t i = 0, j = 0;
  while (i < fa.size() || j < fb.size()) {
    if (j == fb.size() || (i < fa.size() && fa[i].atom < fb[j].atom)) {
      out.push_back(fa[i++]);
    } else if (i == fa.size() || fb[j].atom < fa[i].atom) {
      out.push_back({fb[j].atom, mono_exponent(std::int64_t{fb[j].exponent} * b_power)});
      ++j;
    } else {
      std::int32_t e = mono_exponent(fa[i].exponent + std::int64_t{fb[j].exponent} * b_power);
      if (e != 0) out.push_back({fa[i].atom, e});
      ++i, ++j;
    }
  }
  mono_id r = intern_mono(out);
  if (b_power == 1) mono_mul_memo_.emplace(key, r);
  return r;
}

inline mono_id normal_forms::mono_pow(mono_id a, std::int32_t e) {
  if (a == unit_mono || e == 1) return a;
  std::vector<mono_factor> out(factors(a).begin(), factors(a).end());
  for (auto& f : out) f.exponent = mono_exponent(std::int64_t{f.exponent} * e);
  if (e == 0) out.clear();
  return intern_mono(out);
}

// Sorts by key, least significant 11 bits first: a product of sums sorts 10⁵ keys at a time,
// where std::sort's comparisons were most of the work.
inline void normal_forms::radix_sort(std::vector<sort_key>& keys) {
  std::uint64_t used = 0;
  for (auto& k : keys) used |= k.key;
  auto& other = radix_scratch_;
  other.resize(keys.size());
  constexpr int digit = 11;
  constexpr std::size_t buckets = std::size_t{1} << digit;
  const int bits = static_cast<int>(std::bit_width(used));
  for (int shift = 0; shift < bits; shift += digit) {
    std::array<std::uint32_t, buckets> count{};
    for (auto& k : keys) ++count[(k.key >> shift) & (buckets - 1)];
    if (count[(keys[0].key >> shift) & (buckets - 1)] == keys.size()) continue;  // one digit: in order
    std::uint32_t sum = 0;
    for (auto& c : count) sum += std::exchange(c, sum);
    for (auto& k : keys) other[count[(k.key >> shift) & (buckets - 1)]++] = k;
    keys.swap(other);
  }
}

inline poly_id normal_forms::finish(accumulator& acc) {
  auto& t = acc.terms;
  bool merged = false;
  // A chain's terms often arrive in order already (monomials are numbered as they are first seen).
  if (!std::is_sorted(t.begin(), t.end(), key_less)) {
    if (t.size() < 64) {
      std::sort(t.begin(), t.end(), key_less);
    } else {
      // Long ones (a product of sums) sort 16-byte (key, index) pairs and then gather the terms
      // in that order, summing the coefficients of equal keys (which come in any order) as they
      // are gathered: cheaper than sorting the terms themselves.
      auto& keys = key_scratch_;
      keys.clear();
      // The key (mono, ex) packed into as few bits as the largest ids need, for the radix sort.
      poly_id max_ex = 0;
      for (auto& x : t) max_ex = std::max(max_ex, x.ex);
      const int ex_bits = static_cast<int>(std::bit_width(max_ex));
      for (std::size_t i = 0; i < t.size(); ++i)
        keys.push_back({(static_cast<std::uint64_t>(t[i].mono) << ex_bits) | t[i].ex, static_cast<std::uint32_t>(i)});
      if (keys.size() < 1024) std::sort(keys.begin(), keys.end(), [](const sort_key& a, const sort_key& b) { return a.key < b.key; });
      else radix_sort(keys);
      auto& sorted = term_scratch_;
      sorted.clear();
      sorted.reserve(t.size());
      for (std::size_t i = 0; i < keys.size();) {
        poly_term x = std::move(t[keys[i].index]);
        std::size_t j = i + 1;
        for (; j < keys.size() && keys[j].key == keys[i].key; ++j) x.coefficient += t[keys[j].index].coefficient;
        if (x.coefficient != 0) sorted.push_back(std::move(x));
        i = j;
      }
      t.swap(sorted);
      sorted.clear();
      merged = true;
    }
  }
  std::size_t out = merged ? t.size() : 0;
  for (std::size_t i = merged ? t.size() : 0; i < t.size();) {
    std::size_t j = i + 1;
    while (j < t.size() && t[j].mono == t[i].mono && t[j].ex == t[i].ex) t[i].coefficient += t[j++].coefficient;
    if (t[i].coefficient != 0) {
      if (out != i) t[out] = std::move(t[i]);
      ++out;
    }
    i = j;
  }
  t.resize(out);
  poly_id r = intern_poly(t);
  t.clear();
  if (t.capacity() >= 1024 && spare_terms_.size() < 4) spare_terms_.push_back(std::move(t));
  return r;
}

inline poly_id normal_forms::poly_add(poly_id a, poly_id b) {
  if (a == zero_poly) return b;
  if (b == zero_poly) return a;
  std::uint64_t key = a < b ? (static_cast<std::uint64_t>(a) << 32) | b : (static_cast<std::uint64_t>(b) << 32) | a;
  auto it = add_memo_.find(key);
  if (it != add_memo_.end()) return it->second;
  auto ta = terms(a), tb = terms(b);
  std::vector<poly_term> out;
  out.reserve(ta.size() + tb.size());
  std::size_t i = 0, j = 0;
  auto less = [](const poly_term& x, const poly_term& y) {
    return x.mono != y.mono ? x.mono < y.mono : x.ex < y.ex;
  };
  while (i < ta.size() || j < tb.size()) {
    if (j == tb.size() || (i < ta.size() && less(ta[i], tb[j]))) {
      out.push_back(ta[i++]);
    } else if (i == ta.size() || less(tb[j], ta[i])) {
      out.push_back(tb[j++]);
    } else {
      coefficient_t c = ta[i].coefficient + tb[j].coefficient;
      if (c != 0) out.push_back({ta[i].mono, ta[i].ex, std::move(c)});
      ++i, ++j;
    }
  }
  poly_id r = intern_poly(out);
  add_memo_.emplace(key, r);
  return r;
}

inline poly_id normal_forms::poly_scale(poly_id a, const coefficient_t& c) {
  if (c == 0) return zero_poly;
  if (c == 1) return a;
  std::vector<poly_term> out(terms(a).begin(), terms(a).end());
  for (auto& t : out) t.coefficient *= c;
  return intern_poly(out);
}

// a · (c · m · e^h), a unit. Multiplying by a unit is injective on (mono, ex), so no terms
// merge: map every term and sort.
inline poly_id normal_forms::poly_times_unit(poly_id a, const coefficient_t& c, mono_id m, poly_id h) {
  if (a == zero_poly) return zero_poly;
  if (m == unit_mono && h == zero_poly) return poly_scale(a, c);
  std::vector<poly_term> out;
  out.reserve(terms(a).size());
  for (auto& t : terms(a)) out.push_back({mono_mul(t.mono, m), poly_add(t.ex, h), c == 1 ? t.coefficient : t.coefficient * c});
  std::sort(out.begin(), out.end(), key_less);
  return intern_poly(out);
}

inline poly_id normal_forms::poly_mul(poly_id a, poly_id b) {
  if (a == zero_poly || b == zero_poly) return zero_poly;
  if (a == one_poly_) return b;
  if (b == one_poly_) return a;
  if (terms(a).size() > terms(b).size()) std::swap(a, b);
  if (terms(a).size() == 1) {
    const poly_term& u = terms(a)[0];
    return poly_times_unit(b, u.coefficient, u.mono, u.ex);
  }
  std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | b;
  auto it = mul_memo_.find(key);
  if (it != mul_memo_.end()) return it->second;
  auto ta = terms(a), tb = terms(b);
  if (static_cast<double>(ta.size()) * static_cast<double>(tb.size()) + static_cast<double>(terms_built_) >
      static_cast<double>(options_.term_budget))
    throw unsupported("normal form too large: product of sums with " + std::to_string(ta.size()) + " and " +
                      std::to_string(tb.size()) + " terms would exceed the budget of " +
                      std::to_string(options_.term_budget) + " terms");
  // The accumulator holds every product before merging (a square: each pair once).
  const double na = static_cast<double>(ta.size()), nb = static_cast<double>(tb.size());
  check_expansion(expansion_size(a == b ? na * (na + 1) / 2 : na * nb,
                                 static_cast<double>(max_coefficient_bits(a) + max_coefficient_bits(b))),
                  "multiplying out sums of " + std::to_string(ta.size()) + " and " + std::to_string(tb.size()) + " terms");
  accumulator acc = new_accumulator();
  mul_into(acc, a, b);
  poly_id r = finish(acc);
  mul_memo_.emplace(key, r);
  return r;
}

// Adds the terms of a·b to acc (not merged: finish() does that).
inline void normal_forms::mul_into(accumulator& acc, poly_id a, poly_id b) {
  auto ta = terms(a), tb = terms(b);
  if (a == b) {  // a square: each cross term once, doubled
    for (std::size_t i = 0; i < ta.size(); ++i) {
      const poly_term& x = ta[i];
      acc.add(mono_mul(x.mono, x.mono), poly_add(x.ex, x.ex), x.coefficient * x.coefficient);
      const coefficient_t twice = x.coefficient * coefficient_t(2);
      for (std::size_t j = i + 1; j < ta.size(); ++j)
        acc.add(mono_mul(x.mono, ta[j].mono), poly_add(x.ex, ta[j].ex), twice * ta[j].coefficient);
    }
  } else {
    for (auto& x : ta)
      for (auto& y : tb) acc.add(mono_mul(x.mono, y.mono), poly_add(x.ex, y.ex), x.coefficient * y.coefficient);
  }
}

// Exponent polynomials: compare the coefficients at the largest (mono, ex) where they differ.
inline int normal_forms::compare_poly(poly_id a, poly_id b) const {
  if (a == b) return 0;
  auto ta = terms(a), tb = terms(b);
  std::size_t i = ta.size(), j = tb.size();
  auto key = [](const poly_term& t) { return (static_cast<std::uint64_t>(t.mono) << 32) | t.ex; };
  while (i > 0 || j > 0) {
    if (j == 0 || (i > 0 && key(ta[i - 1]) > key(tb[j - 1]))) return ta[i - 1].coefficient > 0 ? 1 : -1;
    if (i == 0 || key(tb[j - 1]) > key(ta[i - 1])) return tb[j - 1].coefficient > 0 ? -1 : 1;
    if (ta[i - 1].coefficient != tb[j - 1].coefficient) return ta[i - 1].coefficient > tb[j - 1].coefficient ? 1 : -1;
    --i, --j;
  }
  return 0;
}

// Laurent monomials: lexicographic on exponents, largest atom first.
inline int normal_forms::compare_mono(mono_id a, mono_id b) const {
  if (a == b) return 0;
  auto fa = factors(a), fb = factors(b);
  std::size_t i = fa.size(), j = fb.size();
  while (i > 0 || j > 0) {
    if (j == 0 || (i > 0 && fa[i - 1].atom > fb[j - 1].atom)) return fa[i - 1].exponent > 0 ? 1 : -1;
    if (i == 0 || fb[j - 1].atom > fa[i - 1].atom) return fb[j - 1].exponent > 0 ? -1 : 1;
    if (fa[i - 1].exponent != fb[j - 1].exponent) return fa[i - 1].exponent > fb[j - 1].exponent ? 1 : -1;
    --i, --j;
  }
  return 0;
}

// The same denominator is normalized again and again (every output of a softmax shares it, and
// every step of a running quotient meets its own): its inverse leading term and normalized form
// are memoized, also for a denominator that is normalized already (finding its leading term is a
// pass over all its terms).
inline normal_forms::normalizer normal_forms::normalizer_of(poly_id den) {
  if (auto it = normalizers_.find(den); it != normalizers_.end()) return it->second;
  auto td = terms(den);
  const poly_term* lead = &td[0];
  for (auto& t : td.subspan(1)) {
    int c = compare_poly(t.ex, lead->ex);
    if (c > 0 || (c == 0 && compare_mono(t.mono, lead->mono) > 0)) lead = &t;
  }
  normalizer z{coefficient_t(1), unit_mono, zero_poly, den};
  if (!(lead->coefficient == 1 && lead->mono == unit_mono && lead->ex == zero_poly)) {
    z = {coefficient_t(1) / lead->coefficient, mono_pow(lead->mono, -1), poly_scale(lead->ex, coefficient_t(-1)), zero_poly};
    z.den = poly_times_unit(den, z.c, z.m, z.h);
  }
  normalizers_.emplace(den, z);
  return z;
}

inline fraction normal_forms::normalize(poly_id num, poly_id den) {
  if (den == zero_poly) throw term::term_error("division by zero");
  if (den == one_poly_ || num == zero_poly) return {num, one_poly_};
  const normalizer z = normalizer_of(den);
  return {poly_times_unit(num, z.c, z.m, z.h), z.den};
}

inline fraction normal_forms::add_fractions(const fraction& a, const fraction& b) {
  if (a.num == zero_poly) return b;
  if (b.num == zero_poly) return a;
  if (a.den == b.den) return normalize(poly_add(a.num, b.num), a.den);
  return normalize(poly_add(poly_mul(a.num, b.den), poly_mul(b.num, a.den)), poly_mul(a.den, b.den));
}

inline fraction normal_forms::mul_fractions(const fraction& a, const fraction& b) {
  if (a.num == zero_poly || b.num == zero_poly) return {zero_poly, one_poly_};
  if (a.num == one_poly_ && a.den == one_poly_) return b;
  if (b.num == one_poly_ && b.den == one_poly_) return a;
  // (n/d)·d' with d' = d·unit cancels to n·unit before anything is multiplied out: a running
  // quotient rescaled by its own denominator (FlashAttention's O·l/l_new) stays linear in size
  // instead of doubling its denominator at every step.
  poly_id an = a.num, ad = a.den, bn = b.num, bd = b.den;
  if (auto u = unit_quotient(an, bd)) an = *u, bd = one_poly_;
  if (auto u = unit_quotient(bn, ad)) bn = *u, ad = one_poly_;
  return normalize(poly_mul(an, bn), poly_mul(ad, bd));
}

// p / d when p is d times a single term (d normalized, not 1), else nothing.
inline std::optional<poly_id> normal_forms::unit_quotient(poly_id p, poly_id d) {
  if (d == one_poly_ || p == zero_poly || terms(p).size() != terms(d).size()) return std::nullopt;
  if (p == d) return one_poly_;
  // Multiplying by c·m·e^h maps monomials one to one, so p and d must have as many distinct
  // monomials (terms are sorted by monomial first): a pass without arithmetic rules out most
  // candidates (Σⱼ vⱼ·e^(sⱼ) against Σⱼ e^(sⱼ)) before p is normalized.
  auto distinct_monos = [&](poly_id x) {
    std::size_t n = 0;
    mono_id last = 0;
    for (auto& t : terms(x)) {
      if (n == 0 || t.mono != last) ++n;
      last = t.mono;
    }
    return n;
  };
  if (distinct_monos(p) != distinct_monos(d)) return std::nullopt;
  const normalizer z = normalizer_of(p);  // p·z is p normalized, z the inverse of p's leading term
  if (z.den != d) return std::nullopt;
  return poly_times_unit(one_poly_, coefficient_t(1) / z.c, mono_pow(z.m, -1), poly_scale(z.h, coefficient_t(-1)));
}

inline fraction normal_forms::pow_fraction(fraction a, std::int64_t e) {
  if (e == 1) return a;
  if (e < 0) {
    if (a.num == zero_poly) throw term::term_error("division by zero");
    a = normalize(a.den, a.num);
    e = -e;
  }
  check_power(a.num, e);
  check_power(a.den, e);
  fraction result{one_poly_, one_poly_};
  while (e) {
    if (e & 1) result = mul_fractions(result, a);
    e >>= 1;
    if (e) a = mul_fractions(a, a);
  }
  return result;
}

}  // namespace gpueq::canon
