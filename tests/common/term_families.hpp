// Families of terms built the way kernels compute them (sequential chains, tiles, online
// rescaling), shared by the tests and the benchmarks of the decision procedure.
#pragma once

#include <gpueq/term/store.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpueq::families {

using term::store;
using term::term_id;
using term::rational;

inline term_id x(store& s, const char* name, std::uint32_t i) { return s.input(name, {i}); }
inline term_id x2(store& s, const char* name, std::uint32_t i, std::uint32_t j) { return s.input(name, {i, j}); }

// Naive softmax (VOLTA Fig. 1a): y[i] = exp(x[i]) / Σⱼ exp(x[j]), the sum accumulated in order.
inline std::vector<term_id> softmax_naive(store& s, std::uint32_t n) {
  std::vector<term_id> e(n), y(n);
  for (std::uint32_t j = 0; j < n; ++j) e[j] = s.exp(x(s, "x", j));
  term_id sum = s.zero();
  for (std::uint32_t j = 0; j < n; ++j) sum = s.add(sum, e[j]);
  for (std::uint32_t i = 0; i < n; ++i) y[i] = s.div(e[i], sum);
  return y;
}

// Online softmax (VOLTA Fig. 1b): running max m and denominator d, rescaled at every step.
// `rescale = false` drops the factor exp(m_old − m_new): the classic bug.
// `max_limit` < n is another bug: the outputs subtract a max taken over the first `max_limit`
// elements only, while d was rescaled to the full max (a max over a subset that does not cancel).
inline std::vector<term_id> softmax_online(store& s, std::uint32_t n, bool rescale = true,
                                           std::uint32_t max_limit = ~0u) {
  term_id m = s.infinity(true), d = s.zero(), subset_max = s.infinity(true);
  for (std::uint32_t i = 0; i < n; ++i) {
    term_id v = x(s, "x", i);
    term_id new_m = s.max(m, v);
    if (i < max_limit) subset_max = new_m;
    term_id scale = rescale ? s.exp(s.sub(m, new_m)) : s.one();
    d = s.add(s.mul(d, scale), s.exp(s.sub(v, new_m)));
    m = new_m;
  }
  std::vector<term_id> y(n);
  for (std::uint32_t i = 0; i < n; ++i) y[i] = s.div(s.exp(s.sub(x(s, "x", i), subset_max)), d);
  return y;
}

// Σₖ a[k]·b[k] accumulated sequentially with fma: acc = a[k]*b[k] + acc.
inline term_id dot_chain(store& s, std::uint32_t k) {
  term_id acc = s.zero();
  for (std::uint32_t i = 0; i < k; ++i) acc = s.fma(x(s, "a", i), x(s, "b", i), acc);
  return acc;
}

// Σ partial as a pairwise tree (a reduction's last stage over its partial sums), over any values
// that `add` adds: terms here, a value domain's values in bench_decide.
template <class T, class Add>
T pairwise(std::vector<T> partial, Add&& add) {
  while (partial.size() > 1) {
    std::vector<T> next;
    for (std::size_t i = 0; i + 1 < partial.size(); i += 2) next.push_back(add(partial[i], partial[i + 1]));
    if (partial.size() % 2) next.push_back(partial.back());
    partial.swap(next);
  }
  return partial[0];
}
inline term_id pairwise_sum(store& s, std::vector<term_id> partial) {
  return pairwise(std::move(partial), [&](term_id a, term_id b) { return s.add(a, b); });
}

// The same sum as a split-K kernel computes it: `lanes` interleaved partial sums, each a
// sequential chain, then a pairwise tree over the partial sums.
inline term_id dot_tree(store& s, std::uint32_t k, std::uint32_t lanes = 8) {
  std::vector<term_id> partial(lanes, s.zero());
  for (std::uint32_t i = 0; i < k; ++i)
    partial[i % lanes] = s.fma(x(s, "a", i), x(s, "b", i), partial[i % lanes]);
  return pairwise_sum(s, std::move(partial));
}

// One row of attention: o[c] = Σⱼ softmax(q·kⱼ·scale)ⱼ v[j][c], c < d.
inline std::vector<term_id> attention_naive(store& s, std::uint32_t n, std::uint32_t d, term_id scale) {
  std::vector<term_id> score(n);
  for (std::uint32_t j = 0; j < n; ++j) {
    term_id acc = s.zero();
    for (std::uint32_t c = 0; c < d; ++c) acc = s.fma(x(s, "q", c), x2(s, "k", j, c), acc);
    score[j] = s.mul(acc, scale);
  }
  term_id den = s.zero();
  for (std::uint32_t j = 0; j < n; ++j) den = s.add(den, s.exp(score[j]));
  std::vector<term_id> o(d);
  for (std::uint32_t c = 0; c < d; ++c) {
    term_id num = s.zero();
    for (std::uint32_t j = 0; j < n; ++j) num = s.fma(s.exp(score[j]), x2(s, "v", j, c), num);
    o[c] = s.div(num, den);
  }
  return o;
}

// The scores q·k[j]·scale of keys j0 ≤ j < end, each a sequential dot product; `running_max` is
// maxed with each of them.
inline std::vector<term_id> tile_scores(store& s, std::uint32_t j0, std::uint32_t end, std::uint32_t d, term_id scale,
                                        term_id& running_max) {
  std::vector<term_id> score;
  for (std::uint32_t j = j0; j < end; ++j) {
    term_id dot = s.zero();
    for (std::uint32_t c = 0; c < d; ++c) dot = s.fma(x(s, "q", c), x2(s, "k", j, c), dot);
    score.push_back(s.mul(dot, scale));
    running_max = s.max(running_max, score.back());
  }
  return score;
}

