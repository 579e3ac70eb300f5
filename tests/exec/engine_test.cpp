// The execution engine run in every value domain (docs/ARCHITECTURE.md, "Value domains"): one test body per kernel,
// instantiated for float32, exact rationals and symbolic terms. Each body checks the domain law
// (VOLTA Lemma 5) against a plain C++ reference over exact rationals: on small integers every
// domain computes the reference exactly (float arithmetic is exact there); on random rationals
// the exact run equals it, the symbolic result evaluated at the inputs equals it, and the float32
// run is within a small relative error of it. Symbolic max/min (selp and guarded mov on an
// undecided comparison) is checked as terms.
#include "harness.hpp"

#include <gpueq/canon/evaluate.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace exec_test;

namespace {

// y[i] = a * x[i] + x[i+1] over 64 threads; a is a symbolic scalar parameter, so it is an input
// (a term in the symbolic domain, a given number in the concrete ones).
constexpr std::string_view axpy_shift = R"(
.visible .entry axpy_shift(.param .u64 y_param, .param .u64 x_param, .param .f32 a_param)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.param.f32 %f1, [a_param];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd6+4];
  mul.rn.f32 %f4, %f1, %f2;
  add.rn.f32 %f5, %f4, %f3;
  add.s64 %rd7, %rd3, %rd5;
  st.global.f32 [%rd7], %f5;
  ret;
}
)";

// The classic shared-memory tree reduction (reduce0 shape): 128 threads, bar.sync 0 between
// levels, thread 0 writes the total.
constexpr std::string_view tree_sum = R"(
.visible .entry tree_sum(.param .u64 out_param, .param .u64 in_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sdata[512];
  ld.param.u64 %rd1, [out_param];
  ld.param.u64 %rd2, [in_param];
  cvta.to.global.u64 %rd3, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sdata;
  add.s32 %r4, %r3, %r2;
  st.shared.f32 [%r4], %f1;
  bar.sync 0;
  mov.u32 %r5, 64;
$L_loop:
  setp.ge.u32 %p1, %r1, %r5;
  @%p1 bra $L_skip;
  shl.b32 %r6, %r5, 2;
  add.s32 %r7, %r4, %r6;
  ld.shared.f32 %f2, [%r4];
  ld.shared.f32 %f3, [%r7];
  add.f32 %f4, %f2, %f3;
  st.shared.f32 [%r4], %f4;
$L_skip:
  bar.sync 0;
  shr.u32 %r5, %r5, 1;
  setp.ne.u32 %p2, %r5, 0;
  @%p2 bra $L_loop;
  setp.ne.u32 %p3, %r1, 0;
  @%p3 bra $L_done;
  ld.shared.f32 %f5, [sdata];
  cvta.to.global.u64 %rd6, %rd1;
  st.global.f32 [%rd6], %f5;
$L_done:
  ret;
}
)";

