// Checking a kernel against a specification from C++: layernorm stated in the DSL (a few lines,
// with let-bound mean and variance and a symbolic ε), the Welford kernel of the corpus proved
// equal to it, and the kernel with the unbiased variance (÷ (n − 1)) refuted with a
// counterexample whose reference value is the specification evaluated in double.
//   build/examples/example_spec_vs_kernel
#include <gpueq/gpueq.hpp>

#include <cstdio>
#include <string>

using namespace gpueq;

namespace ln {  // the DSL names, out of the global namespace (where ::gamma is the C library's)

constexpr long N = 256;
constexpr dsl::tensor<"x", N> x;
constexpr dsl::tensor<"gamma", N> gamma;
constexpr dsl::tensor<"beta", N> beta;
constexpr dsl::tensor<"y", N> y;
constexpr dsl::scalar<"eps"> eps;  // the kernel's symbolic scalar parameter of the same name
constexpr dsl::var<'i'> i;
constexpr dsl::var<'j'> j;

constexpr auto layernorm() {
  auto mean = dsl::let(dsl::sum<j, 0, N>(x(j)) / N);
  auto variance = dsl::let(dsl::sum<j, 0, N>((x(j) - mean) * (x(j) - mean)) / N);
  return dsl::define(y(i), (x(i) - mean) * dsl::rsqrt(variance + eps) * gamma(i) + beta(i));
}

}  // namespace ln

// A pair spec built in code whose reference is a specification: only the candidate is a kernel.
check::pair_spec against(const std::string& file, const std::string& entry) {
  constexpr long N = ln::N;
  check::pair_spec spec;
  spec.file = "(built in code)";
  for (const char* t : {"x", "gamma", "beta"}) spec.tensors[t] = {check::dtype::f32, {N}, check::role::input};
  spec.tensors["y"] = {check::dtype::f32, {N}, check::role::output};
  spec.scalars["eps"] = {check::dtype::f32, 0, true};
  spec.scalars["n"] = {std::nullopt, N, false};
  spec.reference_spec = "layernorm (in code)";
  spec.candidate.ptx = file;
  spec.candidate.path = std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/layernorm/" + file;
  spec.candidate.entry = entry;
  spec.candidate.params = {"x", "gamma", "beta", "y", "eps", "n"};
  spec.candidate.block = {entry == "layernorm_unbiased" ? 32u : 128u, 1, 1};
  return spec;
}

int main() {
  check::specification layernorm = check::from_dsl("layernorm", "biased layernorm of one row of 256", ln::layernorm());

  check::pair_spec welford = against("layernorm_welford.ptx", "layernorm_welford");
  check::check_result good = check::check_against_spec(welford, check::resolve(welford), layernorm);
  std::printf("layernorm_welford: %s\n  %s\n", std::string(check::name(good.v)).c_str(), good.summary.c_str());
  if (good.float32)
    std::printf("  float32 kernel vs the specification in double on random inputs: max relative difference %.3g\n",
                good.float32->max_rel);

  check::pair_spec unbiased = against("layernorm_unbiased.ptx", "layernorm_unbiased");
  check::check_result bad = check::check_against_spec(unbiased, check::resolve(unbiased), layernorm);
  std::printf("layernorm_unbiased: %s\n  %s\n", std::string(check::name(bad.v)).c_str(), bad.summary.c_str());
  if (bad.counterexample) {
    const auto& ce = *bad.counterexample;
    std::printf("  at %s[%llu]: specification %s, kernel %s over the reals", ce.tensor.c_str(),
                static_cast<unsigned long long>(ce.index), ce.real_reference.c_str(), ce.real_candidate.c_str());
    if (ce.float_reference && ce.float_candidate)
      std::printf("; specification in double %.9g, kernel in float32 %.9g", *ce.float_reference, *ce.float_candidate);
    std::printf("\n");
  }
  // The example checks itself: the right verdicts, and a counterexample that shows the difference.
  bool ok = good.v == check::verdict::equivalent && bad.v == check::verdict::different && bad.counterexample &&
            bad.counterexample->float_reference && bad.counterexample->float_candidate &&
            *bad.counterexample->float_reference != *bad.counterexample->float_candidate;
  return ok ? 0 : 1;
}
