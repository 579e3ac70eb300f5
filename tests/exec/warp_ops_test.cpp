// Warp specialization and launch controls (issue 20 item 6): elect.sync, stmatrix, movmatrix,
// setmaxnreg and griddepcontrol (exec/semantics/collective.hpp and tensor_core.hpp). Expected
// values come from models written here from the PTX ISA's words (naive loops over the documented
// fragment layout), never from gpueq's own layout functions; setmaxnreg and griddepcontrol change
// no value, so their tests check that the kernel's values come through and that each rule of
// setmaxnreg the engine checks stops a kernel that breaks it. Kernels: warp_ops_kernels.hpp.
#include "harness.hpp"
#include "warp_ops_kernels.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

using namespace exec_test;
using namespace warp_ops_kernels;

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

namespace {

exec::tensor_binding halves(std::string name, std::uint64_t n, bool input) {
  return tensor(std::move(name), exec::rkind::f16, {n}, input, !input);
}

}  // namespace

TEST_CASE_TEMPLATE("elect.sync elects the lowest non-exited lane of the mask", D, DOMAINS) {
  auto k = load(elect_leaders, "elect.ptx");
  exec::launch l = one_cta(64, {out_int("lead", 64), out_int("pred", 64), out_int("sub", 64)});
  fixture<D> f([](std::string_view, std::uint64_t) { return rat(0); });
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    const std::uint32_t lane = t % 32;
    if (t == 32 || t == 33) {  // exited before the election
      CHECK(!r.out["lead"][t]);
      CHECK(!r.out["sub"][t]);
      continue;
    }
    // Warp 0 elects lane 0; in warp 1 lanes 0 and 1 have exited, so lane 2 leads.
    const long long leader = t < 32 ? 0 : 2;
    CHECK(f.at(*r.out["lead"][t], l) == rat(leader));
    CHECK(f.at(*r.out["pred"][t], l) == rat(lane == leader ? 1 : 0));
    // Mask 0xf0f0f0f0: lanes 4-7, 12-15, ...; its lowest lane, 4, leads in both warps.
    const bool member = lane % 8 >= 4;
    CHECK(f.at(*r.out["sub"][t], l) == rat(!member ? 99 : lane == 4 ? 1 : 0));
  }
  CHECK(r.stats.warp_collectives == 4);
}

TEST_CASE_TEMPLATE("stmatrix stores every lane's fragments where the ISA's row layout puts them", D, DOMAINS) {
  values v = small_integers(3);
  for (unsigned count : {1u, 2u, 4u})
    for (bool trans : {false, true})
      for (bool generic : {false, true}) {
        CAPTURE(count);
        CAPTURE(trans);
        CAPTURE(generic);
        std::string text = stmatrix_variant(count, trans, generic);
        REQUIRE(!text.empty());
        auto k = load(text, "stmatrix.ptx");
        exec::launch l = one_cta(32, {halves("out", 256, false), halves("a", 256, true)});
        fixture<D> f(v);
        auto r = run(*k, l, f.d);
        REQUIRE_MESSAGE(!r.error, r.error->message);
        // The model, from the ISA's words: matrix i's fragment matrix F_i has its row x held by
        // lanes 4x..4x+3, lane 4x + y/2 holding (x, y) in half y % 2 of register i; that register
        // was loaded with a[64 i + 2 lane + half], so F_i(x, y) = a[64 i + 8 x + y]. Lane 8i + j
        // names the address of stored row j of matrix i (tile row q = 5 (8i + j) mod 32), which
        // receives row j of F_i, or with .trans (column-major) column j of F_i.
        std::vector<std::optional<rat>> want(256);
        for (unsigned lane = 0; lane < 8 * count; ++lane) {
          const unsigned i = lane / 8, j = lane % 8, q = 5 * lane % 32;
          for (unsigned c = 0; c < 8; ++c) want[8 * q + c] = v("a", 64 * i + (trans ? 8 * c + j : 8 * j + c));
        }
        for (unsigned e = 0; e < 256; ++e) {
          CAPTURE(e);
          if (!want[e]) {
            CHECK(!r.out["out"][e]);
            continue;
          }
          REQUIRE(r.out["out"][e].has_value());
          CHECK(f.at(*r.out["out"][e], l) == *want[e]);
        }
        CHECK(r.stats.warp_collectives == 1);
      }
}