// Warp reductions over 64 threads (two warps): shfl.sync.down gives lane 0 the warp's sum
// (written to down[warp]); shfl.sync.bfly gives every lane the sum (written to bfly[tid]).
constexpr std::string_view warp_sums = R"(
.visible .entry warp_sums(.param .u64 down_param, .param .u64 bfly_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<40>;
  .reg .f32 %f<40>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [down_param];
  ld.param.u64 %rd2, [bfly_param];
  ld.param.u64 %rd3, [x_param];
  cvta.to.global.u64 %rd4, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.f32 %f1, [%rd6];
  mov.b32 %r2, %f1;
  shfl.sync.down.b32 %r3, %r2, 16, 31, -1;
  mov.b32 %f2, %r3;
  add.f32 %f3, %f1, %f2;
  mov.b32 %r4, %f3;
  shfl.sync.down.b32 %r5, %r4, 8, 31, -1;
  mov.b32 %f4, %r5;
  add.f32 %f5, %f3, %f4;
  mov.b32 %r6, %f5;
  shfl.sync.down.b32 %r7, %r6, 4, 31, -1;
  mov.b32 %f6, %r7;
  add.f32 %f7, %f5, %f6;
  mov.b32 %r8, %f7;
  shfl.sync.down.b32 %r9, %r8, 2, 31, -1;
  mov.b32 %f8, %r9;
  add.f32 %f9, %f7, %f8;
  mov.b32 %r10, %f9;
  shfl.sync.down.b32 %r11, %r10, 1, 31, -1;
  mov.b32 %f10, %r11;
  add.f32 %f11, %f9, %f10;
  shfl.sync.bfly.b32 %r12, %r2, 16, 31, -1;
  mov.b32 %f12, %r12;
  add.f32 %f13, %f1, %f12;
  mov.b32 %r13, %f13;
  shfl.sync.bfly.b32 %r14, %r13, 8, 31, -1;
  mov.b32 %f14, %r14;
  add.f32 %f15, %f13, %f14;
  mov.b32 %r15, %f15;
  shfl.sync.bfly.b32 %r16, %r15, 4, 31, -1;
  mov.b32 %f16, %r16;
  add.f32 %f17, %f15, %f16;
  mov.b32 %r17, %f17;
  shfl.sync.bfly.b32 %r18, %r17, 2, 31, -1;
  mov.b32 %f18, %r18;
  add.f32 %f19, %f17, %f18;
  mov.b32 %r19, %f19;
  shfl.sync.bfly.b32 %r20, %r19, 1, 31, -1;
  mov.b32 %f20, %r20;
  add.f32 %f21, %f19, %f20;
  cvta.to.global.u64 %rd7, %rd2;
  add.s64 %rd8, %rd7, %rd5;
  st.global.f32 [%rd8], %f21;
  and.b32 %r21, %r1, 31;
  setp.ne.u32 %p1, %r21, 0;
  @%p1 bra $L_done;
  shr.u32 %r22, %r1, 5;
  mul.wide.u32 %rd9, %r22, 4;
  cvta.to.global.u64 %rd10, %rd1;
  add.s64 %rd11, %rd10, %rd9;
  st.global.f32 [%rd11], %f11;
$L_done:
  ret;
}
)";

// How close a result must be: exact for the exact and symbolic domains always, and for float32
// on small integers; float32 on random rationals within a relative error of 1e-5 (the kernels
// here add at most 128 positive terms: error below 128 * 2^-24 relative).
template <class D>
void check_value(const rat& got, const rat& want, bool exact_inputs) {
  if constexpr (std::is_same_v<D, exec::float32_domain>) {
    if (!exact_inputs) {
      double g = got.convert_to<double>(), w = want.convert_to<double>();
      CHECK(std::fabs(g - w) <= 1e-5 * std::max(1.0, std::fabs(w)));
      return;
    }
  }
  CHECK(got == want);
}

// Runs `k` in domain D on inputs `v`, compares every output element with `reference` (name ->
// exact values).
template <class D>
void run_and_compare(const kernel& k, const exec::launch& l, const values& v, bool exact_inputs,
                     const std::function<std::map<std::string, std::vector<rat>>(const values&)>& reference) {
  fixture<D> f(v);
  auto r = run(k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  auto want = reference(v);
  for (auto& [name, expected] : want) {
    REQUIRE(r.out.count(name));
    auto& got = r.out[name];
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      CAPTURE(name);
      CAPTURE(i);
      REQUIRE(got[i].has_value());
      check_value<D>(f.at(*got[i], l), expected[i], exact_inputs);
    }
  }
}

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

}  // namespace

TEST_CASE_TEMPLATE("y[i] = a*x[i] + x[i+1] over 64 threads: every domain meets the reference", D, DOMAINS) {
  auto k = load(axpy_shift, "axpy_shift.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 64), in_f32("x", 65)}, {{"a", true, 0}});
  auto reference = [](const values& v) {
    std::vector<rat> y;
    for (std::uint64_t i = 0; i < 64; ++i) y.push_back(v("a", 0) * v("x", i) + v("x", i + 1));
    return std::map<std::string, std::vector<rat>>{{"y", y}};
  };
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    run_and_compare<D>(*k, l, small_integers(seed), true, reference);
    run_and_compare<D>(*k, l, random_rationals(seed), false, reference);
  }
}

