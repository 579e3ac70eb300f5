// The smart constructors of functions (store::exp, log, sqrt, max, min, apply, declared in
// term/store.hpp) with their constant folds, and store::strict_sign, the sign a term's
// structure shows. Included by store.hpp at its end; includes it, so it compiles alone.
#pragma once

#include <gpueq/support/sort.hpp>
#include <gpueq/term/store.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpueq::term {

inline term_id store::exp(term_id x) {
  const node& n = nodes_[x];
  switch (n.k) {
    case kind::constant:
      if (constants_[n.payload] == 0) return one_;
      break;
    case kind::neg_inf: return zero_;
    case kind::pos_inf: return pos_inf_;
    case kind::log: return arg(x);  // e^(log y) = y wherever log y is real
    default: break;
  }
  std::uint32_t s[1] = {x};
  return make(kind::exp, 0, s);
}

inline term_id store::log(term_id x) {
  const node& n = nodes_[x];
  switch (n.k) {
    case kind::constant: {
      const rational& v = constants_[n.payload];
      if (v == 1) return zero_;
      if (v == 0) return neg_inf_;
      if (v < 0) throw term_error("log of a negative number has no real value");
      break;
    }
    case kind::neg_inf: throw term_error("log(−∞) has no real value");
    case kind::pos_inf: return pos_inf_;
    case kind::exp: return arg(x);  // log(e^y) = y
    default: break;
  }
  std::uint32_t s[1] = {x};
  return make(kind::log, 0, s);
}

inline term_id store::sqrt(term_id x) {
  const node& n = nodes_[x];
  switch (n.k) {
    case kind::constant: {
      const rational& v = constants_[n.payload];
      if (v < 0) throw term_error("sqrt of a negative number has no real value");
      if (auto r = support::exact_sqrt(v)) return constant(*r);
      break;
    }
    case kind::neg_inf: throw term_error("sqrt(−∞) has no real value");
    case kind::pos_inf: return pos_inf_;
    default: break;
  }
  std::uint32_t s[1] = {x};
  return make(kind::sqrt, 0, s);
}

inline term_id store::extremum(kind k, std::span<const term_id> xs) {
  const bool is_max = k == kind::max;
  // The longest argument that is itself a max (min) goes first: its arguments are sorted and
  // distinct already, so sort_nearly_sorted only moves the others into place. A running maximum
  // m = max(m, x) (online softmax) would otherwise sort its whole list again at every step.
  std::size_t base = xs.size();
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (nodes_[xs[i]].k == k && (base == xs.size() || nodes_[xs[i]].count > nodes_[xs[base]].count)) base = i;
  std::vector<term_id>& args = extremum_scratch_;
  args.clear();
  bool have_constant = false, absorbing = false;
  rational best;
  auto take = [&](term_id x) {
    const node& n = nodes_[x];
    if (n.k == kind::constant) {
      const rational& v = constants_[n.payload];
      if (!have_constant || (is_max ? v > best : v < best)) best = v;
      have_constant = true;
    } else if (n.k == (is_max ? kind::neg_inf : kind::pos_inf)) {
      // max(−∞, x) = x, min(+∞, x) = x
    } else if (n.k == (is_max ? kind::pos_inf : kind::neg_inf)) {
      absorbing = true;
    } else {
      args.push_back(x);
    }
  };
  // The base's arguments, in their order (a constant among them, which sorts first, is taken
  // aside; a max holds no infinity), then the rest.
  if (base != xs.size())
    for (term_id y : this->args(xs[base])) take(y);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i == base) continue;
    if (nodes_[xs[i]].k == k) {
      for (term_id y : this->args(xs[i])) take(y);
    } else {
      take(xs[i]);
    }
  }
  if (absorbing) return is_max ? pos_inf_ : neg_inf_;
  if (have_constant) args.push_back(constant(best));
  support::sort_nearly_sorted(args.begin(), args.end(), [this](term_id a, term_id b) { return before(a, b); });
  args.erase(std::unique(args.begin(), args.end()), args.end());
  if (args.empty()) return is_max ? neg_inf_ : pos_inf_;
  if (args.size() == 1) return args[0];
  return make(k, 0, args);
}

