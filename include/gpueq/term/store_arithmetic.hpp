// The smart constructors of sums and products (store::add, scale, pow, mul, declared in
// term/store.hpp): constants folded, nested sums and products flattened, operands sorted, like
// terms and like bases merged, sum factors made primitive, exponentials merged, and arithmetic
// with ±∞ where its value is determined. Included by store.hpp at its end; includes it, so it
// compiles alone.
#pragma once

#include <gpueq/term/store.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpueq::term {

inline void store::collect_summand(term_id x, std::uint32_t c, small_rational& c0, int& infinities,
                                   std::vector<sum_item>& items) {
  const node& n = nodes_[x];
  switch (n.k) {
    case kind::constant: c0 += c == one_index ? small_rational(constants_[n.payload]) : small_rational(rational(constants_[c] * constants_[n.payload])); return;
    case kind::pos_inf: infinities |= constants_[c] > 0 ? 1 : 2; return;
    case kind::neg_inf: infinities |= constants_[c] > 0 ? 2 : 1; return;
    case kind::add:
      if (n.count / 2 <= options_.flatten_limit) {
        if (n.payload != zero_index) c0 += c == one_index ? small_rational(constants_[n.payload]) : small_rational(rational(constants_[c] * constants_[n.payload]));
        for (auto e : sum_entries(x))
          items.push_back({c == one_index ? e.coefficient : times(c, e.coefficient), e.term});
        return;
      }
      break;
    case kind::mul:
      if (n.payload != one_index) {
        items.push_back({c == one_index ? n.payload : times(c, n.payload), unit_product(x)});
        return;
      }
      break;
    default: break;
  }
  items.push_back({c, x});
}

inline term_id store::add(std::span<const term_id> xs) {
  if (xs.size() == 1) return xs[0];
  std::vector<sum_item> items;
  items.swap(sum_scratch_);
  items.clear();
  struct give_back {  // return the scratch buffer on every exit path
    std::vector<sum_item>& from;
    std::vector<sum_item>& to;
    ~give_back() { from.swap(to); }
  } guard{items, sum_scratch_};
  small_rational c0 = 0;  // no GMP allocation for the common constants
  int infinities = 0;  // bit 0: +∞ seen, bit 1: −∞ seen
  for (term_id x : xs) collect_summand(x, one_index, c0, infinities, items);
  if (infinities == 3) throw term_error("∞ − ∞ has no real value");
  if (infinities) return infinities == 1 ? pos_inf_ : neg_inf_;
  std::sort(items.begin(), items.end(),
            [this](const sum_item& a, const sum_item& b) { return before(a.term, b.term); });
  // Merge like terms and drop zero coefficients.
  std::size_t out = 0;
  for (std::size_t i = 0; i < items.size();) {
    std::size_t j = i + 1;
    std::uint32_t c = items[i].coefficient;
    if (j < items.size() && items[j].term == items[i].term) {
      rational sum = constants_[c];
      while (j < items.size() && items[j].term == items[i].term) sum += constants_[items[j++].coefficient];
      c = intern_constant(sum);
    }
    if (c != zero_index) items[out++] = {c, items[i].term};
    i = j;
  }
  items.resize(out);
  if (items.empty()) return constant(c0.to_rational());
  if (items.size() == 1 && c0 == 0) return scale(constants_[items[0].coefficient], items[0].term);
  std::vector<std::uint32_t>& s = slot_scratch_;
  s.clear();
  for (auto& it : items) {
    s.push_back(it.coefficient);
    s.push_back(it.term);
  }
  return make(kind::add, intern_constant(c0), s);
}

