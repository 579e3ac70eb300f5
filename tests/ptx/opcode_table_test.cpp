// The opcode table (ptx/opcodes.hpp) as the parser and `gpueq parse` use it: every row's spelling
// finds its opcode, every unsupported row has its message, and ptx::unsupported_instructions
// lists a kernel's unsupported instructions by opcode, count and first line (none for the corpus,
// whose kernels all run, except the known gaps a known_gaps.txt lists). The engine's side is tests/exec/opcode_table_test.cpp.
#include <gpueq/ptx.hpp>

#include <doctest/doctest.h>

#include "../common/known_gaps.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

using namespace gpueq;

TEST_CASE("every opcode table row: its spelling finds it, it has a family, an unsupported one a message") {
  std::set<std::string_view> families;
  std::size_t unsupported = 0;
  for (std::size_t i = 0; i < ptx::opcode_count; ++i) {
    auto op = static_cast<ptx::opcode>(i);
    CAPTURE(ptx::name(op));
    if (op == ptx::opcode::lifted) {
      CHECK_FALSE(ptx::find_opcode(ptx::name(op)).has_value());  // never parsed from PTX
    } else {
      REQUIRE(ptx::find_opcode(ptx::name(op)).has_value());
      CHECK(*ptx::find_opcode(ptx::name(op)) == op);
    }
    CHECK_FALSE(ptx::name(ptx::family(op)).empty());
    families.insert(ptx::name(ptx::family(op)));
    if (!ptx::is_supported(op)) {
      ++unsupported;
      CHECK(ptx::unsupported_message(op).find("not modelled") != std::string_view::npos);
    }
  }
  CHECK(families.size() == ptx::opcode_family_count);
  // A data instruction (its undefined operands make an undefined result) is one of the arithmetic,
  // compare/move/convert or lifted families, and supported; cvta computes an address.
  for (std::size_t i = 0; i < ptx::opcode_count; ++i) {
    auto op = static_cast<ptx::opcode>(i);
    CAPTURE(ptx::name(op));
    if (ptx::computes_data(op)) {
      CHECK(ptx::is_supported(op));
      CHECK((ptx::family(op) == ptx::opcode_family::integer_alu || ptx::family(op) == ptx::opcode_family::floating_point ||
             ptx::family(op) == ptx::opcode_family::compare_move_convert ||
             ptx::family(op) == ptx::opcode_family::lifted_pseudo_op));
    }
  }
  CHECK_FALSE(ptx::computes_data(ptx::opcode::cvta));
  CHECK_FALSE(ptx::computes_data(ptx::opcode::mapa));
  CHECK(ptx::computes_data(ptx::opcode::selp));
  MESSAGE(unsupported << " of " << ptx::opcode_count << " opcodes unsupported");
}

TEST_CASE("unsupported_instructions: per opcode, in order of first use, with its count, first line and message") {
  // Valid for ptxas -arch=sm_80 (discard is an sm_80 instruction).
  const std::string text = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry waits(.param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, bar;
  stacksave.u64 %rd2;
  alloca.u64 %rd1, 16;
  @%p1 stacksave.u64 %rd2;
  discard.global.L2 [%rd1], 128;
  add.s32 %r2, %r1, 8;
  ret;
}

.visible .entry plain(.param .u64 x_param)
{
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  add.s32 %r2, %r1, 1;
  ret;
}
)";
  ptx::module m = ptx::parse(text, "waits.ptx");
  REQUIRE(m.functions.size() == 2);
  auto list = ptx::unsupported_instructions(m, m.functions[0]);
  REQUIRE(list.size() == 3);
  CHECK(list[0].op == ptx::opcode::stacksave);
  CHECK(list[0].count == 2);  // the guarded one too: its guard is known only at run time
  CHECK(list[0].first_line == 12);
  CHECK(list[0].message == "stacksave (dynamic stack allocation) is not modelled yet");
  CHECK(list[1].op == ptx::opcode::alloca_);
  CHECK(list[1].count == 1);
  CHECK(list[1].first_line == 13);
  CHECK(list[2].op == ptx::opcode::discard);
  CHECK(list[2].first_line == 15);
  CHECK(list[2].message == ptx::unsupported_message(ptx::opcode::discard));

  CHECK(ptx::unsupported_instructions(m, m.functions[1]).empty());
}

TEST_CASE("the corpus kernels use no unsupported instruction (gpueq check runs them all)") {
  namespace fs = std::filesystem;
  std::size_t files = 0;
  // Compiler output committed as it is (examples/kernels/triton) that gpueq cannot run yet is
  // listed in a known_gaps.txt: it must still fail as listed (parse error or an unsupported
  // instruction); once it runs, the list entry goes and its pair spec joins the corpus.
  auto gaps = test::known_gaps(fs::path(GPUEQ_SOURCE_DIR) / "examples/kernels");
  for (auto& e : fs::recursive_directory_iterator(fs::path(GPUEQ_SOURCE_DIR) / "examples/kernels")) {
    if (e.path().extension() != ".ptx") continue;
    CAPTURE(e.path().string());
    if (auto gap = gaps.find(e.path()); gap != gaps.end()) {
      bool fails = false;
      try {
        ptx::module m = ptx::parse_file(e.path().string());
        for (auto& f : m.functions) fails = fails || !ptx::unsupported_instructions(m, f).empty();
        CHECK_MESSAGE(gap->second == "unsupported", "listed as a parse gap, but it parses");
      } catch (const support::diagnostic_error&) {
        fails = true;
        CHECK_MESSAGE(gap->second == "parse", "listed as an unsupported gap, but it does not parse");
      }
      CHECK_MESSAGE(fails, "known_gaps.txt lists it, but gpueq runs it now: take it off the list");
      continue;
    }
    ++files;
    ptx::module m = ptx::parse_file(e.path().string());
    for (auto& f : m.functions) {
      auto list = ptx::unsupported_instructions(m, f);
      CHECK_MESSAGE(list.empty(), m.str(f.name) << ": " << (list.empty() ? "" : std::string(ptx::name(list[0].op))));
    }
  }
  CHECK(files >= 50);
}

TEST_CASE("unsupported_instructions: a call is listed when gpueq cannot inline it") {
  // ptxas -arch=sm_80 accepts it: a call of a function with a body (inlined, runs), of vprintf
  // (.extern, no body) and through a register (an indirect call with a .callprototype).
  const std::string text = R"(.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);

.func (.param .b32 one_ret) one()
{
  st.param.b32 [one_ret+0], 1;
  ret;
}

.visible .entry calls(.param .u64 f_param)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [f_param];
  {
  .param .b32 retval0;
  call.uni (retval0), one, ();
  }
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd1;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  }
  {
  .param .b32 param0;
  st.param.b32 [param0+0], 0;
  .param .b32 retval0;
  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (retval0), %rd1, (param0), prototype_0;
  }
  ret;
}
)";
  ptx::module m = ptx::parse(text, "calls.ptx");
  REQUIRE(m.functions.size() == 3);
  CHECK(ptx::unsupported_instructions(m, m.functions[1]).empty());
  auto list = ptx::unsupported_instructions(m, m.functions[2]);
  REQUIRE(list.size() == 1);
  CHECK(list[0].op == ptx::opcode::call);
  CHECK(list[0].count == 2);        // vprintf's and the indirect one; `one` is inlined
  CHECK(list[0].first_line == 27);  // the call of vprintf
  CHECK(list[0].message == ptx::call_not_inlined_message);
}
