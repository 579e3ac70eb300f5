// Compile-time cost of the DSL: generates translation units with 0, 50 and 200 specifications
// (softmax, layernorm, GEMM and convolution in varying shapes, each evaluated at compile time and
// lowered to terms) and times the compiler on them, so the DSL does not make users' builds slow.
//   build/benchmarks/bench_dsl_compile
#include "bench.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

std::string spec_file(int count) {
  std::string s =
      "#include <gpueq/dsl.hpp>\n#include <gpueq/term.hpp>\nusing namespace gpueq::dsl;\n"
      "constexpr var<'i'> i; constexpr var<'j'> j; constexpr var<'k'> k;\n"
      "struct in { constexpr double operator()(std::string_view, std::size_t n) const { return 0.25 + 0.125 * (n % 5); } };\n"
      "void lower_all(gpueq::term::store& s);\n";
  std::string lower = "void lower_all(gpueq::term::store& s) {\n  lowering d{s};\n";
  for (int n = 0; n < count; ++n) {
    std::string id = std::to_string(n);
    int size = 4 + n % 13;
    std::string sz = std::to_string(size);
    switch (n % 4) {
      case 0:
        s += "constexpr tensor<\"x" + id + "\", " + sz + "> x" + id + ";\n";
        s += "constexpr auto e" + id + " = exp(x" + id + "(i)) / sum<j, 0, " + sz + ">(exp(x" + id + "(j)));\n";
        break;
      case 1:
        s += "constexpr tensor<\"x" + id + "\", " + sz + "> x" + id + ";\n";
        s += "constexpr auto m" + id + " = sum<j, 0, " + sz + ">(x" + id + "(j)) / " + sz + ";\n";
        s += "constexpr auto e" + id + " = (x" + id + "(i) - m" + id + ") * rsqrt(sum<j, 0, " + sz + ">((x" + id +
             "(j) - m" + id + ") * (x" + id + "(j) - m" + id + ")) / " + sz + " + constant(1, 100000));\n";
        break;
      case 2:
        s += "constexpr tensor<\"A" + id + "\", 4, " + sz + "> A" + id + "; constexpr tensor<\"B" + id + "\", " + sz +
             ", 4> B" + id + ";\n";
        s += "constexpr auto e" + id + " = constant(3, 2) * sum<k, 0, " + sz + ">(A" + id + "(i, k) * B" + id + "(k, 0));\n";
        break;
      default:
        s += "constexpr tensor<\"x" + id + "\", " + std::to_string(size + 3) + "> x" + id + "; constexpr tensor<\"w" + id +
             "\", 3> w" + id + ";\n";
        s += "constexpr auto e" + id + " = sum<k, 0, 3>(x" + id + "(i + k) * w" + id + "(k));\n";
    }
    // Forces evaluation at compile time (a finite value equals itself).
    s += "static_assert(evaluate(e" + id + ", constexpr_real<in>{in{}}, bindings{}.with('i', 1)) == "
         "evaluate(e" + id + ", constexpr_real<in>{in{}}, bindings{}.with('i', 1)));\n";
    lower += "  (void)evaluate(e" + id + ", d, bindings{}.with('i', 1));\n";
  }
  return s + lower + "}\n";
}

}  // namespace

int main() {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "gpueq_bench_dsl_compile";
  fs::create_directories(dir);
  std::printf("DSL compile time (%s -std=c++20 -O0 -fsyntax-only)\n%-28s %12s %16s\n", GPUEQ_CXX, "translation unit",
              "time [s]", "per spec [ms]");
  double base = 0;
  for (int count : {0, 50, 200}) {
    fs::path file = dir / ("specs_" + std::to_string(count) + ".cpp");
    std::ofstream(file) << spec_file(count);
    std::string cmd = std::string(GPUEQ_CXX) + " -std=c++20 -fsyntax-only -I" + GPUEQ_SOURCE_DIR + "/include " +
                      file.string();
    int rc = 0;
    double t = gpueq::bench::seconds([&] { rc = std::system(cmd.c_str()); });
    if (rc != 0) {
      std::printf("compiler failed on %s\n", file.string().c_str());
      return 1;
    }
    if (count == 0) base = t;
    std::printf("%-28s %12.2f %16s\n", (std::to_string(count) + " specifications").c_str(), t,
                count ? std::to_string(static_cast<int>((t - base) / count * 1000)).c_str() : "-");
  }
  return 0;
}
