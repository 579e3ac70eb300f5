// What reports name (issue 20, report accuracy): a deadlock names every resource its threads wait
// on, with their threads, also when one instruction waits on several (a bar.sync whose barrier id
// is in a register); a place in an array declared as bytes (`.b8`, the dynamic shared array) is
// named by its byte offset, a place in a typed array by its element; the source lines carry each
// instruction's opcode, which names an async-proxy access's copy. The kernels are the CLI test's
// (tests/cli/inputs/bar_id_in_register.ptx, b8_shared_race.ptx), checked with ptxas -arch=sm_80.
#include <gpueq/exec.hpp>
#include <gpueq/ptx/parser.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace exec_test;
namespace race = gpueq::race;

namespace {

constexpr std::string_view two_barriers = R"(
.visible .entry two_barriers_one_instruction()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 6;
  add.s32 %r3, %r2, 1;
  bar.sync %r3, 128;
  ret;
}
)";

// Thread i writes element i of an array (4-byte elements at `scale` 2, 2-byte at 1) and threads
// 0..62 read element i + 1 without a barrier. `decl` declares the array `a`.
std::string neighbour_race(std::string_view decl, bool half) {
  const std::string shift = half ? "1" : "2", next = half ? "2" : "4";
  const std::string st = half ? "st.shared.u16 [%r4], %rs1;" : "st.shared.f32 [%r4], %f1;";
  const std::string ld = half ? "@%p1 ld.shared.u16 %rs2, [%r4+2];" : "@%p1 ld.shared.f32 %f2, [%r4+4];";
  return std::string(decl) + R"(
.visible .entry neighbours(.param .u64 y_param)
{
  .reg .pred %p<2>;
  .reg .b16 %rs<3>;
  .reg .b32 %r<5>;
  .reg .f32 %f<3>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, )" + shift + R"(;
  mov.u32 %r3, a;
  add.s32 %r4, %r3, %r2;
  cvt.rn.f32.u32 %f1, %r1;
  cvt.u16.u32 %rs1, %r1;
  )" + st + R"(
  setp.lt.u32 %p1, %r1, 63;
  )" + ld + R"(
  ret;
}
)";
}

struct named_race {
  race::race r;
  exec::run_info info;
  std::string text;
};

named_race first_race(const std::string& body, std::uint64_t dynamic_shared = 0) {
  auto k = load(body, "names.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 64)});
  l.dynamic_shared_bytes = dynamic_shared;
  fixture<exec::exact_domain> f(small_integers(0));
  race::context ctx;
  auto o = run(*k, l, f.d, &ctx);
  REQUIRE_MESSAGE(!o.error, o.error->message);
  REQUIRE(ctx.result().races.size() == 1);
  named_race n{ctx.result().races[0].example, ctx.info(), ""};
  CHECK(ctx.result().races[0].count == 63);
  n.text = race::format(n.r, n.info);
  return n;
}

}  // namespace

TEST_CASE("a deadlock at one bar.sync on two barriers (the id in a register) names both, with their threads") {
  auto k = load(two_barriers, "two.ptx");
  fixture<exec::exact_domain> f(small_integers(0));
  auto e = expect_error(*k, one_cta(128, {}), f.d);
  CHECK(e.kind == exec::error_kind::deadlock);
  const std::string at = "wait at bar two.ptx:" + std::to_string(line_of(two_barriers, "bar.sync"));
  // Threads 0..63 named barrier 1, threads 64..127 barrier 2; each barrier counts 128 threads.
  CHECK_MESSAGE(contains(e.message, "64 thread(s) (first (0,0,0)) " + at +
                                        " [barrier 1 generation 1: 64 registered, 128 expected] (threads 0..63);"),
                e.message);
  CHECK_MESSAGE(contains(e.message, "64 thread(s) (first (64,0,0)) " + at +
                                        " [barrier 2 generation 1: 64 registered, 128 expected] (threads 64..127);"),
                e.message);
}

TEST_CASE("a place in a .b8 array is named by byte offset, in a typed array by element") {
  SUBCASE("static .b8 array aligned to 16, f32 accesses") {
    // Thread 1 writes bytes 4..7, thread 0 then reads them.
    auto n = first_race(neighbour_race(".shared .align 16 .b8 a[1024];", false));
    CHECK(n.r.offset == 4);
    CHECK(n.r.element == 4);
    CHECK(n.info.regions[n.r.region].byte_indexed);
    CHECK(n.info.regions[n.r.region].element_bytes == 1);
    CHECK_MESSAGE(contains(n.text, "RAW race on shared a[byte 4]: write by thread 1"), n.text);
  }
  SUBCASE("nvcc's float array, .align 4 .b8") {
    auto n = first_race(neighbour_race(".shared .align 4 .b8 a[256];", false));
    CHECK_MESSAGE(contains(n.text, "RAW race on shared a[byte 4]:"), n.text);
  }
  SUBCASE("the dynamic shared array, u16 accesses") {
    // Thread 1 writes bytes 2..3.
    auto n = first_race(neighbour_race(".extern .shared .align 16 .b8 a[];", true), 128);
    CHECK(n.r.offset == 2);
    CHECK_MESSAGE(contains(n.text, "RAW race on shared a[byte 2]:"), n.text);
  }
  SUBCASE("a typed array keeps its element index") {
    auto n = first_race(neighbour_race(".shared .align 4 .f32 a[64];", false));
    CHECK_FALSE(n.info.regions[n.r.region].byte_indexed);
    CHECK(n.r.element == 1);
    CHECK_MESSAGE(contains(n.text, "RAW race on shared a[1]:"), n.text);
  }
}

TEST_CASE("source lines carry the opcode; an async-proxy access names its copy by it") {
  gpueq::ptx::module m = gpueq::ptx::parse(R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, 0;
  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r1}], [%r1];
  cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r1}], [%r1];
  ret;
}
)");
  auto lines = race::source_lines(m, m.functions[0]);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].opcode == "mov");
  CHECK(lines[1].opcode == "cp.async.bulk.tensor");
  CHECK(lines[2].opcode == "cp.reduce.async.bulk.tensor");
  race::source_lookup lookup = [&](std::uint32_t i) { return lines.at(i); };
  auto proxy_access = [](std::uint32_t instruction, exec::access_kind kind) {
    race::race_access a;
    a.instruction = instruction;
    a.kind = kind;
    a.async_proxy = true;
    return a;
  };
  const race::race_access read = proxy_access(1, exec::access_kind::read);
  const race::race_access write = proxy_access(1, exec::access_kind::write);
  const race::race_access reduce = proxy_access(2, exec::access_kind::atomic);
  CHECK(race::detail::copy_name(read, exec::memory_space::shared, lookup) == "TMA store");
  CHECK(race::detail::copy_name(write, exec::memory_space::shared, lookup) == "TMA load");
  CHECK(race::detail::copy_name(read, exec::memory_space::global, lookup) == "TMA load");
  CHECK(race::detail::copy_name(reduce, exec::memory_space::global, lookup) == "TMA reduction");
  CHECK(race::detail::copy_name(write, exec::memory_space::shared, {}) == "TMA/bulk copy");
}