inline int store::strict_sign(term_id t, int& budget) const {
  if (--budget < 0) return 0;
  const node& n = nodes_[t];
  auto sign_of = [](const rational& v) { return v > 0 ? 1 : v < 0 ? -1 : 0; };
  // A sum of signed parts: positive when none is negative and one is positive (and so on).
  auto sum_sign = [](int constant, bool any_positive, bool any_negative) {
    if (any_positive && any_negative) return 0;
    if (any_positive && constant >= 0) return 1;
    if (any_negative && constant <= 0) return -1;
    return 0;
  };
  switch (n.k) {
    case kind::constant: return sign_of(constants_[n.payload]);
    case kind::pos_inf: return 1;
    case kind::neg_inf: return -1;
    case kind::input: return 0;
    case kind::exp: return 1;
    case kind::log: {  // log(c) of a constant c > 0, c ≠ 1 (the store folds the others)
      term_id a = arg(t);
      return is_constant(a) ? sign_of(constants_[nodes_[a].payload] - 1) : 0;
    }
    case kind::sqrt: return strict_sign(arg(t), budget) > 0 ? 1 : 0;
    case kind::apply:
      switch (function_of(t)) {
        case function::tanh: case function::erf: return strict_sign(arg(t), budget);
        case function::abs: return strict_sign(arg(t), budget) != 0 ? 1 : 0;
        default: return 0;
      }
    case kind::mul: {
      int sign = sign_of(constants_[n.payload]);
      for (auto f : product_entries(t)) {
        int fs = strict_sign(f.base, budget);
        if (fs == 0) return 0;
        if (fs < 0 && f.exponent % 2 != 0) sign = -sign;
      }
      return sign;
    }
    case kind::add: {
      bool positive = false, negative = false;
      for (auto e : sum_entries(t)) {
        int es = strict_sign(e.term, budget) * sign_of(constants_[e.coefficient]);
        if (es == 0) return 0;
        (es > 0 ? positive : negative) = true;
      }
      return sum_sign(sign_of(constants_[n.payload]), positive, negative);
    }
    case kind::dot: {
      bool positive = false, negative = false;
      for (auto e : dot_entries(t)) {
        int es = strict_sign(e.x, budget) * strict_sign(e.y, budget) * sign_of(constants_[e.coefficient]);
        if (es == 0) return 0;
        (es > 0 ? positive : negative) = true;
      }
      return sum_sign(0, positive, negative);
    }
    case kind::max:
    case kind::min: {
      // max: > 0 when one argument is, < 0 when every one is; min: the other way round.
      const int absorbing = n.k == kind::max ? 1 : -1;
      bool all = true;
      for (term_id a : args(t)) {
        int as = strict_sign(a, budget);
        if (as == absorbing) return absorbing;
        all = all && as == -absorbing;
      }
      return all ? -absorbing : 0;
    }
  }
  return 0;
}

inline term_id store::apply(function f, std::span<const term_id> xs) {
  if (xs.size() != 1) throw term_error(std::string(name_of(f)) + " takes one argument");
  term_id x = xs[0];
  const node& n = nodes_[x];
  if (n.k == kind::constant) {
    const rational& v = constants_[n.payload];
    if (f == function::abs) return constant(v < 0 ? rational(-v) : v);
    if (v == 0) return f == function::cos ? one_ : zero_;
  }
  if (n.k == kind::pos_inf || n.k == kind::neg_inf) {
    bool negative = n.k == kind::neg_inf;
    switch (f) {
      case function::abs: return pos_inf_;
      case function::tanh:
      case function::erf: return negative ? minus_one_ : one_;
      default: throw term_error(std::string(name_of(f)) + "(∞) has no real value");
    }
  }
  if (f == function::abs && n.k == kind::apply && function_of(x) == function::abs) return x;
  std::uint32_t s[1] = {x};
  return make(kind::apply, static_cast<std::uint32_t>(f), s);
}

}  // namespace gpueq::term