TEST_CASE_TEMPLATE("shared-memory tree reduction with bar.sync over 128 threads", D, DOMAINS) {
  auto k = load(tree_sum, "tree_sum.ptx");
  exec::launch l = one_cta(128, {out_f32("out", 1), in_f32("in", 128)});
  auto reference = [](const values& v) {
    rat s = 0;
    for (std::uint64_t i = 0; i < 128; ++i) s += v("in", i);
    return std::map<std::string, std::vector<rat>>{{"out", {s}}};
  };
  run_and_compare<D>(*k, l, small_integers(7), true, reference);
  run_and_compare<D>(*k, l, random_rationals(7), false, reference);

  // 7 levels of the tree, plus the barrier after the stores: 8 CTA barrier instances.
  fixture<D> f(small_integers(1));
  auto r = run(*k, l, f.d);
  REQUIRE(!r.error);
  CHECK(r.stats.barrier_instances == 8);
  CHECK(r.stats.steps > 128 * 10);
}

TEST_CASE_TEMPLATE("warp reductions with shfl.sync.down and shfl.sync.bfly over two warps", D, DOMAINS) {
  auto k = load(warp_sums, "warp_sums.ptx");
  exec::launch l = one_cta(64, {out_f32("down", 2), out_f32("bfly", 64), in_f32("x", 64)});
  auto reference = [](const values& v) {
    std::vector<rat> warp(2, rat(0));
    for (std::uint64_t i = 0; i < 64; ++i) warp[i / 32] += v("x", i);
    std::vector<rat> every;
    for (std::uint64_t i = 0; i < 64; ++i) every.push_back(warp[i / 32]);
    return std::map<std::string, std::vector<rat>>{{"down", warp}, {"bfly", every}};
  };
  run_and_compare<D>(*k, l, small_integers(11), true, reference);
  run_and_compare<D>(*k, l, random_rationals(11), false, reference);

  fixture<D> f(small_integers(1));
  auto r = run(*k, l, f.d);
  REQUIRE(!r.error);
  CHECK(r.stats.warp_collectives == 2 * 10);  // ten shuffles, each once per warp
}

// The law itself, stated directly: the symbolic result, evaluated at an input, is the exact run
// on that input; the float32 run is near it. Both evaluators of terms agree (gpueq/canon's in
// double, ours in rationals).
TEST_CASE("domain law: symbolic evaluated at random rationals equals the exact run") {
  auto k = load(warp_sums, "warp_sums.ptx");
  exec::launch l = one_cta(64, {out_f32("down", 2), out_f32("bfly", 64), in_f32("x", 64)});
  fixture<exec::symbolic_domain> sym(random_rationals(0));
  auto rs = run(*k, l, sym.d);
  REQUIRE(!rs.error);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    CAPTURE(seed);
    values v = random_rationals(seed);
    fixture<exec::exact_domain> ex(v);
    fixture<exec::float32_domain> fl(v);
    auto re = run(*k, l, ex.d);
    auto rf = run(*k, l, fl.d);
    REQUIRE(!re.error);
    REQUIRE(!rf.error);
    exact_evaluator at(sym.s, v, shapes_of(l));
    gpueq::canon::evaluator<double> approx(sym.s, [&](term::term_id input) {
      return v(sym.s.tensor_name(input), sym.s.input_indices(input).empty() ? 0 : sym.s.input_indices(input)[0]);
    });
    for (const char* name : {"down", "bfly"}) {
      for (std::size_t i = 0; i < rs.out[name].size(); ++i) {
        rat exact = *re.out[name][i];
        CHECK(at(*rs.out[name][i]) == exact);
        auto d = approx(*rs.out[name][i]);
        REQUIRE(d.has_value());
        CHECK(*d == doctest::Approx(exact.convert_to<double>()).epsilon(1e-12));
        CHECK(*rf.out[name][i] == doctest::Approx(exact.convert_to<double>()).epsilon(1e-5));
      }
    }
  }
}

// ---- symbolic max/min ----------------------------------------------------------------------------