inline term_id store::scale(const rational& c, term_id t) {
  if (c == 1) return t;
  if (c == 0) {
    if (is_infinite(t)) throw term_error("0 · ∞ has no real value");
    return zero_;
  }
  const node& n = nodes_[t];
  switch (n.k) {
    case kind::constant: return constant(c * constants_[n.payload]);
    case kind::pos_inf: return c > 0 ? pos_inf_ : neg_inf_;
    case kind::neg_inf: return c > 0 ? neg_inf_ : pos_inf_;
    case kind::add: {
      // c·(c0 + Σ cᵢtᵢ) distributes over a flat sum: keeps sums in one canonical shape.
      if (n.count / 2 <= options_.flatten_limit) {
        std::vector<std::uint32_t> s(slots(t).begin(), slots(t).end());
        for (std::size_t i = 0; i < s.size(); i += 2) s[i] = intern_constant(c * constants_[s[i]]);
        return make(kind::add, intern_constant(c * constants_[n.payload]), s);
      }
      break;
    }
    case kind::mul: {
      std::vector<std::uint32_t> s(slots(t).begin(), slots(t).end());
      rational cc = c * constants_[n.payload];
      if (cc == 1 && s.size() == 2 && static_cast<std::int32_t>(s[1]) == 1) return s[0];
      return make(kind::mul, intern_constant(cc), s);
    }
    default: break;
  }
  std::uint32_t s[2] = {t, 1};
  return make(kind::mul, intern_constant(c), s);
}

inline term_id store::pow(term_id base, std::int64_t exponent) {
  if (exponent == 1) return base;
  if (exponent == 0) {
    // x⁰ = 1 as in polynomial algebra (the term language has no 0⁰ to worry about).
    if (is_infinite(base)) throw term_error("∞⁰ has no real value");
    return one_;
  }
  std::vector<product_item> items;
  items.swap(product_scratch_);
  items.clear();
  items.push_back({base, exponent});
  term_id r = product(items);
  items.swap(product_scratch_);
  return r;
}

inline term_id store::mul(std::span<const term_id> xs) {
  if (xs.size() == 1) return xs[0];
  std::vector<product_item> items;
  items.swap(product_scratch_);
  items.clear();
  for (term_id x : xs) items.push_back({x, 1});
  term_id r;
  try {
    r = product(items);
  } catch (...) {
    items.swap(product_scratch_);
    throw;
  }
  items.swap(product_scratch_);
  return r;
}

// A constant's integer power, bounded twice: |e| ≤ 4096, and about 2^22 bits in the result (the
// exact domain's limit on one value), so nested powers such as ((2^4096)^4096)^4096 are a
// term_error (an `unknown` verdict or a parse error) instead of gigabytes of GMP number.
inline constexpr std::uint64_t max_constant_power_bits = std::uint64_t{1} << 22;
inline rational bounded_constant_power(const rational& v, std::int64_t e) {
  if (e > 4096 || e < -4096) throw term_error("constant power too large");
  const std::uint64_t bits = support::bit_size(v) * static_cast<std::uint64_t>(e < 0 ? -e : e);
  if (bits > max_constant_power_bits)
    throw term_error("constant power too large: its value would take about " + std::to_string(bits) +
                     " bits, over the limit of 2^22");
  return support::pow_int(v, e);
}

inline void store::collect_factor(term_id x, std::int64_t e, small_rational& c, int& infinity_sign,
                                  int& infinities, std::vector<product_item>& out,
                                  std::vector<term_id>& exponents) {
  const node& n = nodes_[x];
  switch (n.k) {
    case kind::constant: {
      const rational& v = constants_[n.payload];
      if (v == 0 && e < 0) throw term_error("division by zero");
      c *= small_rational(bounded_constant_power(v, e));
      return;
    }
    case kind::pos_inf:
    case kind::neg_inf:
      if (e < 0) {
        c = 0;  // 1/∞ = 0
        return;
      }
      ++infinities;
      if (n.k == kind::neg_inf && e % 2 != 0) infinity_sign = -infinity_sign;
      return;
    case kind::mul:
      if (n.count / 2 <= options_.flatten_limit) {
        if (e != 1) {
          c *= small_rational(bounded_constant_power(constants_[n.payload], e));
        } else {
          c *= small_rational(constants_[n.payload]);
        }
        for (auto f : product_entries(x)) {
          if (nodes_[f.base].k == kind::exp)
            exponents.push_back(scale(rational(f.exponent * e), arg(f.base)));
          else
            out.push_back({f.base, f.exponent * e});
        }
        return;
      }
      break;
    case kind::exp:
      // (eᵃ)ᵉ = e^(e·a); all exponentials of a product merge into one: eᵃ·eᵇ = eᵃ⁺ᵇ.
      exponents.push_back(scale(rational(e), arg(x)));
      return;
    case kind::add:
      // A sum factor is made primitive: its first entry's coefficient k moves into the product's
      // coefficient, (k·s')ᵉ = kᵉ·s'ᵉ, so (2x + 2)·y and 2·(x + 1)·y are one term and
      // (x + 1)·(−x − 1) merges to −(x + 1)². Long chunks (> flatten_limit) are left as they are.
      if (n.count / 2 <= options_.flatten_limit) {
        const rational k = constants_[*slots_.at(n.first)];  // a copy: scale() may grow constants_
        if (k != 1) {
          c *= small_rational(bounded_constant_power(k, e));
          x = scale(rational(1) / k, x);
        }
      }
      break;
    default: break;
  }
  out.push_back({x, e});
}

