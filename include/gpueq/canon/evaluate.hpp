// Numeric evaluation of terms at a point: in double to search for a separating input quickly,
// and in 50-digit binary floating point (Boost.Multiprecision, header-only) to confirm it before a
// counterexample is reported. A point where a side has no finite real value (log of a negative,
// overflow) is reported as such, so the search can move on.
#pragma once

#include <gpueq/term/store.hpp>

#include <boost/math/special_functions/erf.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <cmath>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace gpueq::canon {

using high_precision = boost::multiprecision::cpp_bin_float_50;

// Values of the inputs: a function from an input term to its value (as an exact rational).
using assignment = std::function<support::rational(term::term_id input)>;

template <class T>
class evaluator {
 public:
  evaluator(const term::store& s, assignment inputs) : s_(s), inputs_(std::move(inputs)) {}

  // The value, or nullopt when it is not a finite real (NaN, ±∞ mid-way, a domain error).
  std::optional<T> operator()(term::term_id root) {
    using std::isfinite;
    if (auto it = memo_.find(root); it != memo_.end()) return checked(it->second);
    std::vector<std::pair<term::term_id, std::uint32_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [t, next] = stack.back();
      std::uint32_t n = static_cast<std::uint32_t>(s_.child_count(t));
      if (next < n) {
        term::term_id c = s_.child(t, next++);
        if (!memo_.contains(c)) stack.push_back({c, 0});
        continue;
      }
      memo_.emplace(t, compute(t));
      stack.pop_back();
    }
    return checked(memo_.at(root));
  }

  // Whether `root` came out ±∞ (an overflow of T's range, not a NaN from a domain error); call
  // after operator() on the same root.
  bool infinite(term::term_id root) const {
    using boost::multiprecision::isinf;
    using std::isinf;
    auto it = memo_.find(root);
    return it != memo_.end() && isinf(it->second);
  }

 private:
  static std::optional<T> checked(const T& v) {
    using boost::multiprecision::isfinite;
    using std::isfinite;
    if (!isfinite(v)) return std::nullopt;
    return v;
  }
  static T from_rational(const support::rational& r) {
    if constexpr (std::is_same_v<T, double>) {
      return r.template convert_to<double>();
    } else {
      return T(boost::multiprecision::numerator(r)) / T(boost::multiprecision::denominator(r));
    }
  }
  const T& constant(std::uint32_t index) {
    auto it = constants_.find(index);
    if (it != constants_.end()) return it->second;
    return constants_.emplace(index, from_rational(s_.constant_value(index))).first->second;
  }

  T compute(term::term_id t) {
    using term::kind;
    using std::exp, std::log, std::sqrt, std::tanh, std::sin, std::cos, std::abs;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const term::node& n = s_.at(t);
    switch (n.k) {
      case kind::constant: return constant(n.payload);
      case kind::pos_inf: return std::numeric_limits<T>::infinity();
      case kind::neg_inf: return -std::numeric_limits<T>::infinity();
      case kind::input: return from_rational(inputs_(t));
      case kind::add: {
        T v = constant(n.payload);
        for (auto e : s_.sum_entries(t)) v += constant(e.coefficient) * memo_.at(e.term);
        return v;
      }
      case kind::dot: {
        T v = 0;
        for (auto e : s_.dot_entries(t)) v += constant(e.coefficient) * memo_.at(e.x) * memo_.at(e.y);
        return v;
      }
      case kind::mul: {
        T v = constant(n.payload);
        for (auto f : s_.product_entries(t)) {
          const T& b = memo_.at(f.base);
          if (f.exponent == 1) {
            v *= b;
          } else {
            T p = 1;
            T base = f.exponent < 0 ? T(1) / b : b;
            for (std::int64_t e = f.exponent < 0 ? -static_cast<std::int64_t>(f.exponent) : f.exponent; e; e >>= 1) {
              if (e & 1) p *= base;
              base *= base;
            }
            v *= p;
          }
        }
        return v;
      }
      case kind::exp: return exp(memo_.at(s_.arg(t)));
      case kind::log: {
        const T& a = memo_.at(s_.arg(t));
        return a > 0 ? T(log(a)) : nan;
      }
      case kind::sqrt: {
        const T& a = memo_.at(s_.arg(t));
        return a >= 0 ? T(sqrt(a)) : nan;
      }
      case kind::max:
      case kind::min: {
        auto args = s_.args(t);
        T v = memo_.at(args[0]);
        for (auto a : args.subspan(1)) {
          const T& x = memo_.at(a);
          if (n.k == kind::max ? x > v : x < v) v = x;
        }
        return v;
      }
      case kind::apply: {
        const T& a = memo_.at(s_.arg(t));
        switch (s_.function_of(t)) {
          case term::function::tanh: return tanh(a);
          case term::function::erf: return boost::math::erf(a);
          case term::function::abs: return abs(a);
          case term::function::sin: return sin(a);
          case term::function::cos: return cos(a);
        }
        return nan;
      }
    }
    return nan;
  }

  const term::store& s_;
  assignment inputs_;
  boost::unordered_flat_map<term::term_id, T> memo_;
  boost::unordered_flat_map<std::uint32_t, T> constants_;
};

}  // namespace gpueq::canon
