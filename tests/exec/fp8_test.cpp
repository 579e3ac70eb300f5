// fp8 (e4m3, e5m2): the formats' encodings (exec/floats.hpp), cvt to and from fp8 pairs
// (.rn.satfinite, .relu, from .f32 pairs and from .f16x2), fp8 tensors read a byte at a time and
// in pairs the way nvcc's __nv_fp8_e4m3 -> float compiles (ld.global.u8, cvt.rn.f16x2.e4m3x2,
// cvt.u16.u32, cvt.f32.f16), and wgmma.mma_async m64n8k32 with e4m3/e5m2 operands (A through a
// descriptor or from registers, mixed e4m3 x e5m2, an .f16 accumulator).
//
// Expected values come from an independent model, never from gpueq. The fp8 encodings are those of
// this Python model (it enumerates every code's value and picks the nearest, ties to the even code,
// after clamping to the largest finite value as .satfinite does; 0x7f for NaN):
//
//   def value(code, fmt):
//       e_bits, m_bits, bias = (4, 3, 7) if fmt == 'e4m3' else (5, 2, 15)
//       s = -1.0 if code & 0x80 else 1.0
//       e = (code >> m_bits) & ((1 << e_bits) - 1); m = code & ((1 << m_bits) - 1)
//       if fmt == 'e4m3' and e == 15 and m == 7: return nan
//       if fmt == 'e5m2' and e == 31: return s * inf if m == 0 else nan
//       if e == 0: return s * m * 2.0 ** (1 - bias - m_bits)
//       return s * (1 + m / 2 ** m_bits) * 2.0 ** (e - bias)
//   def cvt_satfinite(x, fmt, relu=False):
//       if isnan(x): return 0x7f
//       top = 448.0 if fmt == 'e4m3' else 57344.0
//       x = max(-top, min(top, x))
//       best = None
//       for c in range(256):
//           v = value(c, fmt)
//           if isnan(v) or isinf(v): continue
//           if v == 0 and (c & 0x80) != (0x80 if copysign(1, x) < 0 else 0): continue
//           d = abs(v - x)
//           if best is None or d < best[0] or (d == best[0] and c % 2 == 0 and best[1] % 2 == 1): best = (d, c)
//       c = best[1]
//       return 0 if relu and c & 0x80 else c
//
// (applied to the float32 value of each input). The ISA (cvt): a goes to the upper byte of d and b
// to the lower; .satfinite keeps NaN and clamps larger magnitudes to MAX_NORM; .relu clamps
// negative results to 0. The inline PTX is accepted by `ptxas -arch=sm_90a` (with .target sm_90a).
#include "harness.hpp"

#include <gpueq/exec/floats.hpp>
#include <gpueq/exec/wgmma_layout.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace exec_test;
namespace fl = gpueq::exec::floats;
using gpueq::exec::rkind;

