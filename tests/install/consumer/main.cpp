// A user of the installed package: proves an identity through the public header, and reads a
// pair spec of the installed corpus (share/gpueq/kernels) with check/spec_json.hpp, resolving
// both kernels against their installed PTX, and checks them with check_pair from the installed
// gpueq::compiled library.
#include <gpueq/check/spec_json.hpp>
#include <gpueq/gpueq.hpp>

#include <iostream>
#include <string>

int main(int argc, char** argv) {
  gpueq::term::store s;
  auto v = gpueq::canon::decide_text(s, "exp(x) * exp(y) / (1 + 0)", "exp(y + x)");
  std::cout << gpueq::canon::to_string(v.kind) << '\n';
  if (v.kind != gpueq::canon::verdict_kind::equal || argc < 2) return 1;
  gpueq::check::pair_spec spec = gpueq::check::load_spec(std::string(argv[1]) + "/softmax/naive_vs_online.pair.json");
  gpueq::check::resolved_pair pair = gpueq::check::resolve(spec);
  std::cout << spec.reference.entry << " vs " << spec.candidate.entry << ": " << pair.reference.functions.size() << " and "
            << pair.candidate.functions.size() << " functions\n";
  gpueq::check::check_result r = gpueq::check::check_pair(spec, pair);
  std::cout << gpueq::check::name(r.v) << '\n';
  return spec.expect == gpueq::check::verdict::equivalent && r.v == spec.expect ? 0 : 1;
}
