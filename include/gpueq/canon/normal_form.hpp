// Normal forms of terms and the exact decision of f = g over the reals.
//
// This is the decision procedure of the VOLTA paper (§4.4, Theorem 5 and Corollary 6): a term is
// brought to a quotient N/D of exp-polynomials
//     Σ c · x₁^a₁ ⋯ xₙ^aₙ · e^h       (c rational, aᵢ ∈ ℤ, h itself an exp-polynomial)
// over atoms x (inputs, and max/min/sqrt/log/tanh/… applied to canonical arguments, treated as
// independent variables). Distinct exponents h are linearly independent over the polynomials
// (Theorem 5; with rational coefficients, Lindemann–Weierstrass covers exponents that differ by a
// constant), so N₁/D₁ = N₂/D₂ holds iff N₁·D₂ and N₂·D₁ have the same terms. Treating atoms as
// independent is sound for "equal"; when forms differ, gpueq/canon/decide.hpp looks for real
// inputs that separate the sides before it says "different" (max(a,b)+min(a,b) = a+b is an
// identity the atoms hide).
//
// Polynomials and monomials are interned, so equal forms have equal ids and memoization is cheap.
// Every single term c·m·e^h is a unit (invertible), and each denominator is divided by its leading
// term under a translation-invariant order, so D and D·u normalize alike: naive and online
// softmax, whose denominators differ by the factor e^(−max), meet without cross-multiplying.
//
// Accumulation chains stay linear: a sum that is used once, by another sum, is not normalized on
// its own; its parent walks into it and adds its terms into one mutable accumulator. A product of
// sums used by a sum is expanded over the large sums it shares with its siblings first (a
// variance Σᵢ (xᵢ − m)² multiplies m·m once, not once per i: see over_parts).
#pragma once

#include <gpueq/support/arena.hpp>
#include <gpueq/support/hash.hpp>
#include <gpueq/support/rational.hpp>
#include <gpueq/support/small_rational.hpp>
#include <gpueq/term/store.hpp>

#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpueq::canon {

using support::rational;
using coefficient_t = support::small_rational;  // exact; no allocation while it fits 64 bits
using term::term_id;

using mono_id = std::uint32_t;
using poly_id = std::uint32_t;

// The normal form could not be built (it would exceed the size budget, or holds an infinity).
struct unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// c · monomial · e^(exponent)
struct poly_term {
  mono_id mono;
  poly_id ex;
  coefficient_t coefficient;
};

struct mono_factor {
  term_id atom;
  std::int32_t exponent;
};

// A quotient of interned exp-polynomials; den is normalized (its leading term is 1).
struct fraction {
  poly_id num;
  poly_id den;
  friend bool operator==(const fraction&, const fraction&) = default;
};

struct normal_form_options {
  // Upper bound on the terms of all polynomials built, so that a blow-up (distributing a product
  // of large sums) ends as "unknown" instead of exhausting memory.
  std::uint64_t term_budget = 200'000'000;
  // Upper bound on the memory of one expansion (a product of two sums multiplied out, or an
  // integer power of a sum), in bytes. It is checked before the work starts, from the operands'
  // term counts and coefficient sizes (a power by the number of monomials of its result and the
  // bits of its multinomial coefficients), so `(x+1)^100000` or `(x+y+z)^200` ends as "unknown"
  // naming this limit within moments, instead of after minutes in GMP and an abort or bad_alloc.
  // The term budget alone cannot catch them: it counts terms, and such an expansion's cost is in
  // the size of its coefficients (100 000-bit binomials) or in the products it accumulates before
  // merging them. 1 GiB stays clear of the corpus (its largest expansions, layernorm's variances,
  // take a few MiB) and well inside a CI machine; `gpueq identity` and `gpueq check` set it with
  // --max-expansion MiB.
  std::uint64_t expansion_bytes = std::uint64_t{1} << 30;
  // Expand a product of sums that a sum uses over the parts it shares with other products before
  // multiplying out (see normal_forms::over_parts). Only the order of evaluation changes: the
  // forms are the same polynomials under the same ids either way (tests compare the two).
  bool expand_by_parts = true;
};

class normal_forms {
 public:
  static constexpr poly_id zero_poly = 0;
  static constexpr mono_id unit_mono = 0;

  explicit normal_forms(term::store& s, normal_form_options options = {})
      : s_(s),
        options_(options),
        mono_table_(0, entry_hash{}, entry_eq{this}),
        poly_table_(0, entry_hash{}, entry_eq{this}) {
    monos_.push_back({nullptr, 0, 0});
    mono_terms_.push_back(s_.one());
    mono_table_.insert(table_entry{unit_mono, monos_[unit_mono].hash});
    polys_.push_back({nullptr, 0, support::mix64(0x9e37)});
    poly_table_.insert(table_entry{zero_poly, polys_[zero_poly].hash});
    std::vector<poly_term> one{{unit_mono, zero_poly, coefficient_t(1)}};
    one_poly_ = intern_poly(one);
  }

  poly_id one_poly() const { return one_poly_; }

  // Drops the memoized forms of terms (interned monomials and polynomials stay, so ids keep their
  // meaning) and takes new options: a term normalized again afterwards goes the new options' way.
  // For tests that compare two evaluation orders within one set of ids.
  void forget_terms(normal_form_options options) {
    options_ = options;
    memo_.clear();
    over_parts_memo_.clear();
  }

  // The normal form of a term (memoized).
  fraction of(term_id root);

  // f = g over the reals, treating atoms as independent variables.
  bool equal(term_id f, term_id g) {
    if (f == g) return true;
    if (s_.is_infinite(f) || s_.is_infinite(g)) return false;
    fraction a = of(f), b = of(g);
    if (a == b) return true;
    if (a.den == b.den) return false;
    return poly_mul(a.num, b.den) == poly_mul(b.num, a.den);
  }

  // ---- inspection ------------------------------------------------------------------------
  std::span<const poly_term> terms(poly_id p) const {
    const auto& r = polys_[p];
    return {r.first, r.count};
  }
  std::span<const mono_factor> factors(mono_id m) const {
    const auto& r = monos_[m];
    return {r.first, r.count};
  }
  std::size_t poly_count() const { return polys_.size(); }
  std::uint64_t terms_built() const { return terms_built_; }

  // The normal form written back as a term (canonical for polynomials: used for the arguments of
  // atoms, so max(2·(x+1), y) and max(2x+2, y) are the same atom).
  term_id to_term(const fraction& f) {
    term_id n = poly_to_term(f.num);
    if (f.den == one_poly_) return n;
    return s_.div(n, poly_to_term(f.den));
  }
  term_id poly_to_term(poly_id p);

 private:
  template <class T>
  struct range {
    const T* first;
    std::uint32_t count;
    std::uint64_t hash;
  };
  struct mono_key {
    std::span<const mono_factor> f;
    std::uint64_t hash;
  };
  struct poly_key {
    std::span<const poly_term> t;
    std::uint64_t hash;
  };
  // Interning tables hold (id, hash) pairs: probes compare hashes before touching the arenas.
  struct table_entry {
    std::uint32_t id;
    std::uint64_t hash;
  };
  struct entry_hash {
    using is_transparent = void;
    using is_avalanching = void;
    std::size_t operator()(const table_entry& e) const { return static_cast<std::size_t>(e.hash); }
    std::size_t operator()(const mono_key& k) const { return static_cast<std::size_t>(k.hash); }
    std::size_t operator()(const poly_key& k) const { return static_cast<std::size_t>(k.hash); }
  };
  // Equal entries are equal ids; a key matches an entry with its hash and the same content.
  struct entry_eq {
    const normal_forms* n;
    using is_transparent = void;
    bool operator()(const table_entry& a, const table_entry& b) const { return a.id == b.id; }
    template <class Key>
    bool operator()(const Key& k, const table_entry& e) const {
      return k.hash == e.hash && n->matches(k, e.id);
    }
    template <class Key>
    bool operator()(const table_entry& e, const Key& k) const {
      return k.hash == e.hash && n->matches(k, e.id);
    }
  };

