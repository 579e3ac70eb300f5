// expect: write non-integer constants exactly, as constant(num, den)
#include <gpueq/dsl/expr.hpp>
using namespace gpueq::dsl;
constexpr tensor<"x", 8> x;
constexpr var<'i'> i;
constexpr auto e = x(i) * 0.1;
int main() {}