TEST_CASE("stmatrix errors: misaligned rows, a lane that has exited, a register list of the wrong size") {
  exec::launch l = one_cta(32, {halves("out", 256, false), halves("a", 256, true)});
  fixture<exec::exact_domain> f(small_integers(4));
  {
    auto k = load(with(stmatrix_layout, "add.s32 %r5, %r4, %r3;", "add.s32 %r5, %r4, %r3;\n  add.s32 %r5, %r5, 8;"),
                  "stmatrix.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK_MESSAGE(e.kind == exec::error_kind::misaligned, e.message);
  }
  {
    std::string text = with(stmatrix_layout, "mov.u32 %r1, %laneid;",
                            "mov.u32 %r1, %laneid;\n  setp.eq.u32 %p1, %r1, 7;\n  @%p1 exit;");
    auto k = load(text, "stmatrix.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "stmatrix needs all 32 lanes"), e.message);
    CHECK_MESSAGE(contains(e.message, "stmatrix.ptx:" + std::to_string(line_of(text, "stmatrix.sync"))), e.message);
  }
  {
    // (ptxas rejects this one: .x4 takes four registers.)
    auto k = load(with(stmatrix_layout, "{%r10, %r11, %r12, %r13};", "{%r10, %r11};"), "stmatrix.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::unsupported);
    CHECK_MESSAGE(contains(e.message, "stmatrix .x4 stores from 4 registers, not 2"), e.message);
  }
}

TEST_CASE_TEMPLATE("movmatrix transposes an 8x8 matrix of halves held in the row fragment layout", D, DOMAINS) {
  auto k = load(movmatrix_transpose, "movmatrix.ptx");
  exec::launch l = one_cta(32, {halves("t", 64, false), halves("a", 64, true)});
  values v = small_integers(5);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // Lane l loads halves 2l, 2l + 1 of the row-major a (row l / 4, columns 2 (l % 4) + {0, 1}) and
  // stores its result to the same place of t, which therefore holds the transpose row-major.
  for (unsigned i = 0; i < 8; ++i)
    for (unsigned j = 0; j < 8; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      REQUIRE(r.out["t"][8 * i + j].has_value());
      CHECK(f.at(*r.out["t"][8 * i + j], l) == v("a", 8 * j + i));
    }
}

TEST_CASE("movmatrix on two divergent paths is not one .aligned instruction") {
  std::string text = with(movmatrix_transpose, "  movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;\n",
                          "  setp.lt.u32 %p1, %r1, 16;\n  @%p1 bra LOW;\n"
                          "  movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;\n  bra.uni DONE;\n"
                          "LOW:\n  movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;\nDONE:\n");
  text = with(text, ".reg .b32 %r<4>;", ".reg .pred %p<2>;\n  .reg .b32 %r<4>;");
  auto k = load(text, "movmatrix.ptx");
  exec::launch l = one_cta(32, {halves("t", 64, false), halves("a", 64, true)});
  fixture<exec::exact_domain> f(small_integers(5));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::barrier);
  CHECK_MESSAGE(contains(e.message, "threads wait at two copies of an .aligned movmatrix"), e.message);
}

TEST_CASE("movmatrix needs the whole warp") {
  std::string text = with(movmatrix_transpose, "mov.u32 %r1, %laneid;",
                          "mov.u32 %r1, %laneid;\n  setp.eq.u32 %p1, %r1, 31;\n  @%p1 exit;");
  text = with(text, ".reg .b32 %r<4>;", ".reg .pred %p<2>;\n  .reg .b32 %r<4>;");
  auto k = load(text, "movmatrix.ptx");
  exec::launch l = one_cta(32, {halves("t", 64, false), halves("a", 64, true)});
  fixture<exec::exact_domain> f(small_integers(5));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::barrier);
  CHECK_MESSAGE(contains(e.message, "movmatrix needs all 32 lanes"), e.message);
}

TEST_CASE_TEMPLATE("setmaxnreg and griddepcontrol change no value of a warp-specialized kernel", D, DOMAINS) {
  auto k = load(warp_specialized, "ws.ptx");
  exec::launch l = one_cta(256, {out_int("out", 256)});
  fixture<D> f([](std::string_view, std::uint64_t) { return rat(0); });
  for (bool lockstep : {false, true}) {
    CAPTURE(lockstep);
    exec::engine_options o;
    o.lockstep_warps = lockstep;
    auto r = run(*k, l, f.d, static_cast<exec::null_observer*>(nullptr), o);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    for (std::uint32_t t = 0; t < 256; ++t) CHECK(f.at(*r.out["out"][t], l) == rat(t < 128 ? 1 : 2));
    CHECK(r.stats.warp_collectives == 8);  // one setmaxnreg per warp
  }
  // Two setmaxnreg with a bar.sync between them, in either schedule.
  auto phases = load(register_phases, "phases.ptx");
  exec::launch l128 = one_cta(128, {out_int("out", 128)});
  for (bool lockstep : {false, true}) {
    exec::engine_options o;
    o.lockstep_warps = lockstep;
    auto r = run(*phases, l128, f.d, static_cast<exec::null_observer*>(nullptr), o);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    for (std::uint32_t t = 0; t < 128; ++t) CHECK(f.at(*r.out["out"][t], l128) == rat(t));
  }
}

TEST_CASE("setmaxnreg rules: the count, whole warpgroups, the same instruction, synchronization, direction") {
  fixture<exec::exact_domain> f([](std::string_view, std::uint64_t) { return rat(0); });
  exec::launch l128 = one_cta(128, {out_int("out", 128)});
  auto error_of = [&](const std::string& text, const exec::launch& l, bool lockstep = false) {
    REQUIRE(!text.empty());
    auto k = load(text, "regs.ptx");
    exec::engine_options o;
    o.lockstep_warps = lockstep;
    return expect_error(*k, l, f.d, o);
  };
  auto at_line = [](const exec::run_error& e, const std::string& text, std::string_view needle) {
    return contains(e.message, "regs.ptx:" + std::to_string(line_of(text, needle)) + ":");
  };
  SUBCASE("a count outside 24..256 or not a multiple of 8 (ptxas rejects all three)") {
    for (const char* bad : {"20", "44", "264"}) {
      CAPTURE(bad);
      auto e = error_of(with(register_phases, "dec.sync.aligned.u32 40", std::string("dec.sync.aligned.u32 ") + bad), l128);
      CHECK(e.kind == exec::error_kind::barrier);
      CHECK_MESSAGE(contains(e.message, std::string("setmaxnreg register count ") + bad +
                                            " is not a multiple of 8 in 24..256"),
                    e.message);
    }
  }
  SUBCASE("a block that is not whole warpgroups") {
    auto e = error_of(std::string(warp_specialized), one_cta(64, {out_int("out", 256)}));
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "the block's 64 threads leave warpgroup 0 incomplete"), e.message);
  }
  SUBCASE("a thread of the warpgroup has exited") {
    std::string text = with(register_phases, "mov.u32 %r1, %tid.x;",
                            "mov.u32 %r1, %tid.x;\n  setp.eq.u32 %p1, %r1, 37;\n  @%p1 exit;");
    auto e = error_of(text, l128);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "thread (37,0,0) (lane 5) has exited"), e.message);
    CHECK_MESSAGE(at_line(e, text, "setmaxnreg.dec"), e.message);
  }
  SUBCASE("a warp of the warpgroup jumps over it") {
    std::string text(register_skip);
    auto e = error_of(text, l128);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "warp 3 of warpgroup 0 exited without executing the setmaxnreg that warp 0"),
                  e.message);
    CHECK_MESSAGE(at_line(e, text, "setmaxnreg.dec"), e.message);
  }
  SUBCASE("warps of one warpgroup execute different setmaxnreg instructions") {
    std::string text(register_split);
    auto e = error_of(text, l128);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "all warps of a warpgroup must execute the same setmaxnreg"), e.message);
    // Warps 0 and 1 run first (round robin): warp 2 is the first at the other instruction.
    CHECK_MESSAGE(contains(e.message, "warp 2 executes setmaxnreg regs.ptx:" +
                                          std::to_string(line_of(text, "UPPER:\n  setmaxnreg") + 1)),
                  e.message);
  }
  SUBCASE("no synchronization between two setmaxnreg") {
    // Warp by warp (lockstep_warps runs warp 0 until it blocks or exits), warp 0 reaches the
    // second setmaxnreg before warp 1 has run the first: nothing can have ordered them. (Round
    // robin runs every warp to its first setmaxnreg before any runs its second, and does not
    // see it: the check is not a proof for every schedule.)
    std::string text = with(register_phases, "  bar.sync 0;\n", "");
    auto e = error_of(text, l128, true);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "warp 0 executes another setmaxnreg before warp 1 of warpgroup 0"), e.message);
    CHECK_MESSAGE(contains(e.message, "must synchronize between two setmaxnreg"), e.message);
    CHECK_MESSAGE(at_line(e, text, "setmaxnreg.inc"), e.message);
  }
  SUBCASE(".inc below the count the warpgroup holds (ptxas rejects this one too)") {
    std::string text = with(register_phases, "inc.sync.aligned.u32 232", "inc.sync.aligned.u32 32");
    auto e = error_of(text, l128);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "setmaxnreg.inc to 32 registers from the 40 of regs.ptx:" +
                                          std::to_string(line_of(text, "setmaxnreg.dec"))),
                  e.message);
  }
  SUBCASE(".dec above the kernel's .maxnreg (ptxas accepts it: the consumer's .inc raises its bound)") {
    std::string text = with(warp_specialized, ".maxnreg 168", ".maxnreg 32");
    auto e = error_of(text, one_cta(256, {out_int("out", 256)}));
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "setmaxnreg.dec to 40 registers, more than the kernel's .maxnreg 32"), e.message);
  }
}

TEST_CASE("griddepcontrol takes exactly one action") {
  // (ptxas rejects .sleep too: it is no action.)
  std::string text = with(warp_specialized, "griddepcontrol.wait;", "griddepcontrol.sleep;");
  auto k = load(text, "ws.ptx");
  exec::launch l = one_cta(256, {out_int("out", 256)});
  fixture<exec::exact_domain> f([](std::string_view, std::uint64_t) { return rat(0); });
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::unsupported);
  CHECK_MESSAGE(contains(e.message, "griddepcontrol needs exactly one action, .wait or .launch_dependents"), e.message);
}

TEST_CASE("elect.sync needs its destination pair") {
  // (ptxas rejects this form too.)
  std::string text = with(elect_leaders, "elect.sync %r4|%p2, 0xffffffff;", "elect.sync %r4, 0xffffffff;");
  auto k = load(text, "elect.ptx");
  exec::launch l = one_cta(64, {out_int("lead", 64), out_int("pred", 64), out_int("sub", 64)});
  fixture<exec::exact_domain> f([](std::string_view, std::uint64_t) { return rat(0); });
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::unsupported);
  CHECK_MESSAGE(contains(e.message, "elect.sync writes a pair d|p"), e.message);
}