  static std::uint64_t hash_mono(std::span<const mono_factor> f) {
    std::uint64_t h = 0x51ed270b27e1f9e3ULL;
    for (auto x : f) h = support::hash_combine(support::hash_combine(h, x.atom), static_cast<std::uint32_t>(x.exponent));
    return h;
  }
  static std::uint64_t hash_poly(std::span<const poly_term> t) {
    std::uint64_t h = support::mix64(0x9e37);
    // (mono, ex) as one word: two mixes a term instead of four (interning long sums hashes them all).
    for (auto& x : t)
      h = support::hash_combine(support::hash_combine(h, (static_cast<std::uint64_t>(x.mono) << 32) | x.ex),
                                x.coefficient.hash());
    return h;
  }
  bool matches(const mono_key& k, mono_id m) const {
    const auto& r = monos_[m];
    if (r.count != k.f.size()) return false;
    for (std::size_t i = 0; i < k.f.size(); ++i) {
      const auto& a = r.first[i];
      if (a.atom != k.f[i].atom || a.exponent != k.f[i].exponent) return false;
    }
    return true;
  }
  bool matches(const poly_key& k, poly_id p) const {
    const auto& r = polys_[p];
    if (r.count != k.t.size()) return false;
    for (std::size_t i = 0; i < k.t.size(); ++i) {
      const auto& a = r.first[i];
      if (a.mono != k.t[i].mono || a.ex != k.t[i].ex || a.coefficient != k.t[i].coefficient) return false;
    }
    return true;
  }

  // Monomials of inputs alone (the bulk: every a·b of a dot product) are keyed by the store's own
  // node for them, which hash-consing already makes unique: no table of their own to probe. Other
  // monomials (atoms such as max(…) or sqrt(…) among the factors) are interned by content.
  mono_id intern_mono(std::span<const mono_factor> f) {
    if (f.empty()) return unit_mono;
    if (std::all_of(f.begin(), f.end(), [&](const mono_factor& x) { return s_.kind_of(x.atom) == term::kind::input; })) {
      term_id key = f[0].atom;
      if (f.size() > 1 || f[0].exponent != 1) {
        boost::container::small_vector<term::product_entry, 8> pe;
        for (auto x : f) pe.push_back({x.atom, x.exponent});
        key = s_.power_product(pe);
      }
      if (mono_id m = mono_slot(key); m != unit_mono) return m;
      mono_id m = new_mono(f, hash_mono(f), key);
      mono_slot(key) = m;
      return m;
    }
    mono_key key{f, hash_mono(f)};
    auto it = mono_table_.find(key);
    if (it != mono_table_.end()) return it->id;
    mono_id id = new_mono(f, key.hash);
    mono_table_.insert(table_entry{id, key.hash});
    return id;
  }
  // `as_term`: the monomial as a store term with coefficient 1, when known (see mono_term).
  mono_id new_mono(std::span<const mono_factor> f, std::uint64_t hash, term_id as_term = term::no_term) {
    auto id = static_cast<mono_id>(monos_.size());
    mono_terms_.push_back(as_term);
    auto stored = mono_factors_.append(f.begin(), f.end());
    monos_.push_back({stored.data(), static_cast<std::uint32_t>(f.size()), hash});
    return id;
  }
  // The monomial of a store term, by term id (unit_mono: none yet).
  mono_id& mono_slot(term_id t) {
    if (t >= mono_of_term_.size())
      mono_of_term_.resize(std::max<std::size_t>({s_.size(), 2 * mono_of_term_.size(), std::size_t{t} + 1}), unit_mono);
    return mono_of_term_[t];
  }

  // Interns terms sorted by (mono, ex) with distinct keys and non-zero coefficients.
  poly_id intern_poly(std::span<const poly_term> t) {
    if (t.empty()) return zero_poly;
    poly_key key{t, hash_poly(t)};
    auto it = poly_table_.find(key);
    if (it != poly_table_.end()) return it->id;
    terms_built_ += t.size();
    if (terms_built_ > options_.term_budget)
      throw unsupported("normal form too large: over its budget of " + std::to_string(options_.term_budget) + " terms");
    auto id = static_cast<poly_id>(polys_.size());
    auto stored = poly_terms_.append(t.begin(), t.end());
    polys_.push_back({stored.data(), static_cast<std::uint32_t>(t.size()), key.hash});
    poly_table_.insert(table_entry{id, key.hash});
    return id;
  }

  // ---- the expansion budget (normal_form_options::expansion_bytes) ---------------------------
  // Bits of the largest coefficient of p.
  std::uint64_t max_coefficient_bits(poly_id p) const {
    std::uint64_t b = 0;
    for (auto& t : terms(p)) b = std::max(b, t.coefficient.bits());
    return b;
  }
  // Bytes of `terms` terms with coefficients of `bits` bits while they are accumulated: each a
  // poly_term and, past 64 bits, also a GMP rational and its limbs.
  static double expansion_size(double terms, double bits) {
    return terms * (static_cast<double>(sizeof(poly_term)) + (bits > 62 ? 48 + bits / 8 : 0));
  }
  // Throws unsupported when `bytes` exceed the expansion budget.
  void check_expansion(double bytes, const std::string& what) const {
    const double budget = static_cast<double>(options_.expansion_bytes);
    if (bytes <= budget) return;
    auto mib = [](double b) { return std::to_string(static_cast<std::uint64_t>(std::min(b, 1e18) / (1 << 20))); };
    throw unsupported("normal form too large: " + what + " would take about " + mib(bytes) +
                      " MiB, over the expansion budget of " + mib(budget) +
                      " MiB (normal_form_options::expansion_bytes, --max-expansion)");
  }
  // Before p^e is multiplied out by binary powering (pow_fraction, poly_pow): every product that
  // powering multiplies out is estimated, and the largest must fit the budget. p^d has at most
  // C(n+d−1, d) terms (the monomials of degree d in p's n terms), with coefficients of at most
  // d·(bits + log₂ n) bits (p's coefficients to the d-th power times multinomials ≤ nᵈ).
  void check_power(poly_id p, std::int64_t e) const {
    const std::size_t n = terms(p).size();
    if (n < 2 || e < 2) return;
    const double dn = static_cast<double>(n), per_degree = static_cast<double>(max_coefficient_bits(p)) + std::log2(dn);
    auto count = [&](double d) { return std::min(std::exp(std::lgamma(dn + d) - std::lgamma(d + 1) - std::lgamma(dn)), 1e300); };
    double worst = expansion_size(count(static_cast<double>(e)), static_cast<double>(e) * per_degree);
    double r = 0, a = 1;  // the result so far is p^r, the base p^a
    for (std::int64_t k = e; k; k >>= 1) {
      if (k & 1) {
        if (r > 0) worst = std::max(worst, expansion_size(count(r) * count(a), (r + a) * per_degree));
        r += a;
      }
      if (k > 1) {
        worst = std::max(worst, expansion_size(count(a) * (count(a) + 1) / 2, 2 * a * per_degree));
        a *= 2;
      }
    }
    check_expansion(worst, "(a sum of " + std::to_string(n) + " terms)^" + std::to_string(e) + " multiplied out");
  }

  // ---- monomial and polynomial arithmetic ------------------------------------------------
  // An exponent of a monomial: the store keeps exponents in 32 bits, and products and powers of
  // monomials must too (x^(2^20) to the power 2^20 is out of range, not a wrapped exponent).
  static std::int32_t mono_exponent(std::int64_t e) {
    if (e > INT32_MAX || e < INT32_MIN) throw unsupported("normal form: a monomial's exponent is out of range (" + std::to_string(e) + ")");
    return static_cast<std::int32_t>(e);
  }
  mono_id mono_mul(mono_id a, mono_id b, std::int32_t b_power = 1) {
    if (b == unit_mono) return a;
    if (a == unit_mono && b_power == 1) return b;
    // a·b = b·a: one memo entry for both orders (a product of sums meets both).
    std::uint64_t key = b_power == 1 && b < a ? (static_cast<std::uint64_t>(b) << 32) | a
                                              : (static_cast<std::uint64_t>(a) << 32) | b;
    if (b_power == 1) {
      auto it = mono_mul_memo_.find(key);
      if (it != mono_mul_memo_.end()) return it->second;
    }
    boost::container::small_vector<mono_factor, 16> out;
    auto fa = factors(a), fb = factors(b);
    out.reserve(fa.size() + fb.size());
    std::size_t i = 0, j = 0;
    while (i < fa.size() || j < fb.size()) {
      if (j == fb.size() || (i < fa.size() && fa[i].atom < fb[j].atom)) {
        out.push_back(fa[i++]);
      } else if (i == fa.size() || fb[j].atom < fa[i].atom) {
        out.push_back({fb[j].atom, mono_exponent(std::int64_t{fb[j].exponent} * b_power)});
        ++j;
      } else {
        std::int32_t e = mono_exponent(fa[i].exponent + std::int64_t{fb[j].exponent} * b_power);
        if (e != 0) out.push_back({fa[i].atom, e});
        ++i, ++j;
      }
    }
    mono_id r = intern_mono(out);
    if (b_power == 1) mono_mul_memo_.emplace(key, r);
    return r;
  }
  // The monomial as a store term with coefficient 1 (x, x·y², max(x, y)/z): the key node of a
  // monomial of inputs, else built once.
  term_id mono_term(mono_id m) {
    if (mono_terms_[m] != term::no_term) return mono_terms_[m];
    std::vector<term_id> fs;
    for (auto f : factors(m)) fs.push_back(s_.pow(f.atom, f.exponent));
    term_id t = s_.mul(fs);
    mono_terms_[m] = t;
    return t;
  }
  mono_id mono_pow(mono_id a, std::int32_t e) {
    if (a == unit_mono || e == 1) return a;
    std::vector<mono_factor> out(factors(a).begin(), factors(a).end());
    for (auto& f : out) f.exponent = mono_exponent(std::int64_t{f.exponent} * e);
    if (e == 0) out.clear();
    return intern_mono(out);
  }

