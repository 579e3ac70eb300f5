// Specifications from the DSL: from_dsl() turns output definitions (dsl::define(y(i), ...)) into
// a check::specification (check/specification.hpp): the terms every output element should equal,
// in the store the kernel runs in, and the same outputs evaluated in double. check_pair
// (check/driver.hpp) compares a candidate kernel with a specification at its compare stage when
// the pair's reference is one; check_against_spec takes the specification directly.
#pragma once

#include <gpueq/check/driver.hpp>
#include <gpueq/check/specification.hpp>
#include <gpueq/dsl/domains.hpp>
#include <gpueq/dsl/expr.hpp>

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpueq::check {


namespace detail {
struct spec_source_inputs {
  const input_source* source;
  double operator()(std::string_view name, std::size_t i) const { return (*source)(name, i); }
};
}  // namespace detail

// A specification from DSL output definitions (dsl::define(y(i), …), one per output tensor).
template <class... Defs>
specification from_dsl(std::string name, std::string description, Defs... defs) {
  specification sp;
  sp.name = std::move(name);
  sp.description = std::move(description);
  sp.lower = [defs...](term::store& s) {
    outputs out;
    dsl::lowering lower{s};
    auto one = [&](const auto& def) {
      output_values& v = out[std::string(def.name)];
      v.assign(def.size(), std::nullopt);
      def.tabulate(lower, [&](std::size_t n, term::term_id t) { v[n] = t; });
    };
    (one(defs), ...);
    return out;
  };
  sp.evaluate = [defs...](const input_source& in) {
    std::map<std::string, std::vector<double>> out;
    dsl::numeric<double, detail::spec_source_inputs> d{detail::spec_source_inputs{&in}};
    auto one = [&](const auto& def) {
      std::vector<double>& v = out[std::string(def.name)];
      v.assign(def.size(), 0.0);
      def.tabulate(d, [&](std::size_t n, double x) { v[n] = x; });
    };
    (one(defs), ...);
    return out;
  };
  return sp;
}

}  // namespace gpueq::check
