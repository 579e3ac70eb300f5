// Vector atomics (sm_90, PTX 8.1: atom/red.global.add.v2.f32 and .v4.f32, what atomicAdd on a
// float2 or float4 compiles to): one access of all the elements, each element its own
// read-modify-write; atom returns the old vector. Expected values: sums of the inputs, by hand.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <string>

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
