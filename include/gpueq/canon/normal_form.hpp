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
//
// Files: this header holds the types and the class normal_forms (interning, the expansion budget,
// the declarations); its larger member functions are defined out of line, by theme, in
// canon/normal_form_arithmetic.hpp (monomials, polynomials, the order, fractions),
// canon/normal_form_pass.hpp (of: the passes over a term's DAG, the form of each node),
// canon/normal_form_sums.hpp (sums, and products of sums over their parts) and
// canon/normal_form_atoms.hpp (exponents, atoms, forms written back as terms); this header
// includes them at its end, and each includes this one.
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
  // Defined in canon/normal_form_arithmetic.hpp, as are the order and the fractions below.
  // An exponent of a monomial: the store keeps exponents in 32 bits, and products and powers of
  // monomials must too (x^(2^20) to the power 2^20 is out of range, not a wrapped exponent).
  static std::int32_t mono_exponent(std::int64_t e) {
    if (e > INT32_MAX || e < INT32_MIN) throw unsupported("normal form: a monomial's exponent is out of range (" + std::to_string(e) + ")");
    return static_cast<std::int32_t>(e);
  }
  mono_id mono_mul(mono_id a, mono_id b, std::int32_t b_power = 1);
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
  mono_id mono_pow(mono_id a, std::int32_t e);

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
  void radix_sort(std::vector<sort_key>& keys);
  poly_id finish(accumulator& acc);
  poly_id poly_add(poly_id a, poly_id b);
  poly_id poly_scale(poly_id a, const coefficient_t& c);
  poly_id poly_times_unit(poly_id a, const coefficient_t& c, mono_id m, poly_id h);
  poly_id poly_mul(poly_id a, poly_id b);
  void mul_into(accumulator& acc, poly_id a, poly_id b);

  // ---- the translation-invariant order used to pick a denominator's leading term -----------
  int compare_poly(poly_id a, poly_id b) const;
  int compare_mono(mono_id a, mono_id b) const;

  struct normalizer {
    coefficient_t c;  // den · (c·m·e^h) has leading term 1
    mono_id m;
    poly_id h;
    poly_id den;  // the normalized denominator
  };
  normalizer normalizer_of(poly_id den);
  fraction normalize(poly_id num, poly_id den);
  fraction add_fractions(const fraction& a, const fraction& b);
  fraction mul_fractions(const fraction& a, const fraction& b);
  std::optional<poly_id> unit_quotient(poly_id p, poly_id d);
  fraction pow_fraction(fraction a, std::int64_t e);

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

}  // namespace gpueq::canon

// The member functions of normal_forms declared above and defined out of line, by theme. Each of
// these headers includes this one, so any of them alone gives the whole canonicalizer.
#include <gpueq/canon/normal_form_arithmetic.hpp>
#include <gpueq/canon/normal_form_pass.hpp>
#include <gpueq/canon/normal_form_sums.hpp>
#include <gpueq/canon/normal_form_atoms.hpp>
