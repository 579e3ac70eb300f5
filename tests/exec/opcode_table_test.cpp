// The opcode table's status column (ptx/opcodes.hpp) against what the engine really does: every
// supported opcode occurs in a kernel the test suite executes, and an unsupported one stops a run
// with exactly the table's message, whatever its modifiers.
//
// "A kernel the test suite executes" is found by scanning, not by a list kept by hand: the kernels
// the corpus's pair and kernel specs name (examples/kernels, tests/cli/inputs; `gpueq check
// --expect` and the CLI test run them), before and after idiom lifting, and the PTX in the string
// literals of the execution tests (tests/exec, tests/race, tests/check), which are whole kernels
// or instruction sequences a test pastes into one. A string that does not parse as PTX is not
// PTX, and is skipped. An opcode covered some other way would be listed in covered_elsewhere with
// the test that runs it; the list is empty today.
#include "harness.hpp"

#include <gpueq/ptx.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace exec_test;
namespace ptx = gpueq::ptx;
namespace fs = std::filesystem;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Supported opcodes run by a test the scan cannot see (say, a kernel built instruction by
// instruction in C++), with the name of that test: (opcode, TEST_CASE name).
const std::vector<std::pair<ptx::opcode, std::string>> covered_elsewhere = {};

// Which opcodes occur in executed kernels, and one place each occurs (for messages).
struct coverage {
  std::map<ptx::opcode, std::string> where;
  std::size_t kernels = 0, fragments = 0;

  // The functions of m named `entry` (every kernel when empty), as parsed and after lifting.
  void note(const ptx::module& m, std::string_view entry, const std::string& source) {
    ptx::module lifted = m;
    ptx::lift(lifted);
    for (const ptx::module* mm : {&m, static_cast<const ptx::module*>(&lifted)})
      for (const auto& f : mm->functions)
        if (f.has_body && (entry.empty() ? f.entry : mm->str(f.name) == entry))
          for (const auto& i : f.instructions) where.emplace(i.op, source);
  }
};

// Every string literal of a C++ source, raw (R"d(...)d") or ordinary (escapes undone); comments
// and character literals are stepped over.
std::vector<std::string> string_literals(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  auto word_char = [&](std::size_t k) { return std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_'; };
  while (i < s.size()) {
    if (s.compare(i, 2, "//") == 0) {
      i = s.find('\n', i);
      if (i == std::string::npos) break;
    } else if (s.compare(i, 2, "/*") == 0) {
      i = s.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else if (s[i] == '\'' && (i == 0 || !word_char(i - 1))) {  // (not a digit separator: 1'000)
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '\'') j += s[j] == '\\' ? 2 : 1;
      i = j + 1;
    } else if (s.compare(i, 2, "R\"") == 0 && (i == 0 || !word_char(i - 1))) {
      std::size_t open = s.find('(', i + 2);
      if (open == std::string::npos) break;
      std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
      std::size_t end = s.find(close, open + 1);
      if (end == std::string::npos) break;
      out.push_back(s.substr(open + 1, end - open - 1));
      i = end + close.size();
    } else if (s[i] == '"') {
      std::string v;
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '"') {
        if (s[j] == '\\' && j + 1 < s.size()) {
          char e = s[j + 1];
          v += e == 'n' ? '\n' : e == 't' ? '\t' : e;
          j += 2;
        } else {
          v += s[j++];
        }
      }
      out.push_back(std::move(v));
      i = j + 1;
    } else {
      ++i;
    }
  }
  return out;
}

// A string literal as a PTX module: a whole module, a kernel without the header, or instructions
// (which get a kernel around them with every register they name declared), or nullopt.
std::optional<ptx::module> as_ptx(std::string text, bool& fragment) {
  if (text.find(';') == std::string::npos) return std::nullopt;
  fragment = text.find(".entry") == std::string::npos;
  if (fragment) {
    std::map<std::string, unsigned long> regs;
    static const std::regex reg(R"re(%([A-Za-z_]+)([0-9]+))re");
    for (std::sregex_iterator it(text.begin(), text.end(), reg), end; it != end; ++it) {
      auto& n = regs[(*it)[1].str()];
      n = std::max(n, std::stoul((*it)[2].str()) + 1);
    }
    std::string decls;
    for (auto& [prefix, n] : regs) decls += "  .reg .b64 %" + prefix + "<" + std::to_string(n) + ">;\n";
    text = ".visible .entry fragment()\n{\n" + decls + text + "\n}\n";
  }
  if (text.find(".version") == std::string::npos) text = std::string(header) + text;
  try {
    return ptx::parse(text, "literal");
  } catch (const gpueq::support::diagnostic_error&) {
    return std::nullopt;
  }
}

coverage executed_opcodes() {
  coverage c;
  fs::path root(GPUEQ_SOURCE_DIR);
  // Specs: "ptx": "file.ptx" (relative to the spec), then "entry": "name".
  static const std::regex side(R"re("ptx"\s*:\s*"([^"]+)"\s*(?:,\s*"entry"\s*:\s*"([^"]+)")?)re");
  for (const char* dir : {"examples/kernels", "tests/cli/inputs"})
    for (auto& e : fs::recursive_directory_iterator(root / dir)) {
      std::string name = e.path().filename().string();
      if (!name.ends_with(".pair.json") && !name.ends_with(".kernel.json")) continue;
      std::string text = slurp(e.path());
      for (std::sregex_iterator it(text.begin(), text.end(), side), end; it != end; ++it) {
        fs::path file = e.path().parent_path() / (*it)[1].str();
        c.note(ptx::parse_file(file.string()), (*it)[2].str(), fs::relative(file, root).string());
        ++c.kernels;
      }
    }
  for (const char* dir : {"tests/exec", "tests/race", "tests/check"})
    for (auto& e : fs::directory_iterator(root / dir)) {
      // Test sources, and the kernel headers several tests share (tests/exec/mbarrier_kernels.hpp).
      const std::string file = e.path().filename().string();
      const bool kernels_header = file.ends_with("_kernels.hpp");
      if ((e.path().extension() != ".cpp" && !kernels_header) || file == "opcode_table_test.cpp") continue;
      for (std::string& s : string_literals(slurp(e.path()))) {
        bool fragment = false;
        if (auto m = as_ptx(std::move(s), fragment)) {
          c.note(*m, "", fs::relative(e.path(), root).string());
          ++(fragment ? c.fragments : c.kernels);
        }
      }
    }
  return c;
}

bool names_a_test_case(const std::string& test_name) {
  for (auto& e : fs::recursive_directory_iterator(fs::path(GPUEQ_SOURCE_DIR) / "tests"))
    if (e.path().extension() == ".cpp" && slurp(e.path()).find("\"" + test_name + "\"") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the opcode table: every supported opcode is executed by a test, every other one has a message") {
  coverage c = executed_opcodes();
  MESSAGE("executed PTX: " << c.kernels << " kernels, " << c.fragments << " instruction sequences");
  // The scan must see the corpus and the inline kernels, or it proves nothing.
  REQUIRE(c.kernels >= 100);
  REQUIRE(c.fragments >= 20);

  for (auto& [op, test] : covered_elsewhere) {
    CAPTURE(ptx::name(op));
    CHECK_MESSAGE(ptx::is_supported(op), "covered_elsewhere lists an unsupported opcode");
    CHECK_MESSAGE(!c.where.contains(op), "covered_elsewhere lists an opcode the scan finds: drop it from the list");
    CHECK_MESSAGE(names_a_test_case(test), "covered_elsewhere names a test that does not exist: " << test);
  }
  std::size_t supported = 0;
  for (std::size_t i = 0; i < ptx::opcode_count; ++i) {
    auto op = static_cast<ptx::opcode>(i);
    CAPTURE(ptx::name(op));
    if (ptx::is_supported(op)) {
      ++supported;
      bool elsewhere = std::any_of(covered_elsewhere.begin(), covered_elsewhere.end(),
                                   [&](const auto& e) { return e.first == op; });
      CHECK_MESSAGE((c.where.contains(op) || elsewhere),
                    "a supported opcode that no test executes: write an execution test, or mark it unsupported");
    } else {
      CHECK_FALSE(ptx::unsupported_message(op).empty());
    }
  }
  MESSAGE(supported << " of " << ptx::opcode_count << " opcodes supported");
}

namespace {

// stacksave, alloca and stackrestore parse (sm_80 has them) but are not modelled. The second kernel's first
// instruction carries a modifier the decoder does not know (.L2): the table's message must still
// win.
constexpr std::string_view unsupported_kernel = R"(
.visible .entry waits()
{
  .reg .b64 %rd<4>;
  stacksave.u64 %rd1;
  alloca.u64 %rd2, 16;
  stackrestore.u64 %rd1;
  ret;
}
)";
constexpr std::string_view modifier_kernel = R"(
.visible .entry hint(.param .u64 x_param)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [x_param];
  discard.global.L2 [%rd1], 128;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("an unsupported opcode stops the run with the table's message", D, DOMAINS) {
  const std::string message(ptx::unsupported_message(ptx::opcode::stacksave));
  REQUIRE(message == "stacksave (dynamic stack allocation) is not modelled yet");

  auto k = load(unsupported_kernel, "waits.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(32, {}), f.d);
  CHECK(e.kind == exec::error_kind::unsupported);
  CHECK(e.thread == 0);
  CAPTURE(e.message);
  CHECK(contains(e.message, "waits.ptx:" + std::to_string(line_of(unsupported_kernel, "stacksave")) +
                                ": thread (0,0,0) (warp 0, lane 0): unsupported: " + message +
                                " (in `stacksave.u64`)"));

  auto p = load(modifier_kernel, "hint.ptx");
  fixture<D> g(small_integers(0));
  auto e2 = expect_error(*p, one_cta(1, {in_f32("x", 4)}), g.d);
  CHECK(e2.kind == exec::error_kind::unsupported);
  CAPTURE(e2.message);
  CHECK(contains(e2.message, "hint.ptx:" + std::to_string(line_of(modifier_kernel, "discard")) +
                                 ": thread (0,0,0) (warp 0, lane 0): unsupported: " +
                                 std::string(ptx::unsupported_message(ptx::opcode::discard))));
  CHECK_FALSE(contains(e2.message, "modifier .L2"));  // not the unknown-modifier error
}

TEST_CASE("ptx::unsupported_instructions names what the engine then stops at") {
  auto k = load(unsupported_kernel, "waits.ptx");
  auto list = ptx::unsupported_instructions(k->module, k->module.functions[0]);
  REQUIRE(list.size() == 3);
  CHECK(list[0].op == ptx::opcode::stacksave);
  CHECK(list[1].op == ptx::opcode::alloca_);
  CHECK(list[2].op == ptx::opcode::stackrestore);
  CHECK(list[0].first_line == line_of(unsupported_kernel, "stacksave"));
  fixture<exec::exact_domain> f(small_integers(0));
  auto e = expect_error(*k, one_cta(32, {}), f.d);
  CHECK(contains(e.message, "waits.ptx:" + std::to_string(list[0].first_line) + ":"));
  CHECK(contains(e.message, std::string(list[0].message)));
}
