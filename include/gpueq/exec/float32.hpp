// The concrete float domain: what the GPU computes. A value is the double that its format (f16,
// bf16, f32, f64) encodes exactly; every operation rounds to the instruction's format with the
// instruction's rounding mode, flushes subnormals under .ftz and clamps under .sat, so runs are
// bit-faithful for the IEEE operations PTX defines (add, sub, mul, fma, div.rn, sqrt.rn, rcp.rn,
// conversions). The .approx instructions (ex2, lg2, rcp/rsqrt/sqrt.approx, sin, cos, tanh) use the
// C library's correctly rounded or near functions: within the error PTX states, not bit-identical
// to any particular GPU. Integer data (integer tensors) are doubles holding exact integers.
#pragma once

#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/floats.hpp>

#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>
#include <functional>
#include <string>
#include <vector>

namespace gpueq::exec {

class float32_domain {
 public:
  using real = double;
  using result = double;
  static constexpr bool symbolic = false;

  // Inputs: the value of each input element (already a value of its format).
  using input_source = std::function<double(const input_ref&)>;
  explicit float32_domain(input_source inputs) : inputs_(std::move(inputs)) {}

  real from_float(std::uint64_t bits, rkind k) { return floats::decode(bits, k); }
  real from_int(std::int64_t v) { return static_cast<double>(v); }
  std::optional<std::uint64_t> float_bits(real a, rkind k) { return floats::encode(floats::round_to(a, k), k); }
  std::optional<std::int64_t> integer(real a) {
    if (!std::isfinite(a) || a != std::trunc(a)) return std::nullopt;
    return static_cast<std::int64_t>(a);
  }
  real input(const input_ref& in) { return inputs_(in); }
  result finish(real a) { return a; }
  void end_run() {}

  real arith(aop o, std::span<const real> x, rkind k, float_mode m) {
    if (k == rkind::integer) return integer_arith(o, x);
    if (m.nan && (o == aop::min || o == aop::max))  // .NaN: NaN in, canonical NaN out (not the other operand)
      for (real v : x)
        if (std::isnan(v)) return std::numeric_limits<double>::quiet_NaN();
    auto in = [&](std::size_t i) { return m.ftz ? floats::flush(x[i], k) : x[i]; };
    double r = 0;
    if (k == rkind::f32) {
      r = f32_arith(o, x.size() > 0 ? static_cast<float>(in(0)) : 0.f, x.size() > 1 ? static_cast<float>(in(1)) : 0.f,
                    x.size() > 2 ? static_cast<float>(in(2)) : 0.f, m);
    } else {
      // f16/bf16 operands are exact in double, and so are their sums and products; f64 uses the
      // double operations under the instruction's rounding mode.
      r = with_rounding(k == rkind::f64 ? m.round : rounding::rn, [&] {
        return f64_arith(o, x.size() > 0 ? in(0) : 0, x.size() > 1 ? in(1) : 0, x.size() > 2 ? in(2) : 0);
      });
      r = floats::round_to(r, k, m.round == rounding::none ? rounding::rn : m.round);
    }
    if (m.ftz) r = floats::flush(r, k);
    if (m.sat) r = std::isnan(r) ? 0.0 : std::fmin(std::fmax(r, 0.0), 1.0);
    return r;
  }

  // f32 add, sub, mul and fma rounded to nearest even, without .ftz/.sat: what arith(O, {a, b, c},
  // rkind::f32, float_mode{}) returns, without its dispatch (the engine's fast path calls this).
  // Each operand is rounded to f32 as arith rounds it, then one IEEE single-precision operation:
  // the same value whenever it is not a NaN (which NaN of two comes out is the compiled code's
  // choice; the engine asks arith again for a NaN).
  template <aop O>
  static double f32_plain(double a, double b, double c) {
    float fa = static_cast<float>(a), fb = static_cast<float>(b), fc = static_cast<float>(c);
    if constexpr (O == aop::add) return static_cast<double>(fa + fb);
    else if constexpr (O == aop::sub) return static_cast<double>(fa - fb);
    else if constexpr (O == aop::mul) return static_cast<double>(fa * fb);
    else {
      static_assert(O == aop::fma);
      return static_cast<double>(std::fma(fa, fb, fc));
    }
  }