TEST_CASE("fp8 encodings: e4m3 (bias 7, max 448, no infinity, 0x7f NaN) and e5m2 (bias 15, max 57344)") {
  auto sat = [](double x, rkind k) { return fl::encode(fl::round_satfinite(x, k), k); };
  CHECK(sat(1.0, rkind::e4m3) == 0x38);
  CHECK(sat(448.0, rkind::e4m3) == 0x7e);
  CHECK(sat(0.3, rkind::e4m3) == 0x2a);  // 0.3125 = 1.25 * 2^-2: exponent 5, mantissa 010
  CHECK(fl::round_satfinite(0.3, rkind::e4m3) == 0.3125);
  CHECK(sat(1000.0, rkind::e4m3) == 0x7e);  // saturates to 448
  CHECK(sat(-1000.0, rkind::e4m3) == 0xfe);
  CHECK(sat(INFINITY, rkind::e4m3) == 0x7e);
  CHECK(sat(std::nan(""), rkind::e4m3) == 0x7f);
  CHECK(sat(1.0625, rkind::e4m3) == 0x38);  // halfway between 1 (0x38) and 1.125 (0x39): the even code
  CHECK(sat(1.1875, rkind::e4m3) == 0x3a);  // halfway between 1.125 and 1.25 (0x3a)
  CHECK(sat(464.0, rkind::e4m3) == 0x7e);   // halfway between 448 (0x7e) and 480 (not a value): 448
  CHECK(sat(0x1p-9, rkind::e4m3) == 0x01);  // the smallest subnormal
  CHECK(sat(0x1p-10, rkind::e4m3) == 0x00); // halfway between 0 and 2^-9: 0
  CHECK(sat(1.0, rkind::e5m2) == 0x3c);
  CHECK(sat(57344.0, rkind::e5m2) == 0x7b);
  CHECK(sat(1e6, rkind::e5m2) == 0x7b);
  CHECK(sat(-INFINITY, rkind::e5m2) == 0xfb);
  CHECK(sat(0.3, rkind::e5m2) == 0x35);
  CHECK(fl::decode(0x7e, rkind::e4m3) == 448.0);
  CHECK(std::isnan(fl::decode(0x7f, rkind::e4m3)));
  CHECK(std::isnan(fl::decode(0xff, rkind::e4m3)));
  CHECK(fl::decode(0x7c, rkind::e4m3) == 384.0);  // exponent 1111 holds finite values in e4m3
  CHECK(fl::decode(0x7c, rkind::e5m2) == INFINITY);
  CHECK(std::isnan(fl::decode(0x7d, rkind::e5m2)));
  CHECK(fl::decode(0x01, rkind::e5m2) == 0x1p-16);
  CHECK(fl::decode(0x80, rkind::e4m3) == 0.0);
  CHECK(std::signbit(fl::decode(0x80, rkind::e4m3)));
  // every code decodes and encodes back (NaNs to the canonical 0x7f)
  for (rkind k : {rkind::e4m3, rkind::e5m2})
    for (unsigned c = 0; c < 256; ++c) {
      double v = fl::decode(c, k);
      CAPTURE(c);
      CHECK(fl::encode(v, k) == (std::isnan(v) ? 0x7fu : c));
    }
}

namespace {

// Thread t converts the pair X[2t], X[2t+1] to an fp8 pair (X[2t] to the upper byte), stores its
// bits to Q[t] and converts it back to f16x2 and f32: Y[2t] from the upper byte, Y[2t+1] the lower.
constexpr std::string_view fp8_cvt = R"(
.visible .entry cvt8(.param .u64 y_param, .param .u64 x_param, .param .u64 q_param)
{
  .reg .b32 %r<4>;
  .reg .b16 %h<4>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.param.u64 %rd3, [q_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd5+4];
  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;
  mul.wide.u32 %rd6, %r1, 2;
  add.s64 %rd7, %rd3, %rd6;
  st.global.b16 [%rd7], %h1;
  cvt.rn.f16x2.e4m3x2 %r2, %h1;
  mov.b32 {%h2, %h3}, %r2;
  cvt.f32.f16 %f3, %h3;
  cvt.f32.f16 %f4, %h2;
  add.s64 %rd8, %rd1, %rd4;
  st.global.f32 [%rd8], %f3;
  st.global.f32 [%rd8+4], %f4;
  ret;
}
)";

std::string fp8_replaced(std::string s, std::string_view from, std::string_view to, bool all = false) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  do {
    s.replace(at, from.size(), to);
    at = s.find(from, at + to.size());
  } while (all && at != std::string::npos);
  return s;
}

// The pairs, as exact rationals (the float32 run rounds them to f32 first, as a GPU reading X would).
const std::vector<rat>& fp8_inputs() {
  static const std::vector<rat> x = {rat(1),        rat(448),     rat(3, 10),  rat(1000),   rat(-1000),   rat(-3, 10),
                                     rat(17, 16),   rat(19, 16),  rat(464),    rat(1, 512), rat(1, 1024), rat(3, 2048),
                                     rat(240),      rat(17),      rat(-897, 2), rat(7, 2)};
  return x;
}
values fp8_values() {
  return [](std::string_view, std::uint64_t e) { return e < fp8_inputs().size() ? fp8_inputs()[e] : rat(0); };
}

exec::launch fp8_cvt_launch() {
  exec::launch l = one_cta(8, {out_f32("Y", 16), in_f32("X", 16), out_int("Q", 8, 2)});
  l.tensors[2].is_signed = false;
  return l;
}

struct fp8_expect {
  std::vector<std::uint64_t> q;  // the model's codes, upper << 8 | lower
  std::vector<double> y;         // their values
};

