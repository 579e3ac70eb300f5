// The normal form of a sum (member functions of normal_forms, declared in canon/normal_form.hpp):
// parts_of_sum walks into the sums, dots, rescaled sums and products of sums it may inline and
// accumulates their terms by denominator, and a product of sums used by a sum is expanded over
// its parts (over_parts; see part_min_terms). Included by normal_form.hpp at its end; includes
// it, so it compiles alone.
#pragma once

#include <gpueq/canon/normal_form.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace gpueq::canon {

// A sum: walk into inlined sub-sums, accumulating c·(normal form) grouped by denominator.
inline normal_forms::sum_parts normal_forms::parts_of_sum(term_id t) {
  struct group {
    poly_id den;
    accumulator acc;
  };
  std::vector<group> groups;  // sums of fractions with a denominator other than 1
  accumulator plain = new_accumulator();
  auto group_for = [&](poly_id den) -> accumulator& {
    for (auto& g : groups)
      if (g.den == den) return g.acc;
    groups.push_back({den, new_accumulator()});
    return groups.back().acc;
  };
  // A walked node and the unit c·m·e^h its terms are multiplied by.
  struct item {
    term_id u;
    coefficient_t c;
    mono_id m;
    poly_id h;
  };
  // c·(m·e^h)·f for a form f.
  auto add_form = [&](const fraction& f, const coefficient_t& c, mono_id m, poly_id h) {
    accumulator& acc = f.den == one_poly_ ? plain : group_for(f.den);
    for (auto& x : terms(f.num)) acc.add(mono_mul(x.mono, m), poly_add(x.ex, h), x.coefficient * c);
  };
  // Terms of walked products of sums, by the product of parts they multiply (a monomial of part
  // atoms, see over_parts): like products of parts meet here and are multiplied out once, below.
  std::vector<std::pair<mono_id, accumulator>> by_parts;
  boost::unordered_flat_map<mono_id, std::size_t> parts_group;
  std::vector<item> work{{t, coefficient_t(1), unit_mono, zero_poly}};
  coefficient_t c0 = 0;
  while (!work.empty()) {
    item w = std::move(work.back());
    work.pop_back();
    const bool plain_unit = w.m == unit_mono && w.h == zero_poly;
    if (unit_product(w.u)) {  // c·Π fᵢ^eᵢ, each fᵢ a single term: one term, folded like a unit
      coefficient_t c = w.c * coefficient(s_.at(w.u).payload);
      mono_id m = w.m;
      poly_id h = w.h;
      bool single = true;
      for (auto f : s_.product_entries(w.u))
        if (!fold_factor(f.base, f.exponent, m, h)) {
          single = false;  // an application that simplified to a sum (exp(log(a + b)))
          break;
        }
      if (!single) add_form(form(w.u), w.c, w.m, w.h);
      else if (m == unit_mono && h == zero_poly) c0 += c;
      else plain.add(m, h, std::move(c));
      continue;
    }
    if (s_.kind_of(w.u) == term::kind::dot) {  // Σ cᵢ·xᵢ·yᵢ: each product is one term c·m·e^h
      const auto entries = s_.dot_entries(w.u);
      constexpr std::size_t ahead = 8;
      auto hint = [&](std::size_t j) {
        if (j < entries.size()) read_ahead(entries[j].x), read_ahead(entries[j].y);
      };
      for (std::size_t j = 0; j < ahead; ++j) hint(j);
      for (std::size_t j = 0; j < entries.size(); ++j) {
        hint(j + ahead);
        const term::dot_entry e = entries[j];
        coefficient_t c = e.coefficient == term::store::one_index ? w.c : w.c * coefficient(e.coefficient);
        mono_id m = w.m;
        poly_id h = w.h;
        if (fold_factor(e.x, 1, m, h) && fold_factor(e.y, 1, m, h)) {
          if (m == unit_mono && h == zero_poly) c0 += c;
          else plain.add(m, h, std::move(c));
        } else {  // a factor whose form is not one term (exp(log(a + b)))
          add_form(mul_fractions(form(e.x), form(e.y)), c, w.m, w.h);
        }
      }
      continue;
    }
    if (s_.kind_of(w.u) == term::kind::mul && rescaled_sum(w.u) == term::no_term) {  // a product of sums
      const std::optional<poly_id> p = over_parts(w.u);
      if (!p) {  // not a polynomial: its form, as for an entry that is not walked
        add_form(form(w.u), w.c, w.m, w.h);
        continue;
      }
      for (auto& x : terms(*p)) {
        const auto [rest, parts] = split_parts(x.mono);
        accumulator* acc = &plain;
        if (parts != unit_mono) {
          auto [it, fresh] = parts_group.try_emplace(parts, by_parts.size());
          if (fresh) by_parts.emplace_back(parts, new_accumulator());
          acc = &by_parts[it->second].second;
        }
        acc->add(mono_mul(rest, w.m), poly_add(x.ex, w.h), x.coefficient * w.c);
      }
      continue;
    }
    if (s_.kind_of(w.u) == term::kind::mul) {  // a walked rescaled sum S·u: fold u into the unit
      const term_id sum = rescaled_sum(w.u);
      for (auto f : s_.product_entries(w.u))
        if (f.base != sum) fold_factor(f.base, f.exponent, w.m, w.h);  // an input or an exponential
      work.push_back({sum, w.c * coefficient(s_.at(w.u).payload), w.m, w.h});
      continue;
    }
    if (s_.at(w.u).payload != term::store::zero_index) {  // the sum's constant
      coefficient_t k = w.c * coefficient(s_.at(w.u).payload);
      if (plain_unit) c0 += k;
      else plain.add(w.m, w.h, std::move(k));
    }
    // The entries' nodes (and cached monomials) are read ahead: a chain's products lie far apart
    // in the store, and without the hints each entry waits for its own cache miss.
    const auto entries = s_.sum_entries(w.u);
    constexpr std::size_t ahead = 16;
    for (auto e : entries.first(std::min(ahead, entries.size()))) read_ahead(e.term);
    for (std::size_t j = 0; j < entries.size(); ++j) {
      if (j + ahead < entries.size()) read_ahead(entries[j + ahead].term);
      const term::sum_entry e = entries[j];
      coefficient_t c = e.coefficient == term::store::one_index ? w.c : w.c * coefficient(e.coefficient);
      if (is_monomial(e.term)) {  // the bulk of a chain: its monomial goes straight in
        const term::node& n = s_.at(e.term);
        if (n.k == term::kind::constant) {
          c *= coefficient(n.payload);
          if (plain_unit) c0 += c;
          else plain.add(w.m, w.h, std::move(c));
          continue;
        }
        if (n.k == term::kind::mul && n.payload != term::store::one_index) c *= coefficient(n.payload);
        plain.add(mono_mul(monomial_of(e.term), w.m), w.h, std::move(c));
        continue;
      }
      if (walk_.contains(e.term)) {
        work.push_back({e.term, std::move(c), w.m, w.h});
        continue;
      }
      add_form(form(e.term), c, w.m, w.h);
    }
  }
  // Each distinct product of parts, times the sum of everything it multiplies.
  for (auto& [parts, acc] : by_parts) mul_into(plain, finish(acc), parts_product(parts));
  plain.add(unit_mono, zero_poly, c0);
  sum_parts parts{finish(plain), {}};
  for (auto& g : groups) parts.fractions.push_back({finish(g.acc), g.den});
  return parts;
}