  // An accumulator of terms keyed by (mono, ex): the one mutable place sums are built in.
  // Terms are appended and merged once in finish() (sort + merge: cheaper than a hash map for
  // the long sums of accumulation chains, and the sort is needed anyway).
  struct accumulator {
    std::vector<poly_term> terms;
    void add(mono_id m, poly_id e, const coefficient_t& c) {
      if (c != 0) terms.push_back({m, e, c});
    }
    void add(mono_id m, poly_id e, coefficient_t&& c) {
      if (c != 0) terms.push_back({m, e, std::move(c)});
    }
  };
  static constexpr auto key_less = [](const poly_term& a, const poly_term& b) {
    return a.mono != b.mono ? a.mono < b.mono : a.ex < b.ex;
  };
  // An empty accumulator, with the storage of an earlier one when there is some (a long sum's
  // vector is not grown again from nothing, and its pages are already mapped).
  accumulator new_accumulator() {
    accumulator a;
    if (!spare_terms_.empty()) {
      a.terms = std::move(spare_terms_.back());
      spare_terms_.pop_back();
    }
    return a;
  }
  struct sort_key {
    std::uint64_t key;  // (mono, ex)
    std::uint32_t index;
  };
  // Sorts by key, least significant 11 bits first: a product of sums sorts 10⁵ keys at a time,
  // where std::sort's comparisons were most of the work.
  void radix_sort(std::vector<sort_key>& keys) {
    std::uint64_t used = 0;
    for (auto& k : keys) used |= k.key;
    auto& other = radix_scratch_;
    other.resize(keys.size());
    constexpr int digit = 11;
    constexpr std::size_t buckets = std::size_t{1} << digit;
    const int bits = static_cast<int>(std::bit_width(used));
    for (int shift = 0; shift < bits; shift += digit) {
      std::array<std::uint32_t, buckets> count{};
      for (auto& k : keys) ++count[(k.key >> shift) & (buckets - 1)];
      if (count[(keys[0].key >> shift) & (buckets - 1)] == keys.size()) continue;  // one digit: in order
      std::uint32_t sum = 0;
      for (auto& c : count) sum += std::exchange(c, sum);
      for (auto& k : keys) other[count[(k.key >> shift) & (buckets - 1)]++] = k;
      keys.swap(other);
    }
  }
  poly_id finish(accumulator& acc) {
    auto& t = acc.terms;
    bool merged = false;
    // A chain's terms often arrive in order already (monomials are numbered as they are first seen).
    if (!std::is_sorted(t.begin(), t.end(), key_less)) {
      if (t.size() < 64) {
        std::sort(t.begin(), t.end(), key_less);
      } else {
        // Long ones (a product of sums) sort 16-byte (key, index) pairs and then gather the terms
        // in that order, summing the coefficients of equal keys (which come in any order) as they
        // are gathered: cheaper than sorting the terms themselves.
        auto& keys = key_scratch_;
        keys.clear();
        // The key (mono, ex) packed into as few bits as the largest ids need, for the radix sort.
        poly_id max_ex = 0;
        for (auto& x : t) max_ex = std::max(max_ex, x.ex);
        const int ex_bits = static_cast<int>(std::bit_width(max_ex));
        for (std::size_t i = 0; i < t.size(); ++i)
          keys.push_back({(static_cast<std::uint64_t>(t[i].mono) << ex_bits) | t[i].ex, static_cast<std::uint32_t>(i)});
        if (keys.size() < 1024) std::sort(keys.begin(), keys.end(), [](const sort_key& a, const sort_key& b) { return a.key < b.key; });
        else radix_sort(keys);
        auto& sorted = term_scratch_;
        sorted.clear();
        sorted.reserve(t.size());
        for (std::size_t i = 0; i < keys.size();) {
          poly_term x = std::move(t[keys[i].index]);
          std::size_t j = i + 1;
          for (; j < keys.size() && keys[j].key == keys[i].key; ++j) x.coefficient += t[keys[j].index].coefficient;
          if (x.coefficient != 0) sorted.push_back(std::move(x));
          i = j;
        }
        t.swap(sorted);
        sorted.clear();
        merged = true;
      }
    }
    std::size_t out = merged ? t.size() : 0;
    for (std::size_t i = merged ? t.size() : 0; i < t.size();) {
      std::size_t j = i + 1;
      while (j < t.size() && t[j].mono == t[i].mono && t[j].ex == t[i].ex) t[i].coefficient += t[j++].coefficient;
      if (t[i].coefficient != 0) {
        if (out != i) t[out] = std::move(t[i]);
        ++out;
      }
      i = j;
    }
    t.resize(out);
    poly_id r = intern_poly(t);
    t.clear();
    if (t.capacity() >= 1024 && spare_terms_.size() < 4) spare_terms_.push_back(std::move(t));
    return r;
  }

  poly_id poly_add(poly_id a, poly_id b) {
    if (a == zero_poly) return b;
    if (b == zero_poly) return a;
    std::uint64_t key = a < b ? (static_cast<std::uint64_t>(a) << 32) | b : (static_cast<std::uint64_t>(b) << 32) | a;
    auto it = add_memo_.find(key);
    if (it != add_memo_.end()) return it->second;
    auto ta = terms(a), tb = terms(b);
    std::vector<poly_term> out;
    out.reserve(ta.size() + tb.size());
    std::size_t i = 0, j = 0;
    auto less = [](const poly_term& x, const poly_term& y) {
      return x.mono != y.mono ? x.mono < y.mono : x.ex < y.ex;
    };
    while (i < ta.size() || j < tb.size()) {
      if (j == tb.size() || (i < ta.size() && less(ta[i], tb[j]))) {
        out.push_back(ta[i++]);
      } else if (i == ta.size() || less(tb[j], ta[i])) {
        out.push_back(tb[j++]);
      } else {
        coefficient_t c = ta[i].coefficient + tb[j].coefficient;
        if (c != 0) out.push_back({ta[i].mono, ta[i].ex, std::move(c)});
        ++i, ++j;
      }
    }
    poly_id r = intern_poly(out);
    add_memo_.emplace(key, r);
    return r;
  }

  poly_id poly_scale(poly_id a, const coefficient_t& c) {
    if (c == 0) return zero_poly;
    if (c == 1) return a;
    std::vector<poly_term> out(terms(a).begin(), terms(a).end());
    for (auto& t : out) t.coefficient *= c;
    return intern_poly(out);
  }

  // a · (c · m · e^h), a unit. Multiplying by a unit is injective on (mono, ex), so no terms
  // merge: map every term and sort.
  poly_id poly_times_unit(poly_id a, const coefficient_t& c, mono_id m, poly_id h) {
    if (a == zero_poly) return zero_poly;
    if (m == unit_mono && h == zero_poly) return poly_scale(a, c);
    std::vector<poly_term> out;
    out.reserve(terms(a).size());
    for (auto& t : terms(a)) out.push_back({mono_mul(t.mono, m), poly_add(t.ex, h), c == 1 ? t.coefficient : t.coefficient * c});
    std::sort(out.begin(), out.end(), key_less);
    return intern_poly(out);
  }

