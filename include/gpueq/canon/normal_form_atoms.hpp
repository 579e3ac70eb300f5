// Atoms and terms (member functions of normal_forms, declared in canon/normal_form.hpp): the
// exponent of e^a for a non-polynomial a, applications (max, sqrt, log, tanh, ...) rebuilt on
// canonical arguments, and a polynomial written back as a term. Included by normal_form.hpp at
// its end; includes it, so it compiles alone.
#pragma once

#include <gpueq/canon/normal_form.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpueq::canon {

// The exponent of e^a when a is not a polynomial: a = P + Σᵢ qᵢ/Dᵢ (its polynomial part and one
// fraction per distinct denominator, as the sum was written). Each fraction, scaled so that its
// numerator's first coefficient is 1, becomes an atom of the exponent: e^a = e^P·Πᵢ e^(cᵢ·atomᵢ).
// So e^a·e^b = e^(a+b) and (e^a)^k = e^(k·a) hold for such exponents too. A fraction whose
// denominator divides its numerator only after a gcd is not reduced (gpueq has no polynomial
// gcd): such exponents may stay apart and end as "unknown", never as a wrong "equal".
inline poly_id normal_forms::exponent_of(term_id a) {
  coefficient_t scale = 1;
  // c·(sum): split the sum and scale.
  while (s_.kind_of(a) == term::kind::mul && s_.product_entries(a).size() == 1 &&
         s_.product_entries(a)[0].exponent == 1) {
    scale *= s_.product_coefficient(a);
    a = s_.product_entries(a)[0].base;
  }
  sum_parts parts;
  if (s_.kind_of(a) == term::kind::add) {
    parts = parts_of_sum(a);
  } else {
    const fraction f = is_monomial(a) || memo_.contains(a) ? form(a) : memo_.emplace(a, compute(a)).first->second;
    parts.polynomial = f.den == one_poly_ ? f.num : zero_poly;
    if (f.den != one_poly_) parts.fractions.push_back(f);
  }
  poly_id e = parts.polynomial;
  for (auto& g : parts.fractions) {
    fraction f = normalize(g.num, g.den);
    if (f.num == zero_poly) continue;
    if (f.den == one_poly_) {
      e = poly_add(e, f.num);
      continue;
    }
    coefficient_t c = terms(f.num)[0].coefficient;
    f.num = poly_scale(f.num, coefficient_t(1) / c);
    term_id atom = s_.div(poly_to_term(f.num), poly_to_term(f.den));
    e = poly_add(e, poly_scale(atom_fraction(atom).num, c));
  }
  return scale == 1 ? e : poly_scale(e, scale);
}

// max/min/sqrt/log/opaque functions (and exp of a non-polynomial): rebuild the application on
// canonical arguments; if that simplifies (max(x, x) = x), the simpler term's form is used.
inline fraction normal_forms::canonical_atom(term_id t) {
  using term::kind;
  // Arguments that are polynomials with two or more terms would be rebuilt as sums, on which no
  // constructor simplifies (max/min only sort and deduplicate them): such an application is keyed
  // by its kind and its arguments' forms instead (max/min: sorted, duplicates dropped), and the
  // first one seen stands for all of them. Rebuilding the arguments as terms cost more than
  // everything else in a LayerNorm decision (a variance's 33k monomials under a sqrt), and a tenth
  // of an attention decision (every score of a row under its max).
  if (const kind k = s_.kind_of(t); k != kind::exp) {
    std::vector<std::uint32_t> key{static_cast<std::uint32_t>(k), k == kind::apply ? s_.at(t).payload : 0u};
    bool plain = true;
    for (term_id a : s_.args(t)) {
      const fraction f = form(a);
      if (f.den != one_poly_ || terms(f.num).size() < 2) {
        plain = false;
        break;
      }
      key.push_back(f.num);
    }
    if (plain) {
      if (k == kind::max || k == kind::min) {
        std::sort(key.begin() + 2, key.end());
        key.erase(std::unique(key.begin() + 2, key.end()), key.end());
        if (key.size() == 3) return {key[2], one_poly_};  // max(a, a) = a
      }
      return atom_fraction(atom_of_form_.try_emplace(std::move(key), t).first->second);
    }
  }
  std::vector<term_id> args;
  for (term_id a : s_.args(t)) args.push_back(to_term(form(a)));
  term_id u;
  switch (s_.kind_of(t)) {
    case kind::exp: u = s_.exp(args[0]); break;
    case kind::log: u = s_.log(args[0]); break;
    case kind::sqrt: u = s_.sqrt(args[0]); break;
    case kind::max: u = s_.max(args); break;
    case kind::min: u = s_.min(args); break;
    case kind::apply: u = s_.apply(s_.function_of(t), args); break;
    default: throw unsupported("not an atom");
  }
  kind uk = s_.kind_of(u);
  bool atom_kind = uk == kind::log || uk == kind::sqrt || uk == kind::max || uk == kind::min || uk == kind::apply ||
                   (uk == kind::exp && uk == s_.kind_of(t));
  if (atom_kind || uk == kind::input) return atom_fraction(u);
  // The application simplified to something else: normalize that (its parts are canonical).
  return nested_of(u);
}

inline term_id normal_forms::poly_to_term(poly_id p) {
  if (auto it = poly_term_memo_.find(p); it != poly_term_memo_.end()) return it->second;
  std::vector<term_id> summands;
  summands.reserve(terms(p).size());
  for (auto& t : terms(p)) {
    // c·m·e^h as mul() would build it from its factors, made from m's own node: a long argument
    // (a variance's 33k monomials under a sqrt) was mostly spent in mul()'s general path.
    term_id x = mono_term(t.mono);
    if (t.ex != zero_poly) {
      term_id e = s_.exp(poly_to_term(t.ex));
      x = t.mono == unit_mono ? e : s_.mul(x, e);
    }
    summands.push_back(t.mono == unit_mono && t.ex == zero_poly ? s_.constant(t.coefficient.to_rational())
                       : t.coefficient == 1                     ? x
                                                                : s_.scale(t.coefficient.to_rational(), x));
  }
  term_id r = summands.empty() ? s_.zero() : s_.add(summands);
  poly_term_memo_.emplace(p, r);
  return r;
}

}  // namespace gpueq::canon