// A product that a sum may expand over parts: some factor is a sum with a positive exponent, and
// none is a sum in a denominator (a rescaled sum S·u keeps its own walk).
inline bool normal_forms::product_of_sums(term_id t) const {
  if (s_.kind_of(t) != term::kind::mul || rescaled_sum(t) != term::no_term) return false;
  bool any = false;
  for (auto f : s_.product_entries(t)) {
    if (s_.kind_of(f.base) != term::kind::add) continue;
    if (f.exponent < 0) return false;
    any = true;
  }
  return any;
}

// The product as a polynomial over parts (see part_min_terms): its sum factors over their parts,
// its other factors as their forms; nothing when a factor is not a polynomial.
inline std::optional<poly_id> normal_forms::over_parts(term_id product) {
  poly_id r = constant_fraction(s_.product_coefficient(product)).num;
  for (auto f : s_.product_entries(product)) {
    poly_id p;
    if (s_.kind_of(f.base) == term::kind::add && f.exponent > 0) {
      std::optional<poly_id> q = sum_over_parts(f.base);
      if (!q) return std::nullopt;
      p = poly_pow(*q, f.exponent);
    } else {
      fraction g = pow_fraction(form(f.base), f.exponent);
      if (g.den != one_poly_) return std::nullopt;
      p = g.num;
    }
    r = poly_mul(r, p);
  }
  return r;
}