  poly_id poly_mul(poly_id a, poly_id b) {
    if (a == zero_poly || b == zero_poly) return zero_poly;
    if (a == one_poly_) return b;
    if (b == one_poly_) return a;
    if (terms(a).size() > terms(b).size()) std::swap(a, b);
    if (terms(a).size() == 1) {
      const poly_term& u = terms(a)[0];
      return poly_times_unit(b, u.coefficient, u.mono, u.ex);
    }
    std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | b;
    auto it = mul_memo_.find(key);
    if (it != mul_memo_.end()) return it->second;
    auto ta = terms(a), tb = terms(b);
    if (static_cast<double>(ta.size()) * static_cast<double>(tb.size()) + static_cast<double>(terms_built_) >
        static_cast<double>(options_.term_budget))
      throw unsupported("normal form too large: product of sums with " + std::to_string(ta.size()) + " and " +
                        std::to_string(tb.size()) + " terms would exceed the budget of " +
                        std::to_string(options_.term_budget) + " terms");
    // The accumulator holds every product before merging (a square: each pair once).
    const double na = static_cast<double>(ta.size()), nb = static_cast<double>(tb.size());
    check_expansion(expansion_size(a == b ? na * (na + 1) / 2 : na * nb,
                                   static_cast<double>(max_coefficient_bits(a) + max_coefficient_bits(b))),
                    "multiplying out sums of " + std::to_string(ta.size()) + " and " + std::to_string(tb.size()) + " terms");
    accumulator acc = new_accumulator();
    mul_into(acc, a, b);
    poly_id r = finish(acc);
    mul_memo_.emplace(key, r);
    return r;
  }
  // Adds the terms of a·b to acc (not merged: finish() does that).
  void mul_into(accumulator& acc, poly_id a, poly_id b) {
    auto ta = terms(a), tb = terms(b);
    if (a == b) {  // a square: each cross term once, doubled
      for (std::size_t i = 0; i < ta.size(); ++i) {
        const poly_term& x = ta[i];
        acc.add(mono_mul(x.mono, x.mono), poly_add(x.ex, x.ex), x.coefficient * x.coefficient);
        const coefficient_t twice = x.coefficient * coefficient_t(2);
        for (std::size_t j = i + 1; j < ta.size(); ++j)
          acc.add(mono_mul(x.mono, ta[j].mono), poly_add(x.ex, ta[j].ex), twice * ta[j].coefficient);
      }
    } else {
      for (auto& x : ta)
        for (auto& y : tb) acc.add(mono_mul(x.mono, y.mono), poly_add(x.ex, y.ex), x.coefficient * y.coefficient);
    }
  }

  // ---- the translation-invariant order used to pick a denominator's leading term -----------
  // Exponent polynomials: compare the coefficients at the largest (mono, ex) where they differ.
  int compare_poly(poly_id a, poly_id b) const {
    if (a == b) return 0;
    auto ta = terms(a), tb = terms(b);
    std::size_t i = ta.size(), j = tb.size();
    auto key = [](const poly_term& t) { return (static_cast<std::uint64_t>(t.mono) << 32) | t.ex; };
    while (i > 0 || j > 0) {
      if (j == 0 || (i > 0 && key(ta[i - 1]) > key(tb[j - 1]))) return ta[i - 1].coefficient > 0 ? 1 : -1;
      if (i == 0 || key(tb[j - 1]) > key(ta[i - 1])) return tb[j - 1].coefficient > 0 ? -1 : 1;
      if (ta[i - 1].coefficient != tb[j - 1].coefficient) return ta[i - 1].coefficient > tb[j - 1].coefficient ? 1 : -1;
      --i, --j;
    }
    return 0;
  }
  // Laurent monomials: lexicographic on exponents, largest atom first.
  int compare_mono(mono_id a, mono_id b) const {
    if (a == b) return 0;
    auto fa = factors(a), fb = factors(b);
    std::size_t i = fa.size(), j = fb.size();
    while (i > 0 || j > 0) {
      if (j == 0 || (i > 0 && fa[i - 1].atom > fb[j - 1].atom)) return fa[i - 1].exponent > 0 ? 1 : -1;
      if (i == 0 || fb[j - 1].atom > fa[i - 1].atom) return fb[j - 1].exponent > 0 ? -1 : 1;
      if (fa[i - 1].exponent != fb[j - 1].exponent) return fa[i - 1].exponent > fb[j - 1].exponent ? 1 : -1;
      --i, --j;
    }
    return 0;
  }

  struct normalizer {
    coefficient_t c;  // den · (c·m·e^h) has leading term 1
    mono_id m;
    poly_id h;
    poly_id den;  // the normalized denominator
  };
  // The same denominator is normalized again and again (every output of a softmax shares it, and
  // every step of a running quotient meets its own): its inverse leading term and normalized form
  // are memoized, also for a denominator that is normalized already (finding its leading term is a
  // pass over all its terms).
  normalizer normalizer_of(poly_id den) {
    if (auto it = normalizers_.find(den); it != normalizers_.end()) return it->second;
    auto td = terms(den);
    const poly_term* lead = &td[0];
    for (auto& t : td.subspan(1)) {
      int c = compare_poly(t.ex, lead->ex);
      if (c > 0 || (c == 0 && compare_mono(t.mono, lead->mono) > 0)) lead = &t;
    }
    normalizer z{coefficient_t(1), unit_mono, zero_poly, den};
    if (!(lead->coefficient == 1 && lead->mono == unit_mono && lead->ex == zero_poly)) {
      z = {coefficient_t(1) / lead->coefficient, mono_pow(lead->mono, -1), poly_scale(lead->ex, coefficient_t(-1)), zero_poly};
      z.den = poly_times_unit(den, z.c, z.m, z.h);
    }
    normalizers_.emplace(den, z);
    return z;
  }
  fraction normalize(poly_id num, poly_id den) {
    if (den == zero_poly) throw term::term_error("division by zero");
    if (den == one_poly_ || num == zero_poly) return {num, one_poly_};
    const normalizer z = normalizer_of(den);
    return {poly_times_unit(num, z.c, z.m, z.h), z.den};
  }

  fraction add_fractions(const fraction& a, const fraction& b) {
    if (a.num == zero_poly) return b;
    if (b.num == zero_poly) return a;
    if (a.den == b.den) return normalize(poly_add(a.num, b.num), a.den);
    return normalize(poly_add(poly_mul(a.num, b.den), poly_mul(b.num, a.den)), poly_mul(a.den, b.den));
  }
  fraction mul_fractions(const fraction& a, const fraction& b) {
    if (a.num == zero_poly || b.num == zero_poly) return {zero_poly, one_poly_};
    if (a.num == one_poly_ && a.den == one_poly_) return b;
    if (b.num == one_poly_ && b.den == one_poly_) return a;
    // (n/d)·d' with d' = d·unit cancels to n·unit before anything is multiplied out: a running
    // quotient rescaled by its own denominator (FlashAttention's O·l/l_new) stays linear in size
    // instead of doubling its denominator at every step.
    poly_id an = a.num, ad = a.den, bn = b.num, bd = b.den;
    if (auto u = unit_quotient(an, bd)) an = *u, bd = one_poly_;
    if (auto u = unit_quotient(bn, ad)) bn = *u, ad = one_poly_;
    return normalize(poly_mul(an, bn), poly_mul(ad, bd));
  }
  // p / d when p is d times a single term (d normalized, not 1), else nothing.
  std::optional<poly_id> unit_quotient(poly_id p, poly_id d) {
    if (d == one_poly_ || p == zero_poly || terms(p).size() != terms(d).size()) return std::nullopt;
    if (p == d) return one_poly_;
    // Multiplying by c·m·e^h maps monomials one to one, so p and d must have as many distinct
    // monomials (terms are sorted by monomial first): a pass without arithmetic rules out most
    // candidates (Σⱼ vⱼ·e^(sⱼ) against Σⱼ e^(sⱼ)) before p is normalized.
    auto distinct_monos = [&](poly_id x) {
      std::size_t n = 0;
      mono_id last = 0;
      for (auto& t : terms(x)) {
        if (n == 0 || t.mono != last) ++n;
        last = t.mono;
      }
      return n;
    };
    if (distinct_monos(p) != distinct_monos(d)) return std::nullopt;
    const normalizer z = normalizer_of(p);  // p·z is p normalized, z the inverse of p's leading term
    if (z.den != d) return std::nullopt;
    return poly_times_unit(one_poly_, coefficient_t(1) / z.c, mono_pow(z.m, -1), poly_scale(z.h, coefficient_t(-1)));
  }
  fraction pow_fraction(fraction a, std::int64_t e) {
    if (e == 1) return a;
    if (e < 0) {
      if (a.num == zero_poly) throw term::term_error("division by zero");
      a = normalize(a.den, a.num);
      e = -e;
    }
    check_power(a.num, e);
    check_power(a.den, e);
    fraction result{one_poly_, one_poly_};
    while (e) {
      if (e & 1) result = mul_fractions(result, a);
      e >>= 1;
      if (e) a = mul_fractions(a, a);
    }
    return result;
  }

  fraction constant_fraction(const coefficient_t& c) {
    if (c == 0) return {zero_poly, one_poly_};
    const poly_term t{unit_mono, zero_poly, c};
    return {intern_poly(std::span<const poly_term>(&t, 1)), one_poly_};
  }
  fraction atom_fraction(term_id atom) {
    mono_factor f{atom, 1};
    const poly_term t{intern_mono(std::span<const mono_factor>(&f, 1)), zero_poly, coefficient_t(1)};
    return {intern_poly(std::span<const poly_term>(&t, 1)), one_poly_};
  }
  // Multiplies the unit m·e^h by base^exponent when base's form is one term m'·e^h' (an input,
  // an exponential, an atom); false, and m·e^h unchanged, otherwise.
  bool fold_factor(term_id base, std::int32_t exponent, mono_id& m, poly_id& h) {
    if (s_.kind_of(base) == term::kind::input) {
      m = mono_mul(m, monomial_of(base), exponent);
      return true;
    }
    const fraction g = form(base);
    if (g.den != one_poly_ || terms(g.num).size() != 1 || terms(g.num)[0].coefficient != 1) return false;
    const poly_term& u = terms(g.num)[0];
    m = mono_mul(m, u.mono, exponent);
    h = poly_add(h, poly_scale(u.ex, coefficient_t(exponent)));
    return true;
  }

