// PTX front-end speed: parse (and print, and lift) a multi-megabyte PTX module made by
// concatenating the nvcc-generated inputs of tests/ptx/inputs (and examples/kernels when
// present) many times. Reports MB/s; the goal is well over 50 MB/s for parsing.
//   bench_parse [megabytes=16]
#include "bench.hpp"

#include <gpueq/ptx.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// A file's text without its module header, so bodies of many files can follow one header.
std::string body_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str(), out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(".version") || line.starts_with(".target") || line.starts_with(".address_size")) continue;
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  double megabytes = argc > 1 ? std::atof(argv[1]) : 16.0;
  std::vector<std::string> bodies;
  for (const char* dir : {"tests/ptx/inputs", "examples/kernels"}) {
    fs::path root = fs::path(GPUEQ_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    std::vector<fs::path> files;
    for (auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file() && e.path().extension() == ".ptx") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
      std::string b = body_of(f);
      try {  // only files that parse on their own (the corpus may hold work in progress)
        gpueq::ptx::parse(".version 9.0\n.target sm_80\n.address_size 64\n" + b);
        bodies.push_back(std::move(b));
      } catch (const std::exception&) {
      }
    }
  }
  if (bodies.empty()) {
    std::fprintf(stderr, "no PTX inputs found under %s\n", GPUEQ_SOURCE_DIR);
    return 1;
  }
  std::string text = ".version 9.0\n.target sm_80\n.address_size 64\n";
  auto target = static_cast<std::size_t>(megabytes * 1e6);
  while (text.size() < target)
    for (auto& b : bodies) text += b;
  double mb = static_cast<double>(text.size()) / 1e6;

  gpueq::ptx::module m;
  double t_parse = gpueq::bench::seconds([&] { m = gpueq::ptx::parse(text, "bench.ptx"); }, 5);
  std::size_t instructions = 0;
  for (auto& f : m.functions) instructions += f.instructions.size();
  std::string printed;
  double t_print = gpueq::bench::seconds([&] { printed = gpueq::ptx::print(m); }, 3);
  gpueq::ptx::lift_report r;
  double t_lift = gpueq::bench::seconds([&] {
    gpueq::ptx::module copy = m;
    r = gpueq::ptx::lift(copy);
  }, 1);

  std::printf("PTX front-end on %.1f MB (%zu functions, %zu instructions, %zu source files)\n", mb,
              m.functions.size(), instructions, bodies.size());
  std::printf("%-10s %10s %10s\n", "phase", "time [s]", "MB/s");
  std::printf("%-10s %10.4f %10.1f\n", "parse", t_parse, mb / t_parse);
  std::printf("%-10s %10.4f %10.1f\n", "print", t_print, mb / t_print);
  std::printf("%-10s %10.4f %10.1f   (%zu idioms, includes copying the module)\n", "lift", t_lift, mb / t_lift,
              r.idioms.size());
  std::printf("peak memory %.0f MiB\n", gpueq::bench::peak_mib());
  return 0;
}
