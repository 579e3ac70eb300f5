// Every PTX file we own parses, prints, and parses back to the same IR; ptxas accepts the printed
// text when it is installed. The corpus is globbed at run time: tests/ptx/inputs (small inputs
// generated from our own .cu files) and examples/kernels (the kernel corpus), so adding a file
// adds a case. Files a known_gaps.txt lists as `parse` (compiler output gpueq cannot parse yet)
// are left out, and checked to be still rejected.
#include <gpueq/ptx.hpp>

#include <doctest/doctest.h>

#include "../common/known_gaps.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace gpueq;

namespace {

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  auto gaps = test::known_gaps(fs::path(GPUEQ_SOURCE_DIR) / "examples/kernels");
  for (const char* dir : {"tests/ptx/inputs", "examples/kernels"}) {
    fs::path root = fs::path(GPUEQ_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().extension() != ".ptx") continue;
      if (auto gap = gaps.find(e.path()); gap != gaps.end() && gap->second == "parse") continue;
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("the corpus parses and round-trips") {
  auto files = corpus();
  REQUIRE(files.size() >= 6);  // our own inputs at least
  for (auto& path : files) {
    CAPTURE(path.string());
    ptx::module m;
    try {
      m = ptx::parse_file(path.string());
    } catch (const support::diagnostic_error& e) {
      FAIL_CHECK(e.what());
      continue;
    }
    CHECK(m.kernel_count() >= 1);
    std::string printed = ptx::print(m);
    ptx::module again = ptx::parse(printed, path.string() + " (printed)");
    CHECK(ptx::difference(m, again) == "");
    CHECK(ptx::print(again) == printed);
  }
}

TEST_CASE("the corpus's known parse gaps are still rejected (else take them off known_gaps.txt)") {
  for (auto& [path, kind] : test::known_gaps(fs::path(GPUEQ_SOURCE_DIR) / "examples/kernels")) {
    if (kind != "parse") continue;
    CAPTURE(path.string());
    REQUIRE(fs::exists(path));
    CHECK_THROWS_AS(ptx::parse_file(path.string()), support::diagnostic_error);
  }
}

TEST_CASE("the corpus without line info (as nvcc writes it without -lineinfo) parses to the same code") {
  // nvcc without -lineinfo writes the same module without .loc and .file directives (and without
  // .section .debug_*); dropping those lines from each file gives that form.
  for (auto& path : corpus()) {
    CAPTURE(path.string());
    std::string text = slurp(path), stripped;
    std::istringstream lines(text);
    std::string line;
    bool in_section = false;
    while (std::getline(lines, line)) {
      std::string_view t(line);
      t.remove_prefix(std::min(t.find_first_not_of(" \t"), t.size()));
      if (t.starts_with(".section")) in_section = true;
      if (in_section) {
        if (t.starts_with("}")) in_section = false;
        continue;
      }
      if (t.starts_with(".loc") || t.starts_with(".file")) continue;
      stripped += line + "\n";
    }
    ptx::module with = ptx::parse(text, path.string());
    ptx::module without = ptx::parse(stripped, path.string() + " (no line info)");
    REQUIRE(with.functions.size() == without.functions.size());
    for (std::size_t f = 0; f < with.functions.size(); ++f) {
      REQUIRE(with.functions[f].instructions.size() == without.functions[f].instructions.size());
      for (std::size_t i = 0; i < with.functions[f].instructions.size(); ++i) {
        CHECK(ptx::print(with, with.functions[f].instructions[i]) == ptx::print(without, without.functions[f].instructions[i]));
        CHECK(without.functions[f].instructions[i].loc.line == 0);
      }
    }
  }
}

// Only where CMake found ptxas (GPUEQ_PTXAS): without it the case does not exist, rather than
// passing without checking anything.
#ifdef GPUEQ_PTXAS
TEST_CASE("ptxas accepts the printed corpus") {
  fs::path tmp = fs::temp_directory_path() / ("gpueq_ptx_rt_" + std::to_string(::getpid()) + ".ptx");
  for (auto& path : corpus()) {
    CAPTURE(path.string());
    ptx::module m = ptx::parse_file(path.string());
    {
      std::ofstream out(tmp, std::ios::binary);
      out << ptx::print(m);
    }
    std::string arch = m.target.empty() ? "sm_80" : std::string(m.str(m.target[0]));
    std::string cmd = std::string(GPUEQ_PTXAS) + " -arch=" + arch + " '" + tmp.string() + "' -o /dev/null";
    CHECK_MESSAGE(std::system(cmd.c_str()) == 0, cmd);
  }
  fs::remove(tmp);
}
#endif

TEST_CASE("mutated corpus files never crash the parser") {
  // A cheap in-test fuzzer (the libFuzzer target in tests/fuzz goes further): flip, delete and
  // duplicate bytes of real files; every outcome must be a module or a diagnostic_error.
  auto files = corpus();
  REQUIRE(!files.empty());
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto rnd = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  std::size_t parsed = 0, rejected = 0;
  for (int round = 0; round < 400; ++round) {
    std::string text = slurp(files[rnd() % files.size()]);
    int edits = 1 + static_cast<int>(rnd() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      std::size_t at = rnd() % text.size();
      switch (rnd() % 4) {
        case 0: text[at] = static_cast<char>(rnd() & 0xff); break;
        case 1: text.erase(at, 1 + rnd() % 16); break;
        case 2: text.insert(at, text.substr(rnd() % text.size(), rnd() % 32)); break;
        default: text.resize(at); break;
      }
    }
    try {
      ptx::module m = ptx::parse(text);
      ptx::module again = ptx::parse(ptx::print(m));
      CHECK(ptx::difference(m, again) == "");
      ++parsed;
    } catch (const support::diagnostic_error& e) {
      CHECK(e.line() >= 1);
      ++rejected;
    }
  }
  MESSAGE(parsed << " mutants parsed, " << rejected << " rejected");
}
