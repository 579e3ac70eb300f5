// DSL specifications of the kernel corpus's references (examples/kernels): what softmax, a sum
// reduction, GEMM, attention, convolution, layernorm and rmsnorm compute, each a few lines, at
// the shapes the corpus uses. Each is a function template of its shape returning a DSL output
// definition; the corpus shapes are registered by name (check::register_spec) so that a pair
// spec can say "reference": {"spec": "softmax_256"} and `gpueq check` proves the candidate kernel
// equal to the specification. Tensor and scalar names are the pair specs' (x, y, A, B, C, alpha…).
#pragma once

#include <gpueq/check/spec_check.hpp>
#include <gpueq/dsl.hpp>

namespace gpueq::specs {

using dsl::constant;
using dsl::define;
using dsl::let;
using dsl::max_over;
using dsl::scalar;
using dsl::sum;
using dsl::tensor;
using dsl::var;

inline constexpr var<'i'> i;
inline constexpr var<'j'> j;
inline constexpr var<'k'> k;
inline constexpr var<'c'> c;
inline constexpr var<'h'> h;
inline constexpr var<'w'> w;
inline constexpr var<'r'> r;
inline constexpr var<'s'> s;

// y[i] = exp(x[i]) / Σ_j exp(x[j])  (over the reals the max-shift of a "safe" softmax cancels)
template <long N>
constexpr auto softmax() {
  constexpr tensor<"x", N> x;
  constexpr tensor<"y", N> y;
  return define(y(i), dsl::exp(x(i)) / sum<j, 0, N>(dsl::exp(x(j))));
}

// out[0] = Σ_j x[j]
template <long N>
constexpr auto reduce_sum() {
  constexpr tensor<"x", N> x;
  constexpr tensor<"out", 1> out;
  return define(out(i), sum<j, 0, N>(x(j)));
}

// C = α·A·B + β·C, A M×K, B K×N, C M×N row-major; α and β symbolic scalars.
template <long M, long N, long K>
constexpr auto gemm() {
  constexpr tensor<"A", M, K> A;
  constexpr tensor<"B", K, N> B;
  constexpr tensor<"C", M, N> C;
  constexpr scalar<"alpha"> alpha;
  constexpr scalar<"beta"> beta;
  return define(C(i, j), alpha * sum<k, 0, K>(A(i, k) * B(k, j)) + beta * C(i, j));
}

// O = softmax(scale · Q Kᵀ) V, Q NQ×D, K and V NKV×D, scale = ScaleNum/ScaleDen (a concrete scalar).
template <long NQ, long NKV, long D, long ScaleNum = 1, long ScaleDen = 8>
constexpr auto attention() {
  constexpr tensor<"Q", NQ, D> Q;
  constexpr tensor<"K", NKV, D> K;
  constexpr tensor<"V", NKV, D> V;
  constexpr tensor<"O", NQ, D> O;
  auto score = let(constant(ScaleNum, ScaleDen) * sum<c, 0, D>(Q(i, c) * K(j, c)));  // S[i][j]
  auto m = let(max_over<j, 0, NKV>(score));                                            // row maximum
  auto p = dsl::exp(score - m);                                                        // P[i][j]
  auto l = let(sum<j, 0, NKV>(p));                                                     // row sum
  return define(O(i, k), sum<j, 0, NKV>(p * V(j, k)) / l);
}

// S = Q Kᵀ / √D (attention scores), Q NQ×D, K NK×D.
template <long NQ, long NK, long D>
constexpr auto scores() {
  constexpr tensor<"Q", NQ, D> Q;
  constexpr tensor<"K", NK, D> K;
  constexpr tensor<"S", NQ, NK> S;
  return define(S(i, j), sum<c, 0, D>(Q(i, c) * K(j, c)) * dsl::rsqrt(constant(D)));
}

// Direct 2-D convolution (cross-correlation, stride 1, no padding), NHWC with one image:
// Y[h][w][k] = Σ_{r,s,c} X[h+r][w+s][c] · W[k][r][s][c].
template <long H, long W_, long C, long KOUT, long R, long S>
constexpr auto conv2d() {
  constexpr tensor<"X", H, W_, C> X;
  constexpr tensor<"W", KOUT, R, S, C> W;
  constexpr tensor<"Y", H - R + 1, W_ - S + 1, KOUT> Y;
  return define(Y(h, w, k), sum<r, 0, R>(sum<s, 0, S>(sum<c, 0, C>(X(h + r, w + s, c) * W(k, r, s, c)))));
}

// y = (x − mean) / √(var + ε) · γ + β with the biased variance; ε a symbolic scalar.
template <long N>
constexpr auto layernorm() {
  constexpr tensor<"x", N> x;
  constexpr tensor<"gamma", N> gamma;
  constexpr tensor<"beta", N> beta;
  constexpr tensor<"y", N> y;
  constexpr scalar<"eps"> eps;
  auto mean = let(sum<j, 0, N>(x(j)) / N);
  auto variance = let(sum<j, 0, N>((x(j) - mean) * (x(j) - mean)) / N);
  return define(y(i), (x(i) - mean) * dsl::rsqrt(variance + eps) * gamma(i) + beta(i));
}

// y = x / √(mean(x²) + ε) · γ
template <long N>
constexpr auto rmsnorm() {
  constexpr tensor<"x", N> x;
  constexpr tensor<"gamma", N> gamma;
  constexpr tensor<"y", N> y;
  constexpr scalar<"eps"> eps;
  auto rms = let(dsl::rsqrt(sum<j, 0, N>(x(j) * x(j)) / N + eps));
  return define(y(i), x(i) * rms * gamma(i));
}

// The corpus shapes, by name.
inline const bool corpus_registered = [] {
  auto add = [](const char* name, const char* what, auto def) {
    check::register_spec(name, [=] { return check::from_dsl(name, what, def); });
  };
  add("softmax_256", "y = softmax(x), one row of 256", softmax<256>());
  add("sum_128", "out[0] = sum of x, 128 values", reduce_sum<128>());
  add("sum_96", "out[0] = sum of x, 96 values", reduce_sum<96>());
  add("gemm_64x64x128", "C = alpha A B + beta C, A 64x128, B 128x64", gemm<64, 64, 128>());
  add("gemm_128x128x128", "C = alpha A B + beta C, 128x128 matrices", gemm<128, 128, 128>());
  add("attention_16x512x64", "O = softmax(Q K^T / 8) V, 16 queries, 512 keys, head dimension 64", attention<16, 512, 64>());
  add("attention_16x64x64", "O = softmax(Q K^T / 8) V, 16 queries, 64 keys, head dimension 64", attention<16, 64, 64>());
  add("scores_16x32x64", "S = Q K^T / sqrt(64), 16 queries, 32 keys", scores<16, 32, 64>());
  add("conv_10x10x16_32x3x3", "Y = X * W, X 10x10x16 (HWC), W 32x3x3x16, Y 8x8x32", conv2d<10, 10, 16, 32, 3, 3>());
  add("layernorm_256", "y = (x - mean) / sqrt(var + eps) * gamma + beta, one row of 256", layernorm<256>());
  add("rmsnorm_256", "y = x / sqrt(mean(x^2) + eps) * gamma, one row of 256", rmsnorm<256>());
  return true;
}();

}  // namespace gpueq::specs