namespace {

// Three ways nvcc spells max/min of two loaded values:
//   out[0] = x0 > x1 ? x0 : x1           (setp.gt + selp)          max
//   out[1] = x0 < x1 ? x0 : x1           (setp.lt + selp)          min
//   out[2] = x0 > x1 ? x1 : x0           (operands swapped)        min
//   out[3] = m = x1; if (x0 > m) m = x0  (@p mov, a running max)   max
//   out[4] = m = x1; if (!(x0 > m)) ... (@!p mov)                  min
constexpr std::string_view select_max = R"(
.visible .entry select_max(.param .u64 out_param, .param .u64 x_param)
{
  .reg .pred %p<4>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  ld.global.f32 %f2, [%rd2+4];
  setp.gt.f32 %p1, %f1, %f2;
  selp.f32 %f3, %f1, %f2, %p1;
  st.global.f32 [%rd1], %f3;
  setp.lt.f32 %p2, %f1, %f2;
  selp.f32 %f4, %f1, %f2, %p2;
  st.global.f32 [%rd1+4], %f4;
  selp.f32 %f5, %f2, %f1, %p1;
  st.global.f32 [%rd1+8], %f5;
  mov.f32 %f6, %f2;
  setp.gt.f32 %p3, %f1, %f6;
  @%p3 mov.f32 %f6, %f1;
  st.global.f32 [%rd1+12], %f6;
  mov.f32 %f7, %f2;
  @!%p3 mov.f32 %f7, %f1;
  st.global.f32 [%rd1+16], %f7;
  ret;
}
)";

}  // namespace

TEST_CASE("symbolic max/min from setp+selp and from a guarded mov") {
  auto k = load(select_max, "select_max.ptx");
  exec::launch l = one_cta(1, {out_f32("out", 5), in_f32("x", 2)});
  fixture<exec::symbolic_domain> f(random_rationals(1));
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  term::store& s = f.s;
  term::term_id x0 = s.input("x", {0}), x1 = s.input("x", {1});
  auto& out = r.out["out"];
  CHECK(*out[0] == s.max(x0, x1));
  CHECK(*out[1] == s.min(x0, x1));
  CHECK(*out[2] == s.min(x0, x1));
  CHECK(*out[3] == s.max(x0, x1));
  // @!p mov m, x0 with p = x0 > m: m = x0 > m ? m : x0, the minimum.
  CHECK(*out[4] == s.min(x0, x1));
}

TEST_CASE("a running max from -inf is the max of the values in the symbolic domain") {
  // m = -inf; m = max(m, x0); m = max(m, x1); m = max(m, x0): max(-inf, x) = x, max(x, x) = x.
  constexpr std::string_view running_max = R"(
.visible .entry running_max(.param .u64 out_param, .param .u64 x_param)
{
  .reg .f32 %f<8>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  ld.global.f32 %f2, [%rd2+4];
  mov.f32 %f3, 0fFF800000;
  max.f32 %f4, %f3, %f1;
  max.f32 %f5, %f4, %f2;
  max.f32 %f6, %f5, %f1;
  st.global.f32 [%rd1], %f6;
  ret;
}
)";
  auto k = load(running_max, "running_max.ptx");
  exec::launch l = one_cta(1, {out_f32("out", 1), in_f32("x", 2)});
  fixture<exec::symbolic_domain> f(random_rationals(1));
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(*r.out["out"][0] == f.s.max(f.s.input("x", {0}), f.s.input("x", {1})));
  fixture<exec::float32_domain> g([](std::string_view, std::uint64_t i) { return rat(i == 0 ? -7 : -9); });
  auto rf = run(*k, l, g.d);
  REQUIRE(!rf.error);
  CHECK(*rf.out["out"][0] == -7);
}

