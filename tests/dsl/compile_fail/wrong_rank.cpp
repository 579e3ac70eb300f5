// expect: indexed with as many indices as its shape has dimensions
#include <gpueq/dsl/expr.hpp>
using namespace gpueq::dsl;
constexpr tensor<"A", 4, 3> A;
constexpr var<'i'> i;
constexpr auto e = A(i);
int main() {}
