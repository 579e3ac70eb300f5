// Vector atomics (sm_90, PTX 8.1: atom/red.global.add.v2.f32 and .v4.f32, what atomicAdd on a
// float2 or float4 compiles to): one access of all the elements, each element its own
// read-modify-write; atom returns the old vector. Expected values: sums of the inputs, by hand.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <string>
#include <type_traits>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

constexpr std::string_view sm90_header = ".version 8.1\n.target sm_90\n.address_size 64\n";

// Thread t adds (x[2t], x[2t+1]) to y[0..1] with red.v2 and (x[t], x[t], x[t], x[t]) to y[4..7]
// with atom.v4 (the old values discarded into registers never read).
constexpr std::string_view vector_atomics = R"(
.visible .entry vector_atomics(.param .u64 x_param, .param .u64 y_param)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v2.f32 {%f1, %f2}, [%rd4];
  red.global.add.v2.f32 [%rd2], {%f1, %f2};
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.f32 %f3, [%rd6];
  atom.global.add.v4.f32 {%f4, %f5, %f6, %f7}, [%rd2+16], {%f3, %f3, %f3, %f3};
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("red.global.add.v2.f32 and atom.global.add.v4.f32 add each element", D, DOMAINS) {
  // An sm_90 kernel (ptxas -arch=sm_90): its own header instead of the harness's sm_80 one.
  auto k = std::make_unique<kernel>();
  k->module = gpueq::ptx::parse(std::string(sm90_header) + std::string(vector_atomics), "vector_atomics.ptx");
  REQUIRE(k->module.functions.size() == 1);
  k->program = exec::decode(k->module, k->module.functions[0]);
  exec::launch l = one_cta(32, {in_f32("x", 64), tensor("y", exec::rkind::f32, {8}, true, true)});
  values v = small_integers(7);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  auto& y = r.out.at("y");
  REQUIRE(y.size() == 8);
  rat even = v("y", 0), odd = v("y", 1), all = v("y", 4);
  for (int t = 0; t < 32; ++t) {
    even += v("x", 2 * t);
    odd += v("x", 2 * t + 1);
    all += v("x", t);
  }
  REQUIRE(y[0].has_value());
  REQUIRE(y[1].has_value());
  CHECK(f.at(*y[0], l) == even);
  CHECK(f.at(*y[1], l) == odd);
  for (int i = 4; i < 8; ++i) {
    REQUIRE(y[i].has_value());
    CHECK(f.at(*y[i], l) == all - v("y", 4) + v("y", i));
  }
}

namespace {

// One thread: atom.v2 returns the old pair (y's inputs), then y holds old + (x0, x1); the old
// values are stored to z. Then atom.add.noftz.f16x2 on a word of two halves: each half its own
// add (h[0] += x2's half, h[1] += x3's half), the old word stored whole.
constexpr std::string_view old_vector = R"(
.visible .entry old_vector(.param .u64 x_param, .param .u64 y_param, .param .u64 z_param, .param .u64 h_param, .param .u64 g_param)
{
  .reg .b16 %rs<4>;
  .reg .b32 %r<8>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.param.u64 %rd3, [z_param];
  ld.param.u64 %rd4, [h_param];
  ld.param.u64 %rd5, [g_param];
  ld.global.v2.f32 {%f1, %f2}, [%rd1];
  atom.global.add.v2.f32 {%f3, %f4}, [%rd2], {%f1, %f2};
  st.global.v2.f32 [%rd3], {%f3, %f4};
  ld.global.f32 %f5, [%rd1+8];
  ld.global.f32 %f6, [%rd1+12];
  cvt.rn.f16.f32 %rs1, %f5;
  cvt.rn.f16.f32 %rs2, %f6;
  mov.b32 %r1, {%rs1, %rs2};
  atom.global.add.noftz.f16x2 %r2, [%rd4], %r1;
  st.global.b32 [%rd5], %r2;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("atom.v2 returns the old vector; atom.add.f16x2 adds each half", D, DOMAINS) {
  auto k = std::make_unique<kernel>();
  k->module = gpueq::ptx::parse(std::string(sm90_header) + std::string(old_vector), "old_vector.ptx");
  REQUIRE(k->module.functions.size() == 1);
  k->program = exec::decode(k->module, k->module.functions[0]);
  exec::launch l = one_cta(1, {in_f32("x", 4), tensor("y", exec::rkind::f32, {2}, true, true), out_f32("z", 2),
                               tensor("h", exec::rkind::f16, {2}, true, true), out_f32("g", 1)});
  values v = small_integers(11);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  if constexpr (std::is_same_v<D, exec::symbolic_domain>) {
    // The old values of an atomic on symbolic data depend on the schedule: storing them stops.
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == exec::error_kind::not_structured);
    return;
  } else {
    REQUIRE_MESSAGE(!r.error, r.error->message);
    auto& y = r.out.at("y");
    auto& z = r.out.at("z");
    auto& h = r.out.at("h");
    for (int i = 0; i < 2; ++i) {
      REQUIRE(y[i].has_value());
      REQUIRE(z[i].has_value());
      REQUIRE(h[i].has_value());
      CHECK(f.at(*z[i], l) == v("y", i));                 // the old pair
      CHECK(f.at(*y[i], l) == v("y", i) + v("x", i));     // old + operand
      CHECK(f.at(*h[i], l) == v("h", i) + v("x", 2 + i));  // each half its own add (small integers: exact in f16)
    }
  }
}

namespace {

// Triton's inline-asm loads and stores name one register in braces (`ld.global.b32 { %r1 }`):
// a vector of one element, on the generic path as on the fast one.
constexpr std::string_view one_element_braces = R"(
.visible .entry one_element_braces(.param .u64 x_param, .param .u64 y_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.global.b32 { %r1 }, [ %rd1 + 0 ];
  st.global.b32 [ %rd2 + 0 ], { %r1 };
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("ld and st of one register in braces, with and without the fast forms", D, DOMAINS) {
  auto k = load(one_element_braces, "one_element_braces.ptx");
  exec::launch l = one_cta(1, {in_f32("x", 1), out_f32("y", 1)});
  values v = small_integers(13);
  for (bool fast : {true, false}) {
    CAPTURE(fast);
    fixture<D> f(v);
    exec::engine_options o;
    o.fast_forms = fast;
    auto r = run<D>(*k, l, f.d, static_cast<exec::null_observer*>(nullptr), o);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    REQUIRE(r.out.at("y")[0].has_value());
    CHECK(f.at(*r.out.at("y")[0], l) == v("x", 0));
  }
}