  // The normal form of a node whose children's forms are known (or inlined).
  fraction compute(term_id t);
  struct sum_parts {
    poly_id polynomial = 0;
    std::vector<fraction> fractions;  // unnormalized num / den, one per distinct denominator
  };
  sum_parts parts_of_sum(term_id t);
  fraction compute_sum(term_id t);
  poly_id exponent_of(term_id a);
  fraction canonical_atom(term_id t);
  std::size_t child_count(term_id t) const;
  term_id child(term_id t, std::size_t i) const;
  // A hint that the node of x (and its cached monomial) is read soon.
  void read_ahead(term_id x) const {
    s_.prefetch(x);
    if (x < mono_of_term_.size()) __builtin_prefetch(mono_of_term_.data() + x);
  }
  // The store's constant at `index` as a coefficient (cached: converting a GMP rational on every
  // entry of a long sum showed in the profile).
  const coefficient_t& coefficient(std::uint32_t index) {
    if (index >= coefficient_known_.size()) {
      coefficients_.resize(std::max<std::size_t>(index + 1, 2 * coefficients_.size()));
      coefficient_known_.resize(coefficients_.size(), 0);
    }
    if (!coefficient_known_[index]) {
      coefficients_[index] = coefficient_t(s_.constant_value(index));
      coefficient_known_[index] = 1;
    }
    return coefficients_[index];
  }
  // Constants, inputs and products of inputs (a·b, 2·x²/y) are the bulk of accumulation chains:
  // their forms are built directly from the term, without visiting or memoizing them.
  bool is_monomial(term_id t) const { return s_.is_monomial(t); }
  // The monomial of an input or a product of inputs (without the product's coefficient).
  mono_id monomial_of(term_id t) {
    // Cached by term id (a product of inputs is hash-consed, so both sides of an obligation share
    // it): a vector read in nearly the order terms were built, instead of a hash lookup. The
    // monomial's key is the product with coefficient 1 (see intern_mono): t itself, mostly.
    if (t < mono_of_term_.size() && mono_of_term_[t] != unit_mono) return mono_of_term_[t];
    term_id key = t;
    if (s_.kind_of(t) == term::kind::mul && s_.at(t).payload != term::store::one_index) key = s_.unit_product(t);
    mono_id m = mono_slot(key);
    if (m == unit_mono) {
      mono_scratch_.clear();
      if (s_.kind_of(key) == term::kind::input) {
        mono_scratch_.push_back({key, 1});
      } else {
        for (auto f : s_.product_entries(key)) mono_scratch_.push_back({f.base, f.exponent});
        std::sort(mono_scratch_.begin(), mono_scratch_.end(),
                  [](const mono_factor& a, const mono_factor& b) { return a.atom < b.atom; });
      }
      m = new_mono(mono_scratch_, hash_mono(mono_scratch_), key);
      mono_slot(key) = m;
    }
    mono_slot(t) = m;
    return m;
  }
  fraction monomial_form(term_id t) {
    switch (s_.kind_of(t)) {
      case term::kind::constant: return constant_fraction(s_.value_of(t));
      case term::kind::input: return atom_fraction(t);
      default: break;
    }
    poly_term one{monomial_of(t), zero_poly, s_.product_coefficient(t)};
    return {intern_poly(std::span<const poly_term>(&one, 1)), one_poly_};
  }
  fraction form(term_id t) {
    if (is_monomial(t)) return monomial_form(t);
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    return nested_of(t);
  }
  fraction nested_of(term_id t);
  term_id rescaled_sum(term_id t) const;
  bool unit_product(term_id t) const;

  // ---- products of sums, expanded over their parts -----------------------------------------
  // Σᵢ (xᵢ − m)² with m = Σⱼ xⱼ/n a shared sum, multiplied out product by product, costs n times
  // the size of m², although the result has that size. Instead, a product of sums used by a sum
  // is first expanded over its *parts*: a sum factor is written as its entries, and an entry that
  // is a large shared polynomial (memoized, at least part_min_terms terms) stays one variable,
  // a part atom (its own term id in a monomial). The parent sum gathers the terms of all such
  // products by their product of parts (Σᵢ xᵢ² + (−2/n·Σᵢ xᵢ)·m + (n/n²)·m²) and multiplies each
  // distinct product of parts out once. Part atoms never reach a finished form: they are
  // substituted within parts_of_sum.
  static constexpr std::size_t part_min_terms = 16;
  bool product_of_sums(term_id t) const;
  bool is_part(term_id t) const {
    if (is_monomial(t)) return false;
    const term::kind k = s_.kind_of(t);
    if (k != term::kind::add && k != term::kind::mul) return false;
    auto it = memo_.find(t);
    return it != memo_.end() && it->second.den == one_poly_ && terms(it->second.num).size() >= part_min_terms;
  }
  mono_id part_mono(term_id t) {
    part_atoms_.insert(t);
    mono_factor f{t, 1};
    return intern_mono(std::span<const mono_factor>(&f, 1));
  }
  std::optional<poly_id> over_parts(term_id product);
  std::optional<poly_id> sum_over_parts(term_id sum);
  std::pair<mono_id, mono_id> split_parts(mono_id m);
  poly_id parts_product(mono_id parts);
  poly_id poly_pow(poly_id p, std::int32_t e) {
    check_power(p, e);
    poly_id r = one_poly_;
    for (; e > 0; e >>= 1) {
      if (e & 1) r = poly_mul(r, p);
      if (e > 1) p = poly_mul(p, p);
    }
    return r;
  }

  term::store& s_;
  normal_form_options options_;
  // Interned monomials and polynomials live in arenas: spans into them stay valid while new ones
  // are interned (polynomial arithmetic reads its operands while it interns results).
  std::vector<range<mono_factor>> monos_;
  std::vector<term_id> mono_terms_;  // mono_term(m), where known (no_term: not yet)
  support::stable_arena<mono_factor> mono_factors_;
  boost::unordered_flat_set<table_entry, entry_hash, entry_eq> mono_table_;
  std::vector<range<poly_term>> polys_;
  support::stable_arena<poly_term> poly_terms_;
  boost::unordered_flat_set<table_entry, entry_hash, entry_eq> poly_table_;
  poly_id one_poly_ = 0;
  std::uint64_t terms_built_ = 0;
  boost::unordered_flat_map<std::uint64_t, mono_id> mono_mul_memo_;
  boost::unordered_flat_map<std::uint64_t, poly_id> add_memo_, mul_memo_;
  boost::unordered_flat_map<term_id, fraction> memo_;
  boost::unordered_flat_map<poly_id, term_id> poly_term_memo_;
  // (kind, function, argument polynomials…) → the atom standing for that application (canonical_atom).
  struct key_hash {
    std::size_t operator()(const std::vector<std::uint32_t>& k) const {
      std::uint64_t h = 0x6a09e667f3bcc909ULL;
      for (auto x : k) h = support::hash_combine(h, x);
      return static_cast<std::size_t>(h);
    }
  };
  boost::unordered_flat_map<std::vector<std::uint32_t>, term_id, key_hash> atom_of_form_;
  // Pass state of of(): references to sums and products within the cone being normalized, and
  // the nodes walked by the sum that uses them (see of()).
  struct reference {
    std::uint32_t count;
    term_id parent;  // the first parent seen (the only one when count is 1)
  };
  boost::unordered_flat_map<term_id, reference> refs_;
  boost::unordered_flat_set<term_id> walk_;
  std::vector<mono_factor> mono_scratch_;
  std::vector<mono_id> mono_of_term_;  // monomial_of(t) by term id; unit_mono: not computed yet
  std::vector<coefficient_t> coefficients_;  // coefficient(index), where coefficient_known_
  std::vector<std::uint8_t> coefficient_known_;
  boost::unordered_flat_map<poly_id, normalizer> normalizers_;
  std::vector<std::vector<poly_term>> spare_terms_;  // storage of finished accumulators
  std::vector<sort_key> key_scratch_;   // finish()
  std::vector<sort_key> radix_scratch_;
  // Products of sums over parts (see over_parts): the terms used as part atoms, each sum's form
  // over its parts (nothing: not a polynomial), monomials split into (other atoms, part atoms),
  // and the multiplied-out products of parts.
  boost::unordered_flat_set<term_id> part_atoms_;
  boost::unordered_flat_map<term_id, std::optional<poly_id>> over_parts_memo_;
  boost::unordered_flat_map<mono_id, std::pair<mono_id, mono_id>> split_memo_;
  boost::unordered_flat_map<mono_id, poly_id> parts_product_memo_;
  std::vector<poly_term> term_scratch_;
};