// The model's results (see the top of the file) for the inputs above.
fp8_expect fp8_cvt_expect(bool e5m2, bool relu) {
  if (!e5m2 && !relu)
    return {{0x387e, 0x2a7e, 0xfeaa, 0x383a, 0x7e01, 0x0001, 0x7758, 0xfe46},
            {1, 448, 0.3125, 448, -448, -0.3125, 1, 1.25, 448, 0x1p-9, 0, 0x1p-9, 240, 16, -448, 3.5}};
  if (!e5m2)
    return {{0x387e, 0x2a7e, 0x0000, 0x383a, 0x7e01, 0x0001, 0x7758, 0x0046},
            {1, 448, 0.3125, 448, 0, 0, 1, 1.25, 448, 0x1p-9, 0, 0x1p-9, 240, 16, 0, 3.5}};
  if (!relu)
    return {{0x3c5f, 0x3564, 0xe4b5, 0x3c3d, 0x5f18, 0x1416, 0x5c4c, 0xdf43},
            {1, 448, 0.3125, 1024, -1024, -0.3125, 1, 1.25, 448, 0x1p-9, 0x1p-10, 1.5 * 0x1p-10, 256, 16, -448, 3.5}};
  return {{0x3c5f, 0x3564, 0x0000, 0x3c3d, 0x5f18, 0x1416, 0x5c4c, 0x0043},
          {1, 448, 0.3125, 1024, 0, 0, 1, 1.25, 448, 0x1p-9, 0x1p-10, 1.5 * 0x1p-10, 256, 16, 0, 3.5}};
}

void fp8_check_float32(const std::string& ptx, const fp8_expect& want) {
  auto k = load(ptx, "cvt8.ptx");
  fixture<exec::float32_domain> f(fp8_values());
  exec::launch l = fp8_cvt_launch();
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t t = 0; t < 8; ++t) {
    CAPTURE(t);
    REQUIRE(r.out["Q"][t].has_value());
    CHECK(static_cast<std::uint64_t>(*r.out["Q"][t]) == want.q[t]);
  }
  for (std::uint32_t i = 0; i < 16; ++i) {
    CAPTURE(i);
    REQUIRE(r.out["Y"][i].has_value());
    CHECK(*r.out["Y"][i] == want.y[i]);
  }
}

}  // namespace

TEST_CASE("cvt.rn.satfinite{.relu}.e4m3x2/.e5m2x2.f32 and back through cvt.rn.f16x2, in float32") {
  std::string base(fp8_cvt);
  SUBCASE("e4m3") { fp8_check_float32(base, fp8_cvt_expect(false, false)); }
  SUBCASE("e4m3 .relu") {
    std::string p = fp8_replaced(base, "cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.satfinite.relu.e4m3x2.f32");
    fp8_check_float32(p, fp8_cvt_expect(false, true));
  }
  SUBCASE("e5m2") { fp8_check_float32(fp8_replaced(base, "e4m3x2", "e5m2x2", true), fp8_cvt_expect(true, false)); }
  SUBCASE("e5m2 .relu") {
    std::string p = fp8_replaced(fp8_replaced(base, "e4m3x2", "e5m2x2", true), "cvt.rn.satfinite.e5m2x2.f32",
                                 "cvt.rn.satfinite.relu.e5m2x2.f32");
    fp8_check_float32(p, fp8_cvt_expect(true, true));
  }
  SUBCASE("from .f16x2 (each half rounded to f16 first: these inputs give the same codes)") {
    // Python: the f16 value of each input (struct 'e') through cvt_satfinite gives the codes of
    // the f32 path for these inputs (0.3 -> 0.30004883 -> 0.3125; 1000 -> 448).
    std::string p = fp8_replaced(base, "  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\n",
                                 "  cvt.rn.f16x2.f32 %r3, %f1, %f2;\n  cvt.rn.satfinite.e4m3x2.f16x2 %h1, %r3;\n");
    fp8_check_float32(p, fp8_cvt_expect(false, false));
  }
  SUBCASE("NaN stays NaN (0x7f), infinity saturates (0x7e e4m3, 0x7b e5m2)") {
    for (bool e5m2 : {false, true}) {
      CAPTURE(e5m2);
      std::string p = fp8_replaced(base, "  ld.global.f32 %f2, [%rd5+4];\n",
                                   "  ld.global.f32 %f2, [%rd5+4];\n  mov.f32 %f1, 0f7FC00000;\n  mov.f32 %f2, 0fFF800000;\n");
      if (e5m2) p = fp8_replaced(p, "e4m3x2", "e5m2x2", true);
      auto k = load(p, "cvt8.ptx");
      fixture<exec::float32_domain> f(fp8_values());
      exec::launch l = fp8_cvt_launch();
      auto r = run(*k, l, f.d);
      REQUIRE_MESSAGE(!r.error, r.error->message);
      REQUIRE(r.out["Q"][0].has_value());
      CHECK(static_cast<std::uint64_t>(*r.out["Q"][0]) == (e5m2 ? 0x7ffbu : 0x7ffeu));
      REQUIRE(r.out["Y"][0].has_value());
      CHECK(std::isnan(*r.out["Y"][0]));
      CHECK(*r.out["Y"][1] == (e5m2 ? -57344.0 : -448.0));
    }
  }
}

