// Using gpueq as a library: state softmax as a DSL specification, build the online-softmax
// computation a kernel performs as terms, and let the decision procedure compare them, element by
// element. A broken variant (no rescaling) gets a counterexample.
//   build/examples/example_softmax_spec
#include <gpueq/gpueq.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace gpueq;

constexpr std::uint32_t N = 16;
constexpr dsl::tensor<"x", N> x;
constexpr dsl::var<'i'> i;
constexpr dsl::var<'j'> j;
constexpr auto softmax = dsl::exp(x(i)) / dsl::sum<j, 0, N>(dsl::exp(x(j)));

// What an online-softmax kernel computes, written with the term store's smart constructors.
std::vector<term::term_id> online_softmax(term::store& s, bool rescale) {
  term::term_id m = s.infinity(true), d = s.zero();
  for (std::uint32_t k = 0; k < N; ++k) {
    term::term_id v = s.input("x", {k});
    term::term_id m_new = s.max(m, v);
    term::term_id scale = rescale ? s.exp(s.sub(m, m_new)) : s.one();
    d = s.add(s.mul(d, scale), s.exp(s.sub(v, m_new)));
    m = m_new;
  }
  std::vector<term::term_id> y;
  for (std::uint32_t k = 0; k < N; ++k) y.push_back(s.div(s.exp(s.sub(s.input("x", {k}), m)), d));
  return y;
}

int main() {
  term::store s;
  check::output_values spec;
  dsl::lowering lower{s};
  dsl::tabulate<i>(softmax, lower, {N}, [&](std::size_t, term::term_id t) { spec.push_back(t); });

  for (bool rescale : {true, false}) {
    auto y = online_softmax(s, rescale);
    check::comparison c = check::compare(s, {{"y", spec}}, {{"y", check::output_values(y.begin(), y.end())}});
    std::printf("online softmax%s: %llu of %llu outputs proved equal to the specification\n",
                rescale ? "" : " without rescaling", static_cast<unsigned long long>(c.equal),
                static_cast<unsigned long long>(c.elements));
    if (!c.problems.empty() && c.problems[0].witness) {
      const auto& w = *c.problems[0].witness;
      std::printf("  y[%llu] differs, e.g. at", static_cast<unsigned long long>(c.problems[0].index));
      for (std::size_t k = 0; k < w.inputs.size() && k < 3; ++k)
        std::printf(" %s = %s", term::to_string(s, w.inputs[k].input).c_str(), support::to_string(w.inputs[k].value).c_str());
      std::printf(" …: specification %s, kernel %s\n", w.lhs.str(8).c_str(), w.rhs.str(8).c_str());
    }
    if (rescale != c.all_equal()) return 1;  // the example checks itself
  }
  return 0;
}