inline std::size_t normal_forms::child_count(term_id t) const {
  using term::kind;
  switch (s_.kind_of(t)) {
    case kind::add:
    case kind::mul: return s_.slots(t).size() / 2;
    case kind::dot: return s_.dot_entries(t).size() * 2;  // x and y of each entry
    case kind::exp:
    case kind::log:
    case kind::sqrt:
    case kind::max:
    case kind::min:
    case kind::apply: return s_.slots(t).size();
    default: return 0;
  }
}

inline term_id normal_forms::child(term_id t, std::size_t i) const {
  using term::kind;
  switch (s_.kind_of(t)) {
    case kind::add: return s_.sum_entries(t)[i].term;
    case kind::mul: return s_.product_entries(t)[i].base;
    case kind::dot: {
      const term::dot_entry e = s_.dot_entries(t)[i / 2];
      return i % 2 ? e.y : e.x;
    }
    default: return s_.args(t)[i];
  }
}

inline fraction normal_forms::of(term_id root) {
  if (is_monomial(root)) return monomial_form(root);
  if (auto it = memo_.find(root); it != memo_.end()) return it->second;
  // Pass 1: an iterative DFS over the part of the DAG not yet normalized, giving a post-order and,
  // for sums and products, their reference counts and (first) parent.
  refs_.clear();
  walk_.clear();
  std::vector<term_id> order;
  boost::unordered_flat_set<term_id> seen;
  seen.insert(root);
  struct frame {
    term_id t;
    std::uint32_t next;
    std::uint32_t count;
  };
  auto open = [&](term_id t) {
    // A sum's entries are read ahead: each is a load from far away in the store (see parts_of_sum).
    if (s_.kind_of(t) == term::kind::add)
      for (auto e : s_.sum_entries(t).first(std::min<std::size_t>(s_.sum_entries(t).size(), 32))) s_.prefetch(e.term);
    return frame{t, 0, static_cast<std::uint32_t>(child_count(t))};
  };
  std::vector<frame> frames{open(root)};
  while (!frames.empty()) {
    frame& f = frames.back();
    if (f.next < f.count) {
      const term_id parent = f.t;
      term_id c = child(parent, f.next++);
      if (is_monomial(c)) continue;  // built on the fly: never visited nor memoized
      term::kind ck = s_.kind_of(c);
      if (ck == term::kind::add || ck == term::kind::mul || ck == term::kind::dot) {
        auto [it, fresh] = refs_.try_emplace(c, reference{0, parent});
        ++it->second.count;
      }
      if (!memo_.contains(c) && seen.insert(c).second) frames.push_back(open(c));
      continue;
    }
    order.push_back(f.t);
    frames.pop_back();
  }
  // Which nodes are walked by the sum that uses them instead of being normalized on their own
  // (parents before children: reverse post-order). A sum used only by a sum is walked (its terms
  // go straight into the parent's accumulator), and so is a rescaled sum `S·u` (u a product of
  // inputs and exponentials, as in an online softmax's D·e^(m_old − m_new)) used only by a sum,
  // together with its S when S is used only there: the parent's walk carries the factor u down to
  // S's terms. Without this, a running rescaled sum of n steps costs n²/2 term operations.
  // A product of sums used only by a sum is walked too, and expanded over its parts (over_parts):
  // a variance Σᵢ (xᵢ − m)² with m a shared sum multiplies m·m once, not n times.
  // A sum whose every use is as a factor of such walked products is left to them as well: they
  // read its entries (sum_over_parts), and its own form is built only if one of them needs it.
  boost::unordered_flat_map<term_id, std::uint32_t> factor_uses;  // by walked products of sums
  for (auto t = order.rbegin(); t != order.rend(); ++t) {
    if (*t == root) continue;
    auto r = refs_.find(*t);
    if (r == refs_.end() || memo_.contains(*t)) continue;
    term::kind k = s_.kind_of(*t);
    if (k == term::kind::add) {
      auto u = factor_uses.find(*t);
      if (u != factor_uses.end() && u->second == r->second.count) {
        walk_.insert(*t);
        continue;
      }
    }
    if (r->second.count != 1) continue;
    term_id parent = r->second.parent;
    term::kind pk = s_.kind_of(parent);
    const bool by_parts = options_.expand_by_parts && product_of_sums(*t);
    bool walked_by_sum =
        pk == term::kind::add &&
        (k == term::kind::add || k == term::kind::dot || rescaled_sum(*t) != term::no_term || by_parts ||
         unit_product(*t));
    bool base_of_walked_rescale =
        pk == term::kind::mul && walk_.contains(parent) && rescaled_sum(parent) == *t;
    if (walked_by_sum || base_of_walked_rescale) walk_.insert(*t);
    if (walked_by_sum && by_parts)
      for (auto f : s_.product_entries(*t))
        if (s_.kind_of(f.base) == term::kind::add) ++factor_uses[f.base];
  }
  // Pass 2: normalize in post-order; walked nodes are left to the sum that walks them.
  for (term_id t : order) {
    if (t != root && walk_.contains(t)) continue;
    if (!memo_.contains(t)) memo_.emplace(t, compute(t));
  }
  refs_.clear();
  walk_.clear();
  return memo_.at(root);
}

// The normal form of t from inside pass 2 (t's form was not built by this pass: it was walked by
// an earlier one): a nested normalization with its own pass state.
inline fraction normal_forms::nested_of(term_id t) {
  auto saved_refs = std::move(refs_);
  auto saved_walk = std::move(walk_);
  fraction r = of(t);
  refs_ = std::move(saved_refs);
  walk_ = std::move(saved_walk);
  return r;
}

// A product none of whose factors is a sum or a product (x·e^h, p·V[j][c], 2·max(a, b)/y): a
// sum that uses it adds its one term directly, instead of a one-term polynomial interned for it.
inline bool normal_forms::unit_product(term_id t) const {
  if (s_.kind_of(t) != term::kind::mul || is_monomial(t)) return false;
  for (auto f : s_.product_entries(t)) {
    term::kind k = s_.kind_of(f.base);
    if (k == term::kind::add || k == term::kind::mul || k == term::kind::constant || s_.is_infinite(f.base)) return false;
  }
  return true;
}

// S when t is S·u with S a sum (exponent 1) and u a product of inputs and exponentials (any
// integer powers), else term::no_term.
inline term_id normal_forms::rescaled_sum(term_id t) const {
  if (s_.kind_of(t) != term::kind::mul) return term::no_term;
  term_id sum = term::no_term;
  for (auto f : s_.product_entries(t)) {
    term::kind k = s_.kind_of(f.base);
    if (k == term::kind::add && f.exponent == 1 && sum == term::no_term) sum = f.base;
    else if (k != term::kind::input && k != term::kind::exp) return term::no_term;
  }
  return sum;
}

inline fraction normal_forms::compute(term_id t) {
  using term::kind;
  switch (s_.kind_of(t)) {
    case kind::constant: return constant_fraction(s_.value_of(t));
    case kind::neg_inf:
    case kind::pos_inf: throw unsupported("an infinity inside an expression has no normal form");
    case kind::input: return atom_fraction(t);
    case kind::add: return compute_sum(t);
    // A dot is a sum of products that have no term each: parts_of_sum folds each product into one
    // term of the accumulator, as it does for a sum's entries.
    case kind::dot: return compute_sum(t);
    case kind::mul: {
      // Cancel a factor's numerator against another factor's denominator first (a/d · d·u =
      // a·u), whatever order the factors come in, so that no denominator is multiplied out only
      // to be divided again.
      std::vector<fraction> fs;
      for (auto f : s_.product_entries(t)) fs.push_back(pow_fraction(form(f.base), f.exponent));
      for (std::size_t i = 0; i < fs.size(); ++i) {
        if (fs[i].den == one_poly_) continue;
        for (std::size_t j = 0; j < fs.size() && fs[i].den != one_poly_; ++j)
          if (j != i)
            if (auto u = unit_quotient(fs[j].num, fs[i].den)) {
              fs[j].num = *u;
              fs[i].den = one_poly_;
            }
      }
      // Single terms first: their product is one term, and a long numerator (a running output
      // N·(l_old/l_new)·e^(m_old − m_new)) is then multiplied once, not once per factor.
      std::stable_sort(fs.begin(), fs.end(), [&](const fraction& a, const fraction& b) {
        return terms(a.num).size() < terms(b.num).size();
      });
      fraction r = constant_fraction(s_.product_coefficient(t));
      for (auto& f : fs) r = mul_fractions(r, f);
      return r;
    }
    case kind::exp: {
      fraction a = form(s_.arg(t));
      poly_id e = a.den == one_poly_ ? a.num : exponent_of(s_.arg(t));
      std::vector<poly_term> one{{unit_mono, e, coefficient_t(1)}};
      return {intern_poly(one), one_poly_};
    }
    default: return canonical_atom(t);
  }
}

