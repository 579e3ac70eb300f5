// A user of the installed package: proves an identity through the public header.
#include <gpueq/gpueq.hpp>
#include <iostream>

int main() {
  gpueq::term::store s;
  auto v = gpueq::canon::decide_text(s, "exp(x) * exp(y) / (1 + 0)", "exp(y + x)");
  std::cout << gpueq::canon::to_string(v.kind) << '\n';
  return v.kind == gpueq::canon::verdict_kind::equal ? 0 : 1;
}