TEST_CASE("cvt .satfinite and .relu to f16: clamp to 65504, negative to +0, NaN stays NaN (float32)") {
  // Thread t converts X[2t] (upper half) and X[2t+1] with cvt.rn.satfinite{.relu}.f16x2.f32 and
  // X[2t+1] alone with cvt.rn.satfinite.f16.f32. The largest finite f16 is 65504 (1.1111111111b x 2^15).
  constexpr std::string_view cvth = R"(
.visible .entry cvth(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<4>;
  .reg .b16 %h<5>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd5+4];
  cvt.rn.satfinite.relu.f16x2.f32 %r2, %f1, %f2;
  mov.b32 {%h2, %h3}, %r2;
  cvt.rn.satfinite.f16.f32 %h4, %f2;
  cvt.f32.f16 %f3, %h3;
  cvt.f32.f16 %f4, %h2;
  cvt.f32.f16 %f5, %h4;
  mul.wide.u32 %rd6, %r1, 12;
  add.s64 %rd7, %rd1, %rd6;
  st.global.f32 [%rd7], %f3;
  st.global.f32 [%rd7+4], %f4;
  st.global.f32 [%rd7+8], %f5;
  ret;
}
)";
  // .satfinite on cvt to f16 needs PTX ISA 8.1 (ptxas says so): this kernel gets its own header.
  auto load81 = [](std::string_view body) {
    auto kk = std::make_unique<kernel>();
    kk->module = gpueq::ptx::parse(".version 8.1\n.target sm_90a\n.address_size 64\n" + std::string(body), "cvth.ptx");
    REQUIRE(!kk->module.functions.empty());
    kk->program = exec::decode(kk->module, kk->module.functions[0]);
    return kk;
  };
  auto k = load81(cvth);
  const std::vector<rat> x = {rat(100000), rat(-3), rat(70000), rat(1, 2), rat(-1), rat(-100000), rat(3), rat(65519)};
  fixture<exec::float32_domain> f([&](std::string_view, std::uint64_t e) { return x[e]; });
  exec::launch l = one_cta(4, {out_f32("Y", 12), in_f32("X", 8)});
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // (relu upper, relu lower, satfinite lower) per thread; 65519 rounds to 65504 (65520 would be
  // the tie towards infinity), so it needs no clamp either way.
  const std::vector<double> want = {65504, 0, -3, 65504, 0.5, 0.5, 0, 0, -65504, 3, 65504, 65504};
  for (std::uint32_t i = 0; i < 12; ++i) {
    CAPTURE(i);
    REQUIRE(r.out["Y"][i].has_value());
    CHECK(*r.out["Y"][i] == want[i]);
  }
  SUBCASE("NaN stays NaN under .relu") {
    std::string p = fp8_replaced(std::string(cvth), "  ld.global.f32 %f2, [%rd5+4];\n",
                                 "  ld.global.f32 %f2, [%rd5+4];\n  mov.f32 %f1, 0f7FC00000;\n");
    auto k2 = load81(p);
    auto r2 = run(*k2, l, f.d);
    REQUIRE_MESSAGE(!r2.error, r2.error->message);
    CHECK(std::isnan(*r2.out["Y"][0]));
  }
}