  // D = A·B + C (m×k, k×n, m×n, row-major) in f32 with one rounding per fused multiply-add, each
  // element accumulated in k order: f32_plain<aop::fma> over the whole product (mma, wmma, wgmma).
  // false when an element comes out NaN (which NaN is arith's choice, as for f32_plain); D is then
  // partly written and the caller computes it element by element.
  static bool f32_product(const double* A, const double* B, const double* C, double* D, std::uint32_t m,
                          std::uint32_t n, std::uint32_t k) {
    // The operands rounded to f32 once (f32_plain rounds them at each use), then rows of D in
    // float: the j loop has no dependency between its iterations, so it vectorizes, and on an x86
    // CPU with FMA the fused operation is an instruction instead of a call of the C library's fmaf.
    constexpr std::uint32_t max_side = 256;  // mma, wmma: 16; wgmma: n up to 256, k 16
    if (m > max_side || n > max_side || k > max_side) return false;
    float a[max_side], acc[max_side];
    std::vector<float> b(std::size_t{k} * n);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(B[i]);
    for (std::uint32_t i = 0; i < m; ++i) {
      for (std::uint32_t q = 0; q < k; ++q) a[q] = static_cast<float>(A[std::size_t{i} * k + q]);
      for (std::uint32_t j = 0; j < n; ++j) acc[j] = static_cast<float>(C[std::size_t{i} * n + j]);
      fma_rows(a, b.data(), acc, n, k);
      for (std::uint32_t j = 0; j < n; ++j) {
        if (std::isnan(acc[j])) return false;
        D[std::size_t{i} * n + j] = static_cast<double>(acc[j]);
      }
    }
    return true;
  }

  std::optional<bool> compare(cmp_op c, real a, real b, rkind) {
    bool unordered = std::isnan(a) || std::isnan(b);
    switch (c) {
      case cmp_op::eq: return !unordered && a == b;
      case cmp_op::ne: return !unordered && a != b;
      case cmp_op::lt: case cmp_op::lo: return !unordered && a < b;
      case cmp_op::le: case cmp_op::ls: return !unordered && a <= b;
      case cmp_op::gt: case cmp_op::hi: return !unordered && a > b;
      case cmp_op::ge: case cmp_op::hs: return !unordered && a >= b;
      case cmp_op::equ: return unordered || a == b;
      case cmp_op::neu: return unordered || a != b;
      case cmp_op::ltu: return unordered || a < b;
      case cmp_op::leu: return unordered || a <= b;
      case cmp_op::gtu: return unordered || a > b;
      case cmp_op::geu: return unordered || a >= b;
      case cmp_op::num: return !unordered;
      case cmp_op::nan: return unordered;
    }
    return std::nullopt;
  }

  real convert(real a, rkind from, rkind to, float_mode m) {
    if (m.ftz) a = floats::flush(a, from);
    double r;
    if (to == rkind::integer) {
      if (std::isnan(a)) return 0;  // PTX: NaN converts to 0
      switch (m.round) {
        case rounding::rzi: case rounding::rz: r = std::trunc(a); break;
        case rounding::rmi: case rounding::rm: r = std::floor(a); break;
        case rounding::rpi: case rounding::rp: r = std::ceil(a); break;
        default: r = std::nearbyint(a); break;
      }
    } else if (m.satfinite && !std::isnan(a) && std::fabs(a) > floats::max_finite(to)) {
      r = std::signbit(a) ? -floats::max_finite(to) : floats::max_finite(to);
    } else {
      r = floats::round_to(a, to, m.round == rounding::none ? rounding::rn : m.round);
      if (m.ftz) r = floats::flush(r, to);
    }
    if (m.sat && to != rkind::integer) r = std::isnan(r) ? 0.0 : std::fmin(std::fmax(r, 0.0), 1.0);
    return r;
  }

  bool same(real a, real b) const { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }
  std::optional<std::uint64_t> identity(real a) const { return std::bit_cast<std::uint64_t>(a); }
  std::string show(real a) const {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", a);
    return buf;
  }

 private:
  template <class F>
  static auto with_rounding(rounding r, F f) -> decltype(f()) {
    int mode = FE_TONEAREST;
    if (r == rounding::rz) mode = FE_TOWARDZERO;
    else if (r == rounding::rm) mode = FE_DOWNWARD;
    else if (r == rounding::rp) mode = FE_UPWARD;
    if (mode == FE_TONEAREST) return f();
    int old = std::fegetround();
    std::fesetround(mode);
    volatile auto result = f();  // volatile: the operation happens while the mode is set
    std::fesetround(old);
    return static_cast<decltype(f())>(result);
  }

  static double f32_arith(aop o, float a, float b, float c, float_mode m) {
    auto rounded = [&](auto f) -> double {
      volatile float va = a, vb = b, vc = c;
      return static_cast<double>(with_rounding(m.round, [&]() -> float { return f(float(va), float(vb), float(vc)); }));
    };
    switch (o) {
      case aop::add: return rounded([](float p, float q, float) { return p + q; });
      case aop::sub: return rounded([](float p, float q, float) { return p - q; });
      case aop::mul: return rounded([](float p, float q, float) { return p * q; });
      case aop::fma: return rounded([](float p, float q, float r) { return std::fma(p, q, r); });
      case aop::div: return rounded([](float p, float q, float) { return p / q; });
      case aop::rcp: return rounded([](float p, float, float) { return 1.0f / p; });
      case aop::sqrt: return rounded([](float p, float, float) { return std::sqrt(p); });
      case aop::neg: return static_cast<double>(-a);
      case aop::abs: return static_cast<double>(std::fabs(a));
      case aop::min: return static_cast<double>(std::fmin(a, b));
      case aop::max: return static_cast<double>(std::fmax(a, b));
      case aop::rsqrt: return static_cast<double>(1.0f / std::sqrt(a));
      case aop::exp: return static_cast<double>(std::exp(a));
      case aop::exp2: return static_cast<double>(std::exp2(a));
      case aop::log: return static_cast<double>(std::log(a));
      case aop::log2: return static_cast<double>(std::log2(a));
      case aop::pow: return static_cast<double>(std::pow(a, b));
      case aop::tanh: return static_cast<double>(std::tanh(a));
      case aop::erf: return static_cast<double>(std::erf(a));
      case aop::sin: return static_cast<double>(std::sin(a));
      case aop::cos: return static_cast<double>(std::cos(a));
    }
    return 0;
  }