// A sum over its parts: its entries that are parts become part atoms, the others contribute their
// forms. A sum none of whose entries is a part is itself a part when it is one (Σᵢ S² → (Σ 1)·S²),
// else its form.
inline std::optional<poly_id> normal_forms::sum_over_parts(term_id sum) {
  if (auto it = over_parts_memo_.find(sum); it != over_parts_memo_.end()) return it->second;
  std::optional<poly_id> r;
  const auto entries = s_.sum_entries(sum);
  if (std::none_of(entries.begin(), entries.end(), [&](const term::sum_entry& e) { return is_part(e.term); })) {
    if (is_part(sum)) {
      const poly_term atom{part_mono(sum), zero_poly, coefficient_t(1)};
      r = intern_poly(std::span<const poly_term>(&atom, 1));
    } else if (fraction f = form(sum); f.den == one_poly_) {
      r = f.num;
    }
  } else {
    accumulator acc = new_accumulator();
    acc.add(unit_mono, zero_poly, coefficient_t(s_.sum_constant(sum)));
    bool polynomial = true;
    for (auto e : entries) {
      const coefficient_t& c = coefficient(e.coefficient);
      if (is_part(e.term)) {
        acc.add(part_mono(e.term), zero_poly, c);
        continue;
      }
      const fraction f = form(e.term);
      if (f.den != one_poly_) {
        polynomial = false;
        break;
      }
      for (auto& x : terms(f.num)) acc.add(x.mono, x.ex, x.coefficient * c);
    }
    if (!polynomial) acc.terms.clear();
    poly_id p = finish(acc);
    if (polynomial) r = p;
  }
  over_parts_memo_.emplace(sum, r);
  return r;
}

// A monomial split into (its other atoms, its part atoms).
inline std::pair<mono_id, mono_id> normal_forms::split_parts(mono_id m) {
  auto fs = factors(m);
  if (std::none_of(fs.begin(), fs.end(), [&](const mono_factor& f) { return part_atoms_.contains(f.atom); }))
    return {m, unit_mono};
  if (auto it = split_memo_.find(m); it != split_memo_.end()) return it->second;
  std::vector<mono_factor> rest, parts;
  for (auto f : fs) (part_atoms_.contains(f.atom) ? parts : rest).push_back(f);
  std::pair<mono_id, mono_id> r{intern_mono(rest), intern_mono(parts)};
  split_memo_.emplace(m, r);
  return r;
}

// Π Pᵢ^eᵢ for a monomial of part atoms, multiplied out (each part's form is memoized).
inline poly_id normal_forms::parts_product(mono_id parts) {
  if (auto it = parts_product_memo_.find(parts); it != parts_product_memo_.end()) return it->second;
  poly_id r = one_poly_;
  for (auto f : factors(parts)) r = poly_mul(r, poly_pow(form(f.atom).num, f.exponent));
  parts_product_memo_.emplace(parts, r);
  return r;
}

inline fraction normal_forms::compute_sum(term_id t) {
  sum_parts parts = parts_of_sum(t);
  fraction result{parts.polynomial, one_poly_};
  for (auto& f : parts.fractions) result = add_fractions(result, normalize(f.num, f.den));
  return result;
}

}  // namespace gpueq::canon
