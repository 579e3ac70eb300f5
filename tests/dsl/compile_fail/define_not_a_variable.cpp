// expect: define() indexes its output with index variables only
#include <gpueq/dsl.hpp>
using namespace gpueq::dsl;
constexpr tensor<"x", 8> x;
constexpr tensor<"y", 8> y;
constexpr var<'i'> i;
int main() {
  constexpr auto d = define(y(i + 1), x(i));  // an output is indexed by variables, not expressions
  (void)d;
}