// FlashAttention-style: tiles of `tile` keys, running max, rescaled numerators and denominator,
// normalized at the end. `rescale = false` forgets to rescale the running output.
inline std::vector<term_id> attention_online(store& s, std::uint32_t n, std::uint32_t d, term_id scale,
                                             std::uint32_t tile, bool rescale = true) {
  term_id m = s.infinity(true), l = s.zero();
  std::vector<term_id> acc(d, s.zero());
  for (std::uint32_t j0 = 0; j0 < n; j0 += tile) {
    term_id tile_max = m;
    std::vector<term_id> score = tile_scores(s, j0, std::min(j0 + tile, n), d, scale, tile_max);
    term_id correction = rescale ? s.exp(s.sub(m, tile_max)) : s.one();
    l = s.mul(l, correction);
    for (auto& a : acc) a = s.mul(a, correction);
    for (std::uint32_t j = j0; j < j0 + tile && j < n; ++j) {
      term_id p = s.exp(s.sub(score[j - j0], tile_max));
      l = s.add(l, p);
      for (std::uint32_t c = 0; c < d; ++c) acc[c] = s.fma(p, x2(s, "v", j, c), acc[c]);
    }
    m = tile_max;
  }
  for (auto& a : acc) a = s.div(a, l);
  return acc;
}

// Σ xs as a CTA reduces it: `lanes` chains over the elements i ≡ lane (mod lanes), then a
// pairwise tree over the lanes (so sums of sums nest beyond the store's flatten limit).
inline term_id block_sum(store& s, const std::vector<term_id>& xs, std::uint32_t lanes = 128) {
  std::vector<term_id> partial(std::min<std::size_t>(lanes, xs.size()), s.zero());
  for (std::size_t i = 0; i < xs.size(); ++i) partial[i % partial.size()] = s.add(partial[i % partial.size()], xs[i]);
  return pairwise_sum(s, std::move(partial));
}

// LayerNorm's variance of x[0..n) around the mean m = Σxᵢ/n, a sum shared by every term:
// two-pass Σᵢ (xᵢ − m)²/n (each square a product of sums).
inline term_id variance_two_pass(store& s, std::uint32_t n) {
  std::vector<term_id> xs, squares;
  for (std::uint32_t i = 0; i < n; ++i) xs.push_back(x(s, "x", i));
  term_id mean = s.scale(rational(1, n), block_sum(s, xs));
  for (term_id xi : xs) squares.push_back(s.pow(s.sub(xi, mean), 2));
  return s.scale(rational(1, n), block_sum(s, squares));
}

// One-pass Σᵢ xᵢ²/n − m²; with `divisor` ≠ n the mean is taken as Σxᵢ/divisor (a wrong variant).
inline term_id variance_one_pass(store& s, std::uint32_t n, std::uint32_t divisor = 0) {
  std::vector<term_id> xs, squares;
  for (std::uint32_t i = 0; i < n; ++i) {
    xs.push_back(x(s, "x", i));
    squares.push_back(s.mul(xs.back(), xs.back()));
  }
  term_id mean = s.scale(rational(1, divisor ? divisor : n), block_sum(s, xs));
  return s.sub(s.scale(rational(1, n), block_sum(s, squares)), s.pow(mean, 2));
}

// LayerNorm outputs yᵢ = (xᵢ − m)·rsqrt(var + eps)·γᵢ + βᵢ with either variance.
inline std::vector<term_id> layernorm(store& s, std::uint32_t n, bool two_pass) {
  std::vector<term_id> xs;
  for (std::uint32_t i = 0; i < n; ++i) xs.push_back(x(s, "x", i));
  term_id mean = s.scale(rational(1, n), block_sum(s, xs));
  term_id var = two_pass ? variance_two_pass(s, n) : variance_one_pass(s, n);
  term_id rstd = s.rsqrt(s.add(var, s.input("eps")));
  std::vector<term_id> y;
  for (std::uint32_t i = 0; i < n; ++i)
    y.push_back(s.add(s.mul(std::vector<term_id>{s.sub(xs[i], mean), rstd, x(s, "gamma", i)}), x(s, "beta", i)));
  return y;
}

// FlashAttention-1 style: like attention_online, but the output is kept normalized after every
// tile, o = (l_old·e^(m_old − m_new)/l_new)·o + (1/l_new)·Σⱼ pⱼ·v[j] (a running quotient).
inline std::vector<term_id> attention_online_normalized(store& s, std::uint32_t n, std::uint32_t d, term_id scale,
                                                        std::uint32_t tile) {
  term_id m = s.infinity(true), l = s.zero();
  std::vector<term_id> o(d, s.zero());
  for (std::uint32_t j0 = 0; j0 < n; j0 += tile) {
    term_id tile_max = m;
    std::vector<term_id> score = tile_scores(s, j0, std::min(j0 + tile, n), d, scale, tile_max);
    std::vector<term_id> p;
    term_id l_tile = s.zero();
    for (term_id sc : score) {
      p.push_back(s.exp(s.sub(sc, tile_max)));
      l_tile = s.add(l_tile, p.back());
    }
    term_id kept = j0 == 0 ? s.zero() : s.mul(l, s.exp(s.sub(m, tile_max)));
    term_id l_new = s.add(kept, l_tile);
    term_id corr = s.div(kept, l_new), inv = s.inv(l_new);
    for (std::uint32_t c = 0; c < d; ++c) {
      term_id pv = s.zero();
      for (std::uint32_t j = j0; j < j0 + tile && j < n; ++j) pv = s.fma(p[j - j0], x2(s, "v", j, c), pv);
      o[c] = s.add(s.mul(corr, o[c]), s.mul(inv, pv));
    }
    m = tile_max;
    l = l_new;
  }
  return o;
}

}  // namespace gpueq::families
