// A specification: what a candidate kernel's outputs should be, given as terms in a store (for
// the proof) and as doubles at concrete inputs (for counterexamples and the float32 report). It
// plugs into a check at the compare stage, in the place of a reference kernel's outputs
// (check/driver.hpp); nothing pretends it is a kernel. The DSL's from_dsl (check/spec_check.hpp)
// is the usual way to write one. Pair specs name a registered specification as their reference
// ("reference": {"spec": NAME}): register_spec() adds a factory under a name, find_spec() and
// spec_of() look one up.
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/support/diagnostics.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::check {

// Concrete inputs: a tensor element by name and flat row-major index, or a scalar by name (index 0).
using input_source = std::function<double(std::string_view name, std::uint64_t flat)>;

struct specification {
  std::string name, description;
  // The output tensors, one term per element, built in the store the kernel runs in.
  std::function<outputs(term::store&)> lower;
  // The output tensors evaluated in double at concrete inputs.
  std::function<std::map<std::string, std::vector<double>>(const input_source&)> evaluate;
};

// ---- the registry of named specifications -------------------------------------------------------
using spec_factory = std::function<specification()>;

inline std::map<std::string, spec_factory, std::less<>>& spec_registry() {
  static std::map<std::string, spec_factory, std::less<>> registry;
  return registry;
}
// Returns true, so that `inline const bool registered = register_spec(…);` registers at start-up.
inline bool register_spec(std::string name, spec_factory factory) {
  spec_registry()[std::move(name)] = std::move(factory);
  return true;
}
inline std::optional<specification> find_spec(std::string_view name) {
  auto& r = spec_registry();
  if (auto it = r.find(name); it != r.end()) return it->second();
  return std::nullopt;
}
// The specification a pair spec names as its reference; a diagnostic naming the spec file (and
// the registered names) when there is none.
inline specification spec_of(const pair_spec& spec) {
  if (!spec.reference_spec) throw support::diagnostic_error({spec.file, {}, "the reference is a kernel, not a specification"});
  if (auto sp = find_spec(*spec.reference_spec)) return *sp;
  std::string known;
  for (auto& [name, f] : spec_registry()) known += (known.empty() ? "" : ", ") + name;
  throw support::diagnostic_error({spec.file, {}, "reference.spec: no specification named '" + *spec.reference_spec +
                                                      "' is registered" + (known.empty() ? "" : " (known: " + known + ")")});
}

}  // namespace gpueq::check
