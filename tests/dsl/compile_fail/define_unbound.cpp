// expect: uses an index that no reduction or output binds
#include <gpueq/dsl.hpp>
using namespace gpueq::dsl;
constexpr tensor<"x", 8> x;
constexpr tensor<"y", 8> y;
constexpr var<'i'> i;
constexpr var<'j'> j;
int main() {
  constexpr auto d = define(y(i), x(j));  // j is bound by nothing
  (void)d;
}
