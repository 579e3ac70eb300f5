// Fingerprints: a random ring homomorphism from terms into a prime field, O(1) per node.
//
// Inputs map to random residues mod p (p = 2q + 1, a safe prime just under 2^62) and, separately,
// mod q. +, ×, integer powers and rational constants map homomorphically. exp(h) maps to G^(h mod q)
// with G = 4 of order q, so eᵃ·eᵇ = eᵃ⁺ᵇ holds in the image (the exponent's own image lives in
// Z_q, which is why every value carries both residues). max/min/sqrt/log/tanh/… map to a hash of
// their arguments' images (max/min sorted and deduplicated), which agrees with the normal form's
// treatment of them as atoms. Equal fingerprints are strong evidence of equality (a collision has
// probability about degree/q); different fingerprints mean different normal forms, except for
// exponents that themselves contain exponentials (the Z_q image of an exp is a hash), so gpueq
// never reports "different" from a fingerprint alone: it looks for a separating input first.
#pragma once

#include <gpueq/support/hash.hpp>
#include <gpueq/support/rational.hpp>
#include <gpueq/term/store.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gpueq::canon {

struct fingerprint {
  // 16 bytes: a fingerprinter keeps one per store node (Q < 2^61, so q and the flag share a word).
  fingerprint() = default;
  fingerprint(std::uint64_t p_, std::uint64_t q_, unsigned infinity_)
      : p(p_), q(q_ & ((std::uint64_t{1} << 62) - 1)), infinity(infinity_ & 3u) {}
  std::uint64_t p = 0;       // residue mod P
  std::uint64_t q : 62 = 0;  // residue mod Q (the exponent field)
  std::uint64_t infinity : 2 = 0;  // 0 finite, 1 +∞, 2 −∞ (3: no fingerprint, see fingerprinter)
  // Values compare by their residue mod P: the residue mod Q is only homomorphic for values free
  // of exponentials (it serves as the image of an exponent), so it takes no part in equality.
  friend bool operator==(const fingerprint& a, const fingerprint& b) {
    return a.p == b.p && a.infinity == b.infinity;
  }
};

// A fingerprint could not be formed (a denominator mapped to zero): fall back to exact forms.
static_assert(sizeof(fingerprint) == 16);

struct degenerate_fingerprint : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

inline constexpr std::uint64_t fp_P = 4611686018427377339ULL;  // safe prime 2Q + 1 < 2^62
inline constexpr std::uint64_t fp_Q = 2305843009213688669ULL;  // prime
inline constexpr std::uint64_t fp_G = 4;                       // generates the order-Q subgroup

__extension__ using uint128 = unsigned __int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
inline std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return static_cast<std::uint64_t>(static_cast<uint128>(a) * b % m);
}
inline std::uint64_t addmod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  std::uint64_t r = a + b;  // a, b < 2^62: no overflow
  return r >= m ? r - m : r;
}
inline std::uint64_t powmod(std::uint64_t b, std::uint64_t e, std::uint64_t m) {
  b %= m;
  if (e == 1) return b;  // the common case: a factor of a product (a 128-bit division saved)
  std::uint64_t r = 1;
  while (e) {
    if (e & 1) r = r == 1 ? b : mulmod(r, b, m);
    e >>= 1;
    if (e) b = mulmod(b, b, m);
  }
  return r;
}
inline std::uint64_t invmod(std::uint64_t a, std::uint64_t m) {
  if (a == 0) throw degenerate_fingerprint("a denominator's fingerprint is zero");
  return powmod(a, m - 2, m);
}
// An integer (GMP or cpp_int) reduced mod m.
inline std::uint64_t reduce(const support::integer& n, std::uint64_t m) {
  support::integer r = n % m;
  if (r < 0) r += m;
  return r.convert_to<std::uint64_t>();
}

}  // namespace detail

class fingerprinter {
 public:
  fingerprinter(const term::store& s, std::uint64_t seed) : s_(s), seed_(support::mix64(seed ^ 0xf1a9e7ULL)) {}

  // Children always have smaller ids than their parents (a node is made after its children), so
  // one sequential sweep over the ids up to the root computes everything the root needs, reading
  // the store in memory order (a depth-first walk over a large DAG was dominated by cache
  // misses). The sweep also covers nodes the root does not reach (the intermediate sums of a
  // chain); each node is computed once per fingerprinter, however many roots are asked for. A
  // node whose fingerprint cannot be formed is marked, and only an error when a root needs it.
  fingerprint operator()(term::term_id root) {
    if (root >= values_.size()) {
      if (std::size_t{root} + 1 > values_.capacity())  // geometric growth: roots come in increasing order
        values_.reserve(std::max<std::size_t>(std::size_t{root} + 1, 2 * values_.capacity()));
      for (std::size_t t = values_.size(); t <= root; ++t) {
        try {
          values_.push_back(compute(static_cast<term::term_id>(t)));
        } catch (const degenerate_fingerprint&) {
          values_.push_back({0, 0, degenerate});
        }
      }
    }
    return get(root);
  }

 private:
  using P = std::uint64_t;
  static constexpr std::uint8_t degenerate = 3;  // in fingerprint::infinity: no fingerprint

  const fingerprint& get(term::term_id t) const {
    const fingerprint& f = values_[t];
    if (f.infinity == degenerate)
      throw degenerate_fingerprint("no fingerprint: a denominator maps to zero or an infinity is inside an expression");
    return f;
  }