TEST_CASE_TEMPLATE("fp8 conversions over the reals are the identity (.satfinite too), .relu is max(x, 0)", D,
                   exec::exact_domain, exec::symbolic_domain) {
  // Over the reals gpueq rounds nothing, as for f16 and bf16 (README, semantics): Y = X, and with
  // .relu Y = max(X, 0). (1000 stays 1000 here where the GPU saturates it to 448: the real model's
  // known difference at the edge of the format's range, as for an f16 overflow.) The bits are not
  // stored: an fp8 pair of symbolic values has none.
  for (bool relu : {false, true})
    for (bool e5m2 : {false, true}) {
      CAPTURE(relu);
      CAPTURE(e5m2);
      std::string p = fp8_replaced(std::string(fp8_cvt), "  st.global.b16 [%rd7], %h1;\n", "");
      if (relu) p = fp8_replaced(p, "cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.satfinite.relu.e4m3x2.f32");
      if (e5m2) p = fp8_replaced(p, "e4m3x2", "e5m2x2", true);
      auto k = load(p, "cvt8.ptx");
      fixture<D> f(fp8_values());
      exec::launch l = fp8_cvt_launch();
      auto r = run(*k, l, f.d);
      REQUIRE_MESSAGE(!r.error, r.error->message);
      for (std::uint32_t i = 0; i < 16; ++i) {
        CAPTURE(i);
        REQUIRE(r.out["Y"][i].has_value());
        rat want = fp8_inputs()[i];
        if (relu && want < 0) want = 0;
        CHECK(f.at(*r.out["Y"][i], l) == want);
      }
    }
}

TEST_CASE("the symbolic bits of an fp8 pair and fp8 cvt forms gpueq does not model are errors") {
  fixture<exec::symbolic_domain> f(fp8_values());
  SUBCASE("storing a symbolic pair into an integer tensor") {
    auto k = load(fp8_cvt, "cvt8.ptx");
    auto e = expect_error(*k, fp8_cvt_launch(), f.d);
    CAPTURE(e.message);
    CHECK(e.kind == exec::error_kind::not_structured);
  }
  SUBCASE(".relu outside cvt stops the run") {
    std::string p = fp8_replaced(std::string(fp8_cvt), "  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\n",
                                 "  max.relu.s32 %r3, %r1, %r1;\n  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\n");
    auto k = load(p, "cvt8.ptx");
    auto e = expect_error(*k, fp8_cvt_launch(), f.d);
    CAPTURE(e.message);
    CHECK(e.kind == exec::error_kind::unsupported);
    CHECK(contains(e.message, "cvt8.ptx:" + std::to_string(line_of(p, "max.relu"))));
    CHECK(contains(e.message, ".relu outside cvt"));
  }
}

