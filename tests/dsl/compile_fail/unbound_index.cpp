// expect: uses an index that no reduction or output binds
#include <gpueq/dsl.hpp>
using namespace gpueq::dsl;
constexpr tensor<"x", 8> x;
constexpr var<'i'> i;
constexpr var<'j'> j;
int main() {
  struct in {
    constexpr double operator()(std::string_view, std::size_t) const { return 1; }
  };
  constexpr_real<in> d{in{}};
  tabulate<i>(x(j), d, {8}, [](std::size_t, double) {});
}