inline term_id store::product(std::vector<product_item>& items) {
  small_rational c = 1;
  int infinity_sign = 1, infinities = 0;
  // Scratch buffers (product is not re-entered: exp/add below never build products).
  std::vector<product_item> factors;
  std::vector<term_id> exponents;
  factors.swap(factor_scratch_);
  exponents.swap(exponent_scratch_);
  factors.clear();
  exponents.clear();
  struct give_back {
    store& s;
    std::vector<product_item>& f;
    std::vector<term_id>& e;
    ~give_back() {
      f.swap(s.factor_scratch_);
      e.swap(s.exponent_scratch_);
    }
  } guard{*this, factors, exponents};
  for (auto& it : items) collect_factor(it.base, it.exponent, c, infinity_sign, infinities, factors, exponents);
  if (!exponents.empty()) {
    term_id e = exp(add(exponents));
    if (nodes_[e].k == kind::exp)
      factors.push_back({e, 1});
    else
      collect_factor(e, 1, c, infinity_sign, infinities, factors, exponents);
  }
  std::sort(factors.begin(), factors.end(),
            [this](const product_item& a, const product_item& b) { return before(a.base, b.base); });
  std::size_t out = 0;
  for (std::size_t i = 0; i < factors.size();) {
    std::size_t j = i + 1;
    std::int64_t e = factors[i].exponent;
    while (j < factors.size() && factors[j].base == factors[i].base) e += factors[j++].exponent;
    if (e != 0) factors[out++] = {factors[i].base, e};
    i = j;
  }
  factors.resize(out);
  if (infinities) {
    // Arithmetic on the extended reals, only where the result is determined for every input:
    // c·∞ for a constant c ≠ 0, and ∞ times a product whose sign strict_sign knows (∞·e^x = ∞,
    // −∞·log 2 = −∞, which is what exp2(−∞) needs). 0·∞ and ∞ times a value that may be zero
    // or of either sign (∞·x, ∞·(x − y)) have no value: an error naming the reason.
    if (c == 0) throw term_error("0 · ∞ has no real value");
    int sign = (c > 0) == (infinity_sign > 0) ? 1 : -1;
    for (const auto& f : factors) {
      int fs = strict_sign(f.base);
      if (fs == 0)
        throw term_error("∞ times a symbolic value of unknown sign has no determined value (it may be zero or change sign)");
      if (fs < 0 && f.exponent % 2 != 0) sign = -sign;
    }
    return sign > 0 ? pos_inf_ : neg_inf_;
  }
  if (c == 0) return zero_;
  if (factors.empty()) return constant(c.to_rational());
  if (factors.size() == 1 && factors[0].exponent == 1) return c == 1 ? factors[0].base : scale(c.to_rational(), factors[0].base);
  std::vector<std::uint32_t>& s = slot_scratch_;
  s.clear();
  for (auto& f : factors) {
    if (f.exponent > INT32_MAX || f.exponent < INT32_MIN) throw term_error("exponent out of range");
    s.push_back(f.base);
    s.push_back(static_cast<std::uint32_t>(static_cast<std::int32_t>(f.exponent)));
  }
  return make(kind::mul, intern_constant(c), s);
}

}  // namespace gpueq::term