namespace {

// The naive reader of an fp8 tensor, as nvcc compiles float(__nv_fp8_e4m3) (sm_90a): thread t reads
// byte A[t] with ld.global.u8 into a 16-bit register and converts it (Y[t]), and reads the pair
// A[2 (t % 8)], A[2 (t % 8) + 1] with one ld.global.b16 (Z[2t], Z[2t + 1]: low byte, high byte).
constexpr std::string_view fp8_read = R"(
.visible .entry read8(.param .u64 a_param, .param .u64 y_param, .param .u64 z_param)
{
  .reg .b16 %rs<8>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [a_param];
  ld.param.u64 %rd2, [y_param];
  ld.param.u64 %rd3, [z_param];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd4, %r1;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u8 %rs1, [%rd5];
  cvt.rn.f16x2.e4m3x2 %r2, %rs1;
  cvt.u16.u32 %rs2, %r2;
  cvt.f32.f16 %f1, %rs2;
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd2, %rd6;
  st.global.f32 [%rd7], %f1;
  and.b32 %r3, %r1, 7;
  mul.wide.u32 %rd8, %r3, 2;
  add.s64 %rd9, %rd1, %rd8;
  ld.global.b16 %rs3, [%rd9];
  cvt.rn.f16x2.e4m3x2 %r4, %rs3;
  mov.b32 {%rs4, %rs5}, %r4;
  cvt.f32.f16 %f2, %rs4;
  cvt.f32.f16 %f3, %rs5;
  mul.wide.u32 %rd10, %r1, 8;
  add.s64 %rd11, %rd3, %rd10;
  st.global.v2.f32 [%rd11], {%f2, %f3};
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("an e4m3 / e5m2 tensor read a byte and a pair at a time converts to its values", D,
                   exec::exact_domain, exec::float32_domain, exec::symbolic_domain) {
  for (bool e5m2 : {false, true}) {
    CAPTURE(e5m2);
    std::string p(fp8_read);
    if (e5m2) p = fp8_replaced(p, "e4m3x2", "e5m2x2", true);
    auto k = load(p, "read8.ptx");
    exec::launch l = one_cta(16, {tensor("A", e5m2 ? rkind::e5m2 : rkind::e4m3, {16}, true, false), out_f32("Y", 16),
                                  out_f32("Z", 32)});
    CHECK(l.tensors[0].element_bytes == 1);
    values v = small_integers(11);  // integers in [-8, 8]: values of both formats
    fixture<D> f(v);
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    for (std::uint32_t t = 0; t < 16; ++t) {
      CAPTURE(t);
      REQUIRE(r.out["Y"][t].has_value());
      CHECK(f.at(*r.out["Y"][t], l) == v("A", t));
      REQUIRE(r.out["Z"][2 * t].has_value());
      CHECK(f.at(*r.out["Z"][2 * t], l) == v("A", 2 * (t % 8)));
      CHECK(f.at(*r.out["Z"][2 * t + 1], l) == v("A", 2 * (t % 8) + 1));
    }
  }
}

namespace {

// One m64n8k32 fp8 tile. A (64 x 32 bytes, row-major) lands K-major without swizzle: thread t
// copies A's bytes 16 t .. 16 t + 15 (row t / 2, k 16 (t % 2) ..) with cp.async to
// (row / 8) * 256 + (t % 2) * 128 + (row % 8) * 16 (SBO 256, LBO 128: two core matrices of 8 rows
// x 16 bytes along K). B is given transposed, Bt (8 n x 32 k, row-major), K-major as the ISA
// requires for 8-bit types: thread t < 16 copies n = t / 2, k 16 (t % 2) .. to n * 16 + (t % 2) * 128
// (LBO 128). D = A B + 1 (C = 1.0 everywhere); thread t stores d0..d3 to Y[4 t + i]. Af holds A
// fragments for the register form, which loads thread t's four registers from Af's bytes 16 t ..
// 16 t + 15 (fp8_regs).
constexpr std::string_view fp8_tile = R"(
.visible .entry tile8(.param .u64 y_param, .param .u64 a_param, .param .u64 b_param, .param .u64 af_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<40>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<20>;
  .reg .b16 %h<5>;
  .shared .align 128 .b8 sA[2048];
  .shared .align 128 .b8 sB[256];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [a_param];
  ld.param.u64 %rd3, [b_param];
  ld.param.u64 %rd15, [af_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd2, %rd4;
  shr.u32 %r6, %r1, 1;
  and.b32 %r7, %r1, 1;
  shr.u32 %r8, %r6, 3;
  and.b32 %r9, %r6, 7;
  shl.b32 %r10, %r8, 8;
  shl.b32 %r11, %r7, 7;
  shl.b32 %r12, %r9, 4;
  add.s32 %r13, %r10, %r11;
  add.s32 %r13, %r13, %r12;
  mov.u32 %r14, sA;
  add.s32 %r15, %r14, %r13;
  cp.async.cg.shared.global [%r15], [%rd5], 16;
  setp.lt.u32 %p1, %r1, 16;
  @!%p1 bra SKIP_B;
  add.s64 %rd6, %rd3, %rd4;
  mov.u32 %r16, sB;
  shr.u32 %r17, %r1, 1;
  shl.b32 %r17, %r17, 4;
  and.b32 %r19, %r1, 1;
  shl.b32 %r19, %r19, 7;
  add.s32 %r17, %r17, %r19;
  add.s32 %r18, %r16, %r17;
  cp.async.cg.shared.global [%r18], [%rd6], 16;
SKIP_B:
  cp.async.wait_all;
  bar.sync 0;
  mov.u32 %r14, sA;
  cvt.u64.u32 %rd7, %r14;
  shr.u64 %rd7, %rd7, 4;
  and.b64 %rd7, %rd7, 16383;
  or.b64 %rd8, %rd7, 68720001024;
  mov.u32 %r16, sB;
  cvt.u64.u32 %rd9, %r16;
  shr.u64 %rd9, %rd9, 4;
  and.b64 %rd9, %rd9, 16383;
  or.b64 %rd10, %rd9, 524288;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f3F800000;
  mov.f32 %f4, 0f3F800000;
  setp.ne.u32 %p2, %r1, 1000;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, %rd8, %rd10, %p2, 1, 1;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  mul.wide.u32 %rd11, %r1, 16;
  add.s64 %rd12, %rd1, %rd11;
  st.global.v4.f32 [%rd12], {%f1, %f2, %f3, %f4};
  ret;
}
)";
// (%rd8: SBO 256 = 16 << 32 | LBO 128 = 8 << 16; %rd10: LBO 128 = 8 << 16.)

constexpr std::string_view fp8_mma = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, %rd8, %rd10, %p2, 1, 1;";
constexpr std::string_view fp8_regs =
    "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, {%r20, %r21, %r22, %r23}, %rd10, %p2, 1, 1;";
// The register form: the tile with its A fragments loaded before the fence and its MMA reading them.
std::string fp8_register_form() {
  std::string p = fp8_replaced(std::string(fp8_tile), std::string(fp8_mma), std::string(fp8_regs));
  return fp8_replaced(p, "  setp.ne.u32 %p2, %r1, 1000;\n",
                      "  setp.ne.u32 %p2, %r1, 1000;\n  mul.wide.u32 %rd16, %r1, 16;\n  add.s64 %rd17, %rd15, %rd16;\n"
                      "  ld.global.v4.b32 {%r20, %r21, %r22, %r23}, [%rd17];\n");
}

// The ISA's fragment formulas, written out here: D as in the f16 tile (m64nNk32 has the same D
// layout); A for 8-bit types: element i of thread t is in byte i % 4 of register i / 4, at row
// 16 warp + groupID + 8 for i in 4..7 and 12..15, col 4 threadID_in_group + i % 4 (+ 16 for i >= 8).
struct fp8_rc {
  std::uint32_t row, col;
};
fp8_rc fp8_d_at(std::uint32_t t, std::uint32_t i) {
  std::uint32_t warp = t / 32, lane = t % 32, group = lane >> 2, in_group = lane % 4;
  return {16 * warp + group + ((i == 2 || i == 3) ? 8u : 0u), in_group * 2 + (i & 1)};
}
fp8_rc fp8_a_at(std::uint32_t t, std::uint32_t i) {
  std::uint32_t warp = t / 32, lane = t % 32, group = lane >> 2, in_group = lane % 4;
  bool lower = (i >= 4 && i < 8) || i >= 12;
  return {16 * warp + group + (lower ? 8u : 0u), in_group * 4 + i % 4 + (i >= 8 ? 16u : 0u)};
}

exec::launch fp8_tile_launch(rkind ka, rkind kb) {
  return one_cta(128, {out_f32("Y", 512), tensor("A", ka, {64, 32}, true, false), tensor("Bt", kb, {8, 32}, true, false),
                       tensor("Af", ka, {128 * 16}, true, false)});
}

// Y for A = a(row, k): 1 + sum over k of a(row, k) Bt(col, k), per accumulator element.
template <class F>
std::vector<rat> fp8_tile_want(const values& v, F a) {
  std::vector<rat> want(512);
  for (std::uint32_t t = 0; t < 128; ++t)
    for (std::uint32_t i = 0; i < 4; ++i) {
      fp8_rc at = fp8_d_at(t, i);
      rat acc = 1;
      for (std::uint32_t q = 0; q < 32; ++q) acc += a(at.row, q) * v("Bt", at.col * 32 + q);
      want[4 * t + i] = acc;
    }
  return want;
}

template <class D>
void fp8_check_tile(const std::string& ptx, exec::launch l, const std::vector<rat>& want, const values& v) {
  auto k = load(ptx, "tile8.ptx");
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < 512; ++i) {
    REQUIRE(r.out["Y"][i].has_value());
    bad += f.at(*r.out["Y"][i], l) != want[i];
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("one wgmma m64n8k32 fp8 tile: A and B through descriptors, e4m3, e5m2 and mixed", D,
                   exec::exact_domain, exec::float32_domain, exec::symbolic_domain) {
  values v = small_integers(7);  // integers in [-8, 8]: fp8 values; every sum is exact in f32
  auto a_mem = [&](std::uint32_t row, std::uint32_t k) { return v("A", row * 32 + k); };
  std::string base(fp8_tile);
  SUBCASE("e4m3 x e4m3") { fp8_check_tile<D>(base, fp8_tile_launch(rkind::e4m3, rkind::e4m3), fp8_tile_want(v, a_mem), v); }
  SUBCASE("e5m2 x e5m2") {
    std::string p = fp8_replaced(base, ".f32.e4m3.e4m3", ".f32.e5m2.e5m2");
    fp8_check_tile<D>(p, fp8_tile_launch(rkind::e5m2, rkind::e5m2), fp8_tile_want(v, a_mem), v);
  }
  SUBCASE("e4m3 x e5m2") {
    std::string p = fp8_replaced(base, ".f32.e4m3.e4m3", ".f32.e4m3.e5m2");
    fp8_check_tile<D>(p, fp8_tile_launch(rkind::e4m3, rkind::e5m2), fp8_tile_want(v, a_mem), v);
  }
}

TEST_CASE("one wgmma m64n8k32 e4m3 tile with constant matrices: every D element is a known sum") {
  // A = 0.5 everywhere (e4m3 0x30), Bt = 3 (0x44): each element 1 + 32 * 1.5 = 49.
  fixture<exec::float32_domain> f([](std::string_view name, std::uint64_t) { return name == "A" ? rat(1, 2) : rat(3); });
  auto k = load(fp8_tile, "tile8.ptx");
  exec::launch l = fp8_tile_launch(rkind::e4m3, rkind::e4m3);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t i = 0; i < 512; ++i) {
    REQUIRE(r.out["Y"][i].has_value());
    CHECK(*r.out["Y"][i] == 49.0);
  }
}

TEST_CASE_TEMPLATE("one wgmma m64n8k32 e4m3 tile: A from registers (four fp8 per register)", D, exec::exact_domain,
                   exec::float32_domain) {
  values v = small_integers(9);
  std::string p = fp8_register_form();
  std::vector<rat> amat(64 * 32);
  for (std::uint32_t t = 0; t < 128; ++t)
    for (std::uint32_t i = 0; i < 16; ++i) {
      fp8_rc at = fp8_a_at(t, i);
      amat[at.row * 32 + at.col] = v("Af", 16 * t + i);  // register i / 4, byte i % 4 = Af byte 16 t + i
    }
  fp8_check_tile<D>(p, fp8_tile_launch(rkind::e4m3, rkind::e4m3),
                    fp8_tile_want(v, [&](std::uint32_t r, std::uint32_t k) { return amat[r * 32 + k]; }), v);
  CHECK(gpueq::exec::wgmma::a_element_8bit(37, 13) == gpueq::exec::wgmma::coord{16 + 1 + 8, 4 + 1 + 16});
}

TEST_CASE("wgmma m64n8k32: an .f16 accumulator, imm-scale-b -1, and symbolic A fragments in registers") {
  values v = small_integers(13);
  auto a_mem = [&](std::uint32_t row, std::uint32_t k) { return v("A", row * 32 + k); };
  SUBCASE(".f16 accumulator (C = 1.0 halves), B negated") {
    std::string p = fp8_replaced(std::string(fp8_tile), std::string(fp8_mma),
                                 "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3 {%r30, %r31}, %rd8, %rd10, %p2, 1, -1;");
    p = fp8_replaced(p, "  wgmma.fence.sync.aligned;\n",
                     "  mov.b32 %r30, 0x3C003C00;\n  mov.b32 %r31, 0x3C003C00;\n  wgmma.fence.sync.aligned;\n");
    p = fp8_replaced(p, "  mul.wide.u32 %rd11, %r1, 16;\n",
                     "  mov.b32 {%h1, %h2}, %r30;\n  mov.b32 {%h3, %h4}, %r31;\n  cvt.f32.f16 %f1, %h1;\n"
                     "  cvt.f32.f16 %f2, %h2;\n  cvt.f32.f16 %f3, %h3;\n  cvt.f32.f16 %f4, %h4;\n"
                     "  mul.wide.u32 %rd11, %r1, 16;\n");
    auto k = load(p, "tile8.ptx");
    fixture<exec::exact_domain> f(v);
    exec::launch l = fp8_tile_launch(rkind::e4m3, rkind::e4m3);
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    std::size_t bad = 0;
    for (std::uint32_t t = 0; t < 128; ++t)
      for (std::uint32_t i = 0; i < 4; ++i) {
        fp8_rc at = fp8_d_at(t, i);
        rat want = 1;  // (exact domain: the f16 accumulator rounds nothing over the reals)
        for (std::uint32_t q = 0; q < 32; ++q) want -= a_mem(at.row, q) * v("Bt", at.col * 32 + q);
        bad += f.at(*r.out["Y"][4 * t + i], l) != want;
      }
    CHECK(bad == 0);
  }
  SUBCASE("A fragments of symbolic fp8 data: four fp8 values in one register are not modelled symbolically") {
    std::string p = fp8_register_form();
    auto k = load(p, "tile8.ptx");
    fixture<exec::symbolic_domain> f(v);
    auto e = expect_error(*k, fp8_tile_launch(rkind::e4m3, rkind::e4m3), f.d);
    CAPTURE(e.message);
    CHECK(e.kind == exec::error_kind::not_structured);
    CHECK(contains(e.message, "tile8.ptx:" + std::to_string(line_of(p, "ld.global.v4.b32"))));
  }
}