// A sum: walk into inlined sub-sums, accumulating c·(normal form) grouped by denominator.
inline normal_forms::sum_parts normal_forms::parts_of_sum(term_id t) {
  struct group {
    poly_id den;
    accumulator acc;
  };
  std::vector<group> groups;  // sums of fractions with a denominator other than 1
  accumulator plain = new_accumulator();
  auto group_for = [&](poly_id den) -> accumulator& {
    for (auto& g : groups)
      if (g.den == den) return g.acc;
    groups.push_back({den, new_accumulator()});
    return groups.back().acc;
  };
  // A walked node and the unit c·m·e^h its terms are multiplied by.
  struct item {
    term_id u;
    coefficient_t c;
    mono_id m;
    poly_id h;
  };
  // c·(m·e^h)·f for a form f.
  auto add_form = [&](const fraction& f, const coefficient_t& c, mono_id m, poly_id h) {
    accumulator& acc = f.den == one_poly_ ? plain : group_for(f.den);
    for (auto& x : terms(f.num)) acc.add(mono_mul(x.mono, m), poly_add(x.ex, h), x.coefficient * c);
  };
  // Terms of walked products of sums, by the product of parts they multiply (a monomial of part
  // atoms, see over_parts): like products of parts meet here and are multiplied out once, below.
  std::vector<std::pair<mono_id, accumulator>> by_parts;
  boost::unordered_flat_map<mono_id, std::size_t> parts_group;
  std::vector<item> work{{t, coefficient_t(1), unit_mono, zero_poly}};
  coefficient_t c0 = 0;
  while (!work.empty()) {
    item w = std::move(work.back());
    work.pop_back();
    const bool plain_unit = w.m == unit_mono && w.h == zero_poly;
    if (unit_product(w.u)) {  // c·Π fᵢ^eᵢ, each fᵢ a single term: one term, folded like a unit
      coefficient_t c = w.c * coefficient(s_.at(w.u).payload);
      mono_id m = w.m;
      poly_id h = w.h;
      bool single = true;
      for (auto f : s_.product_entries(w.u))
        if (!fold_factor(f.base, f.exponent, m, h)) {
          single = false;  // an application that simplified to a sum (exp(log(a + b)))
          break;
        }
      if (!single) add_form(form(w.u), w.c, w.m, w.h);
      else if (m == unit_mono && h == zero_poly) c0 += c;
      else plain.add(m, h, std::move(c));
      continue;
    }
    if (s_.kind_of(w.u) == term::kind::dot) {  // Σ cᵢ·xᵢ·yᵢ: each product is one term c·m·e^h
      const auto entries = s_.dot_entries(w.u);
      constexpr std::size_t ahead = 8;
      auto hint = [&](std::size_t j) {
        if (j < entries.size()) read_ahead(entries[j].x), read_ahead(entries[j].y);
      };
      for (std::size_t j = 0; j < ahead; ++j) hint(j);
      for (std::size_t j = 0; j < entries.size(); ++j) {
        hint(j + ahead);
        const term::dot_entry e = entries[j];
        coefficient_t c = e.coefficient == term::store::one_index ? w.c : w.c * coefficient(e.coefficient);
        mono_id m = w.m;
        poly_id h = w.h;
        if (fold_factor(e.x, 1, m, h) && fold_factor(e.y, 1, m, h)) {
          if (m == unit_mono && h == zero_poly) c0 += c;
          else plain.add(m, h, std::move(c));
        } else {  // a factor whose form is not one term (exp(log(a + b)))
          add_form(mul_fractions(form(e.x), form(e.y)), c, w.m, w.h);
        }
      }
      continue;
    }
    if (s_.kind_of(w.u) == term::kind::mul && rescaled_sum(w.u) == term::no_term) {  // a product of sums
      const std::optional<poly_id> p = over_parts(w.u);
      if (!p) {  // not a polynomial: its form, as for an entry that is not walked
        add_form(form(w.u), w.c, w.m, w.h);
        continue;
      }
      for (auto& x : terms(*p)) {
        const auto [rest, parts] = split_parts(x.mono);
        accumulator* acc = &plain;
        if (parts != unit_mono) {
          auto [it, fresh] = parts_group.try_emplace(parts, by_parts.size());
          if (fresh) by_parts.emplace_back(parts, new_accumulator());
          acc = &by_parts[it->second].second;
        }
        acc->add(mono_mul(rest, w.m), poly_add(x.ex, w.h), x.coefficient * w.c);
      }
      continue;
    }
    if (s_.kind_of(w.u) == term::kind::mul) {  // a walked rescaled sum S·u: fold u into the unit
      const term_id sum = rescaled_sum(w.u);
      for (auto f : s_.product_entries(w.u))
        if (f.base != sum) fold_factor(f.base, f.exponent, w.m, w.h);  // an input or an exponential
      work.push_back({sum, w.c * coefficient(s_.at(w.u).payload), w.m, w.h});
      continue;
    }
    if (s_.at(w.u).payload != term::store::zero_index) {  // the sum's constant
      coefficient_t k = w.c * coefficient(s_.at(w.u).payload);
      if (plain_unit) c0 += k;
      else plain.add(w.m, w.h, std::move(k));
    }
    // The entries' nodes (and cached monomials) are read ahead: a chain's products lie far apart
    // in the store, and without the hints each entry waits for its own cache miss.
    const auto entries = s_.sum_entries(w.u);
    constexpr std::size_t ahead = 16;
    for (auto e : entries.first(std::min(ahead, entries.size()))) read_ahead(e.term);
    for (std::size_t j = 0; j < entries.size(); ++j) {
      if (j + ahead < entries.size()) read_ahead(entries[j + ahead].term);
      const term::sum_entry e = entries[j];
      coefficient_t c = e.coefficient == term::store::one_index ? w.c : w.c * coefficient(e.coefficient);
      if (is_monomial(e.term)) {  // the bulk of a chain: its monomial goes straight in
        const term::node& n = s_.at(e.term);
        if (n.k == term::kind::constant) {
          c *= coefficient(n.payload);
          if (plain_unit) c0 += c;
          else plain.add(w.m, w.h, std::move(c));
          continue;
        }
        if (n.k == term::kind::mul && n.payload != term::store::one_index) c *= coefficient(n.payload);
        plain.add(mono_mul(monomial_of(e.term), w.m), w.h, std::move(c));
        continue;
      }
      if (walk_.contains(e.term)) {
        work.push_back({e.term, std::move(c), w.m, w.h});
        continue;
      }
      add_form(form(e.term), c, w.m, w.h);
    }
  }
  // Each distinct product of parts, times the sum of everything it multiplies.
  for (auto& [parts, acc] : by_parts) mul_into(plain, finish(acc), parts_product(parts));
  plain.add(unit_mono, zero_poly, c0);
  sum_parts parts{finish(plain), {}};
  for (auto& g : groups) parts.fractions.push_back({finish(g.acc), g.den});
  return parts;
}

// A product that a sum may expand over parts: some factor is a sum with a positive exponent, and
// none is a sum in a denominator (a rescaled sum S·u keeps its own walk).
inline bool normal_forms::product_of_sums(term_id t) const {
  if (s_.kind_of(t) != term::kind::mul || rescaled_sum(t) != term::no_term) return false;
  bool any = false;
  for (auto f : s_.product_entries(t)) {
    if (s_.kind_of(f.base) != term::kind::add) continue;
    if (f.exponent < 0) return false;
    any = true;
  }
  return any;
}

// The product as a polynomial over parts (see part_min_terms): its sum factors over their parts,
// its other factors as their forms; nothing when a factor is not a polynomial.
inline std::optional<poly_id> normal_forms::over_parts(term_id product) {
  poly_id r = constant_fraction(s_.product_coefficient(product)).num;
  for (auto f : s_.product_entries(product)) {
    poly_id p;
    if (s_.kind_of(f.base) == term::kind::add && f.exponent > 0) {
      std::optional<poly_id> q = sum_over_parts(f.base);
      if (!q) return std::nullopt;
      p = poly_pow(*q, f.exponent);
    } else {
      fraction g = pow_fraction(form(f.base), f.exponent);
      if (g.den != one_poly_) return std::nullopt;
      p = g.num;
    }
    r = poly_mul(r, p);
  }
  return r;
}