  fingerprint constant(std::uint32_t index) {
    if (index < const_done_.size() && const_done_[index]) return const_values_[index];
    const support::rational& r = s_.constant_value(index);
    const support::integer& n = boost::multiprecision::numerator(r);
    const support::integer& d = boost::multiprecision::denominator(r);
    fingerprint f{detail::mulmod(detail::reduce(n, detail::fp_P), detail::invmod(detail::reduce(d, detail::fp_P), detail::fp_P),
                                 detail::fp_P),
                  detail::mulmod(detail::reduce(n, detail::fp_Q), detail::invmod(detail::reduce(d, detail::fp_Q), detail::fp_Q),
                                 detail::fp_Q),
                  0};
    if (index >= const_done_.size()) {
      const_done_.resize(index + 1, 0);
      const_values_.resize(index + 1);
    }
    const_done_[index] = 1;
    const_values_[index] = f;
    return f;
  }

  // A value that is an atom to both fields: its residues are hashes of what defines it.
  fingerprint atom(std::uint64_t h) const {
    return {support::mix64(h ^ seed_) % detail::fp_P, support::mix64(h ^ ~seed_) % detail::fp_Q, 0};
  }

  fingerprint compute(term::term_id t) {
    using term::kind;
    using namespace detail;
    const term::node& n = s_.at(t);
    switch (n.k) {
      case kind::constant: return constant(n.payload);
      case kind::pos_inf: return {0, 0, 1};
      case kind::neg_inf: return {0, 0, 2};
      case kind::input: {
        std::uint64_t h = s_.tensor_hash(t);  // hash_string of the name, cached by the store
        for (auto i : s_.input_indices(t)) h = support::hash_combine(h, i);
        return atom(h);
      }
      case kind::add: {
        fingerprint c0 = constant(n.payload);
        P vp = c0.p, vq = c0.q;
        for (auto e : s_.sum_entries(t)) {
          const fingerprint& x = get(e.term);
          if (x.infinity) throw degenerate_fingerprint("an infinity inside a sum");
          if (e.coefficient == term::store::one_index) {  // most entries: no multiplication
            vp = addmod(vp, x.p, fp_P);
            vq = addmod(vq, x.q, fp_Q);
            continue;
          }
          fingerprint c = constant(e.coefficient);
          vp = addmod(vp, mulmod(c.p, x.p, fp_P), fp_P);
          vq = addmod(vq, mulmod(c.q, x.q, fp_Q), fp_Q);
        }
        return {vp, vq, 0};
      }
      case kind::dot: {  // Σ c·x·y in both fields
        P vp = 0, vq = 0;
        for (auto e : s_.dot_entries(t)) {
          const fingerprint &x = get(e.x), &y = get(e.y);
          if (x.infinity || y.infinity) throw degenerate_fingerprint("an infinity inside a sum");
          P xyp = mulmod(x.p, y.p, fp_P), xyq = mulmod(x.q, y.q, fp_Q);
          if (e.coefficient != term::store::one_index) {
            fingerprint c = constant(e.coefficient);
            xyp = mulmod(c.p, xyp, fp_P);
            xyq = mulmod(c.q, xyq, fp_Q);
          }
          vp = addmod(vp, xyp, fp_P);
          vq = addmod(vq, xyq, fp_Q);
        }
        return {vp, vq, 0};
      }
      case kind::mul: {
        fingerprint c = constant(n.payload);
        P vp = c.p, vq = c.q;
        bool first = n.payload == term::store::one_index;  // vp, vq are 1: the first factor is the value
        for (auto f : s_.product_entries(t)) {
          fingerprint x = get(f.base);
          if (x.infinity) throw degenerate_fingerprint("an infinity inside a product");
          P bp = x.p, bq = x.q;
          std::int64_t e = f.exponent;
          if (e < 0) {
            bp = invmod(bp, fp_P);
            bq = invmod(bq, fp_Q);
            e = -e;
          }
          bp = powmod(bp, static_cast<std::uint64_t>(e), fp_P);
          bq = powmod(bq, static_cast<std::uint64_t>(e), fp_Q);
          vp = first ? bp : mulmod(vp, bp, fp_P);
          vq = first ? bq : mulmod(vq, bq, fp_Q);
          first = false;
        }
        return {vp, vq, 0};
      }
      case kind::exp: {
        fingerprint a = get(s_.arg(t));
        P vp = powmod(fp_G, a.q, fp_P);
        return {vp, support::mix64(vp ^ seed_ ^ 0xe4ULL) % fp_Q, 0};
      }
      case kind::max:
      case kind::min: {
        std::vector<std::uint64_t> xs;
        for (auto a : s_.args(t)) xs.push_back(get(a).p);
        std::sort(xs.begin(), xs.end());
        xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
        if (xs.size() == 1) {  // max of arguments that are all equal
          for (auto a : s_.args(t))
            if (get(a).p == xs[0]) return get(a);
        }
        std::uint64_t h = n.k == kind::max ? 0x3a ^ 0x1000 : 0x3b ^ 0x1000;
        for (auto x : xs) h = support::hash_combine(h, x);
        return atom(h);
      }
      default: {  // log, sqrt, opaque functions
        std::uint64_t h = support::hash_combine(static_cast<std::uint64_t>(n.k) * 131 + n.payload, 0x77);
        for (auto a : s_.args(t)) h = support::hash_combine(h, get(a).p);
        return atom(h);
      }
    }
  }

  const term::store& s_;
  std::uint64_t seed_;
  std::vector<fingerprint> values_;
  std::vector<std::uint8_t> const_done_;
  std::vector<fingerprint> const_values_;
};

}  // namespace gpueq::canon