  static double f64_arith(aop o, double a, double b, double c) {
    switch (o) {
      case aop::add: return a + b;
      case aop::sub: return a - b;
      case aop::mul: return a * b;
      case aop::fma: return std::fma(a, b, c);
      case aop::div: return a / b;
      case aop::rcp: return 1.0 / a;
      case aop::sqrt: return std::sqrt(a);
      case aop::neg: return -a;
      case aop::abs: return std::fabs(a);
      case aop::min: return std::fmin(a, b);
      case aop::max: return std::fmax(a, b);
      case aop::rsqrt: return 1.0 / std::sqrt(a);
      case aop::exp: return std::exp(a);
      case aop::exp2: return std::exp2(a);
      case aop::log: return std::log(a);
      case aop::log2: return std::log2(a);
      case aop::pow: return std::pow(a, b);
      case aop::tanh: return std::tanh(a);
      case aop::erf: return std::erf(a);
      case aop::sin: return std::sin(a);
      case aop::cos: return std::cos(a);
    }
    return 0;
  }

  static double integer_arith(aop o, std::span<const double> x) {
    switch (o) {
      case aop::add: return x[0] + x[1];
      case aop::sub: return x[0] - x[1];
      case aop::mul: return x[0] * x[1];
      case aop::fma: return x[0] * x[1] + x[2];
      case aop::neg: return -x[0];
      case aop::abs: return std::fabs(x[0]);
      case aop::min: return std::fmin(x[0], x[1]);
      case aop::max: return std::fmax(x[0], x[1]);
      default: throw domain_error(std::string("integer data has no '") + std::string(name(o)) + "'");
    }
  }

  input_source inputs_;

#undef GPUEQ_F32_FMA_CLONES  // ours alone: a definition from elsewhere must not pick the x86 path
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GPUEQ_F32_FMA_CLONES 1
  // The fused loops compiled for FMA whatever the build's -march, used where the CPU has it.
  __attribute__((target("fma"))) static void fma_rows_x86(const float* a, const float* b, float* acc,
                                                          std::uint32_t n, std::uint32_t k) {
    for (std::uint32_t q = 0; q < k; ++q)
      for (std::uint32_t j = 0; j < n; ++j) acc[j] = __builtin_fmaf(a[q], b[std::size_t{q} * n + j], acc[j]);
  }
  __attribute__((target("fma"))) static bool fma_lanes_x86(const float* a, const float* b, const float* c, float* r,
                                                           std::uint32_t n) {
    unsigned nan = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      r[i] = __builtin_fmaf(a[i], b[i], c[i]);
      nan |= r[i] != r[i];
    }
    return nan != 0;
  }
  static bool cpu_has_fma() {
    static const bool fma = __builtin_cpu_supports("fma");
    return fma;
  }
#endif

  // acc[j] = fma(a[q], b[q·n + j], acc[j]) for q = 0, 1, ..., k − 1 (f32_product's row).
  static void fma_rows(const float* a, const float* b, float* acc, std::uint32_t n, std::uint32_t k) {
#ifdef GPUEQ_F32_FMA_CLONES
    if (cpu_has_fma()) return fma_rows_x86(a, b, acc, n, k);
#endif
    for (std::uint32_t q = 0; q < k; ++q)
      for (std::uint32_t j = 0; j < n; ++j) acc[j] = std::fma(a[q], b[std::size_t{q} * n + j], acc[j]);
  }

 public:
  // r[i] = fma(a[i], b[i], c[i]) in f32 for i < n: f32_plain<aop::fma> for a warp's lanes at once
  // (engine::warp_float_lanes), the fused operation an instruction where the CPU has one. Whether
  // some r[i] is a NaN (found in the same vectorized loop).
  static bool f32_fma_lanes(const float* a, const float* b, const float* c, float* r, std::uint32_t n) {
#ifdef GPUEQ_F32_FMA_CLONES
    if (cpu_has_fma()) return fma_lanes_x86(a, b, c, r, n);
#endif
    unsigned nan = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      r[i] = std::fma(a[i], b[i], c[i]);
      nan |= r[i] != r[i];
    }
    return nan != 0;
  }
#undef GPUEQ_F32_FMA_CLONES
};

static_assert(value_domain<float32_domain>);

}  // namespace gpueq::exec