// A sum over its parts: its entries that are parts become part atoms, the others contribute their
// forms. A sum none of whose entries is a part is itself a part when it is one (Σᵢ S² → (Σ 1)·S²),
// else its form.
inline std::optional<poly_id> normal_forms::sum_over_parts(term_id sum) {
  if (auto it = over_parts_memo_.find(sum); it != over_parts_memo_.end()) return it->second;
  std::optional<poly_id> r;
  const auto entries = s_.sum_entries(sum);
  if (std::none_of(entries.begin(), entries.end(), [&](const term::sum_entry& e) { return is_part(e.term); })) {
    if (is_part(sum)) {
      const poly_term atom{part_mono(sum), zero_poly, coefficient_t(1)};
      r = intern_poly(std::span<const poly_term>(&atom, 1));
    } else if (fraction f = form(sum); f.den == one_poly_) {
      r = f.num;
    }
  } else {
    accumulator acc = new_accumulator();
    acc.add(unit_mono, zero_poly, coefficient_t(s_.sum_constant(sum)));
    bool polynomial = true;
    for (auto e : entries) {
      const coefficient_t& c = coefficient(e.coefficient);
      if (is_part(e.term)) {
        acc.add(part_mono(e.term), zero_poly, c);
        continue;
      }
      const fraction f = form(e.term);
      if (f.den != one_poly_) {
        polynomial = false;
        break;
      }
      for (auto& x : terms(f.num)) acc.add(x.mono, x.ex, x.coefficient * c);
    }
    if (!polynomial) acc.terms.clear();
    poly_id p = finish(acc);
    if (polynomial) r = p;
  }
  over_parts_memo_.emplace(sum, r);
  return r;
}

// A monomial split into (its other atoms, its part atoms).
inline std::pair<mono_id, mono_id> normal_forms::split_parts(mono_id m) {
  auto fs = factors(m);
  if (std::none_of(fs.begin(), fs.end(), [&](const mono_factor& f) { return part_atoms_.contains(f.atom); }))
    return {m, unit_mono};
  if (auto it = split_memo_.find(m); it != split_memo_.end()) return it->second;
  std::vector<mono_factor> rest, parts;
  for (auto f : fs) (part_atoms_.contains(f.atom) ? parts : rest).push_back(f);
  std::pair<mono_id, mono_id> r{intern_mono(rest), intern_mono(parts)};
  split_memo_.emplace(m, r);
  return r;
}

// Π Pᵢ^eᵢ for a monomial of part atoms, multiplied out (each part's form is memoized).
inline poly_id normal_forms::parts_product(mono_id parts) {
  if (auto it = parts_product_memo_.find(parts); it != parts_product_memo_.end()) return it->second;
  poly_id r = one_poly_;
  for (auto f : factors(parts)) r = poly_mul(r, poly_pow(form(f.atom).num, f.exponent));
  parts_product_memo_.emplace(parts, r);
  return r;
}

inline fraction normal_forms::compute_sum(term_id t) {
  sum_parts parts = parts_of_sum(t);
  fraction result{parts.polynomial, one_poly_};
  for (auto& f : parts.fractions) result = add_fractions(result, normalize(f.num, f.den));
  return result;
}

// The exponent of e^a when a is not a polynomial: a = P + Σᵢ qᵢ/Dᵢ (its polynomial part and one
// fraction per distinct denominator, as the sum was written). Each fraction, scaled so that its
// numerator's first coefficient is 1, becomes an atom of the exponent: e^a = e^P·Πᵢ e^(cᵢ·atomᵢ).
// So e^a·e^b = e^(a+b) and (e^a)^k = e^(k·a) hold for such exponents too. A fraction whose
// denominator divides its numerator only after a gcd is not reduced (gpueq has no polynomial
// gcd): such exponents may stay apart and end as "unknown", never as a wrong "equal".
inline poly_id normal_forms::exponent_of(term_id a) {
  coefficient_t scale = 1;
  // c·(sum): split the sum and scale.
  while (s_.kind_of(a) == term::kind::mul && s_.product_entries(a).size() == 1 &&
         s_.product_entries(a)[0].exponent == 1) {
    scale *= s_.product_coefficient(a);
    a = s_.product_entries(a)[0].base;
  }
  sum_parts parts;
  if (s_.kind_of(a) == term::kind::add) {
    parts = parts_of_sum(a);
  } else {
    const fraction f = is_monomial(a) || memo_.contains(a) ? form(a) : memo_.emplace(a, compute(a)).first->second;
    parts.polynomial = f.den == one_poly_ ? f.num : zero_poly;
    if (f.den != one_poly_) parts.fractions.push_back(f);
  }
  poly_id e = parts.polynomial;
  for (auto& g : parts.fractions) {
    fraction f = normalize(g.num, g.den);
    if (f.num == zero_poly) continue;
    if (f.den == one_poly_) {
      e = poly_add(e, f.num);
      continue;
    }
    coefficient_t c = terms(f.num)[0].coefficient;
    f.num = poly_scale(f.num, coefficient_t(1) / c);
    term_id atom = s_.div(poly_to_term(f.num), poly_to_term(f.den));
    e = poly_add(e, poly_scale(atom_fraction(atom).num, c));
  }
  return scale == 1 ? e : poly_scale(e, scale);
}

// max/min/sqrt/log/opaque functions (and exp of a non-polynomial): rebuild the application on
// canonical arguments; if that simplifies (max(x, x) = x), the simpler term's form is used.
inline fraction normal_forms::canonical_atom(term_id t) {
  using term::kind;
  // Arguments that are polynomials with two or more terms would be rebuilt as sums, on which no
  // constructor simplifies (max/min only sort and deduplicate them): such an application is keyed
  // by its kind and its arguments' forms instead (max/min: sorted, duplicates dropped), and the
  // first one seen stands for all of them. Rebuilding the arguments as terms cost more than
  // everything else in a LayerNorm decision (a variance's 33k monomials under a sqrt), and a tenth
  // of an attention decision (every score of a row under its max).
  if (const kind k = s_.kind_of(t); k != kind::exp) {
    std::vector<std::uint32_t> key{static_cast<std::uint32_t>(k), k == kind::apply ? s_.at(t).payload : 0u};
    bool plain = true;
    for (term_id a : s_.args(t)) {
      const fraction f = form(a);
      if (f.den != one_poly_ || terms(f.num).size() < 2) {
        plain = false;
        break;
      }
      key.push_back(f.num);
    }
    if (plain) {
      if (k == kind::max || k == kind::min) {
        std::sort(key.begin() + 2, key.end());
        key.erase(std::unique(key.begin() + 2, key.end()), key.end());
        if (key.size() == 3) return {key[2], one_poly_};  // max(a, a) = a
      }
      return atom_fraction(atom_of_form_.try_emplace(std::move(key), t).first->second);
    }
  }
  std::vector<term_id> args;
  for (term_id a : s_.args(t)) args.push_back(to_term(form(a)));
  term_id u;
  switch (s_.kind_of(t)) {
    case kind::exp: u = s_.exp(args[0]); break;
    case kind::log: u = s_.log(args[0]); break;
    case kind::sqrt: u = s_.sqrt(args[0]); break;
    case kind::max: u = s_.max(args); break;
    case kind::min: u = s_.min(args); break;
    case kind::apply: u = s_.apply(s_.function_of(t), args); break;
    default: throw unsupported("not an atom");
  }
  kind uk = s_.kind_of(u);
  bool atom_kind = uk == kind::log || uk == kind::sqrt || uk == kind::max || uk == kind::min || uk == kind::apply ||
                   (uk == kind::exp && uk == s_.kind_of(t));
  if (atom_kind || uk == kind::input) return atom_fraction(u);
  // The application simplified to something else: normalize that (its parts are canonical).
  return nested_of(u);
}

inline term_id normal_forms::poly_to_term(poly_id p) {
  if (auto it = poly_term_memo_.find(p); it != poly_term_memo_.end()) return it->second;
  std::vector<term_id> summands;
  summands.reserve(terms(p).size());
  for (auto& t : terms(p)) {
    // c·m·e^h as mul() would build it from its factors, made from m's own node: a long argument
    // (a variance's 33k monomials under a sqrt) was mostly spent in mul()'s general path.
    term_id x = mono_term(t.mono);
    if (t.ex != zero_poly) {
      term_id e = s_.exp(poly_to_term(t.ex));
      x = t.mono == unit_mono ? e : s_.mul(x, e);
    }
    summands.push_back(t.mono == unit_mono && t.ex == zero_poly ? s_.constant(t.coefficient.to_rational())
                       : t.coefficient == 1                     ? x
                                                                : s_.scale(t.coefficient.to_rational(), x));
  }
  term_id r = summands.empty() ? s_.zero() : s_.add(summands);
  poly_term_memo_.emplace(p, r);
  return r;
}

}  // namespace gpueq::canon