TEST_CASE_TEMPLATE("max/min selections agree with the concrete domains", D, exec::float32_domain, exec::exact_domain) {
  auto k = load(select_max, "select_max.ptx");
  exec::launch l = one_cta(1, {out_f32("out", 5), in_f32("x", 2)});
  for (auto [a, b] : {std::pair{3, 5}, std::pair{5, 3}, std::pair{-2, -7}, std::pair{4, 4}}) {
    fixture<D> f([a = a, b = b](std::string_view, std::uint64_t e) { return rat(e == 0 ? a : b); });
    auto r = run(*k, l, f.d);
    REQUIRE(!r.error);
    auto& out = r.out["out"];
    CHECK(f.at(*out[0], l) == std::max(a, b));
    CHECK(f.at(*out[1], l) == std::min(a, b));
    CHECK(f.at(*out[2], l) == std::min(a, b));
    CHECK(f.at(*out[3], l) == std::max(a, b));
    CHECK(f.at(*out[4], l) == std::min(a, b));
  }
}

TEST_CASE("a selection on a symbolic comparison that is not max/min is not a structured CTA") {
  // x0 > x1 ? 1.0 : 0.0 is a step function, not max/min of the compared values.
  constexpr std::string_view step = R"(
.visible .entry step(.param .u64 out_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  ld.global.f32 %f2, [%rd2+4];
  setp.gt.f32 %p1, %f1, %f2;
  selp.f32 %f3, 0f3F800000, 0f00000000, %p1;
  st.global.f32 [%rd1], %f3;
  ret;
}
)";
  auto k = load(step, "step.ptx");
  exec::launch l = one_cta(1, {out_f32("out", 1), in_f32("x", 2)});
  fixture<exec::symbolic_domain> f(random_rationals(1));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::not_structured);
  CHECK(contains(e.message, "step.ptx:" + std::to_string(line_of(step, "selp.f32"))));

  fixture<exec::exact_domain> ex([](std::string_view, std::uint64_t e2) { return rat(e2 == 0 ? 2 : 1); });
  auto r = run(*k, l, ex.d);
  REQUIRE(!r.error);
  CHECK(*r.out["out"][0] == 1);
}

// ---- corpus kernels ------------------------------------------------------------------------------

namespace {
std::string corpus(const std::string& rel) { return std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/" + rel; }
}  // namespace

// reduce1 (interleaved addressing, divergent branches) and reduce6 (shfl tail) from the corpus,
// run in all three domains on the same small-integer inputs: one block's partial sum each.
TEST_CASE_TEMPLATE("corpus reductions compute the block sum in every domain", D, DOMAINS) {
  struct entry {
    const char* file;
    const char* name;
    std::uint32_t block;  // reduce6 adds two elements per thread on load: 64 threads per 128
  };
  for (entry en : {entry{"reduction/reduce1_interleaved_divergent.ptx", "reduce1", 128},
                   entry{"reduction/reduce6_shfl.ptx", "reduce6_shfl", 64}}) {
    CAPTURE(en.file);
    auto k = load_file(corpus(en.file), en.name);
    // Parameters of both: (const float* x, float* out, int n); CTA 1 of 2 sums x[128..255].
    REQUIRE(k->program.function->params.size() == 3);
    exec::launch l;
    l.block = {en.block, 1, 1};
    l.grid = {2, 1, 1};
    l.cta = {1, 0, 0};
    l.tensors = {in_f32("in", 256), out_f32("out", 2)};
    l.scalars = {{"n", false, 256}};
    l.params = {{true, 0}, {true, 1}, {false, 0}};
    fixture<D> f(small_integers(5));
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    rat want = 0;
    for (std::uint64_t i = 128; i < 256; ++i) want += f.v_("in", i);
    auto& out = r.out["out"];
    CHECK_FALSE(out[0].has_value());  // CTA 1 writes only its own partial sum
    REQUIRE(out[1].has_value());
    CHECK(f.at(*out[1], l) == want);
  }
}

// ---- schedules ------------------------------------------------------------------------------------

// A race-free kernel computes the same outputs under every schedule: seeded random schedules
// (random thread order, random preemption) must reproduce the reference exactly.
TEST_CASE("race-free kernels give identical outputs under random schedules") {
  struct entry {
    std::string_view text;
    const char* file;
    exec::launch launch;
    std::function<std::map<std::string, std::vector<rat>>(const values&)> reference;
  };
  auto tree_ref = [](const values& v) {
    rat s = 0;
    for (std::uint64_t i = 0; i < 128; ++i) s += v("in", i);
    return std::map<std::string, std::vector<rat>>{{"out", {s}}};
  };
  auto warp_ref = [](const values& v) {
    std::vector<rat> warp(2, rat(0));
    for (std::uint64_t i = 0; i < 64; ++i) warp[i / 32] += v("x", i);
    std::vector<rat> every;
    for (std::uint64_t i = 0; i < 64; ++i) every.push_back(warp[i / 32]);
    return std::map<std::string, std::vector<rat>>{{"down", warp}, {"bfly", every}};
  };
  std::vector<entry> kernels = {
      {tree_sum, "tree_sum.ptx", one_cta(128, {out_f32("out", 1), in_f32("in", 128)}), tree_ref},
      {warp_sums, "warp_sums.ptx", one_cta(64, {out_f32("down", 2), out_f32("bfly", 64), in_f32("x", 64)}), warp_ref}};
  values v = random_rationals(21);
  for (auto& en : kernels) {
    CAPTURE(en.file);
    auto k = load(en.text, en.file);
    auto want = en.reference(v);
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      CAPTURE(seed);
      fixture<exec::exact_domain> f(v);
      exec::engine_options o;
      o.schedule_seed = seed;
      auto r = run(*k, en.launch, f.d, static_cast<exec::null_observer*>(nullptr), o);
      REQUIRE_MESSAGE(!r.error, r.error->message);
      for (auto& [name, expected] : want)
        for (std::size_t i = 0; i < expected.size(); ++i) CHECK(*r.out[name][i] == expected[i]);
    }
  }
}

TEST_CASE("legacy lockstep warps make the classic unrolled last warp (reduce5) compute the sum") {
  // reduce5's last warp reads s[t + k] that lane t + k writes in the same step with no barrier:
  // correct only when the warp's lanes advance together (pre-Volta), which lockstep_warps models.
  auto k = load_file(corpus("reduction/reduce5_unroll_last_warp.ptx"), "reduce5");
  exec::launch l;
  l.block = {64, 1, 1};
  l.tensors = {in_f32("x", 128), out_f32("out", 1)};
  l.scalars = {{"n", false, 128}};
  l.params = {{true, 0}, {true, 1}, {false, 0}};
  values v = small_integers(17);
  rat want = 0;
  for (std::uint64_t i = 0; i < 128; ++i) want += v("x", i);
  fixture<exec::exact_domain> f(v);
  exec::engine_options o;
  o.lockstep_warps = true;
  auto r = run(*k, l, f.d, static_cast<exec::null_observer*>(nullptr), o);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(*r.out["out"][0] == want);
}

TEST_CASE("an inout element that is only read is not written: output() and written_elements pass over it") {
  // x[0] = x[1] + x[2] by one thread: x[1] and x[2] are read (their input values are kept in the
  // region so that later reads agree) but nobody writes them, so a check must not count them as
  // written (the inter-CTA pass once said "written by CTA 1" of an element CTA 1 only read).
  auto k = load(R"(
.visible .entry rw(.param .u64 px) {
  .reg .b64 %rd<3>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [px];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.f32 %f1, [%rd2+4];
  ld.global.f32 %f2, [%rd2+8];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd2], %f3;
  ret;
})");
  exec::launch l = one_cta(1, {tensor("x", exec::rkind::f32, {4}, true, true)});
  values v = small_integers(3);
  fixture<exec::exact_domain> f(v);
  exec::null_observer none;
  exec::engine<exec::exact_domain> e(k->program, l, f.d, none);
  REQUIRE(!e.run());
  CHECK(e.written_elements(0) == std::vector<std::uint64_t>{0});
  REQUIRE(e.output(0, 0).has_value());
  CHECK(e.output_value(0, *e.output(0, 0)) == v("x", 1) + v("x", 2));
  CHECK_FALSE(e.output(0, 1).has_value());
  CHECK_FALSE(e.output(0, 2).has_value());
  CHECK_FALSE(e.output(0, 3).has_value());
}
