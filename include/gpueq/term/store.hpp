// The term store: hash-consed, immutable real-valued terms named by 32-bit ids.
//
// Every symbolic value gpueq computes (a kernel's outputs, a specification, a parsed identity)
// is a term in one store, so equal structure means equal id and shared subterms are shared.
// Smart constructors keep terms in a light canonical form as they build them:
//   add  = c0 + Σ cᵢ·tᵢ   (constants folded, nested sums flattened, operands sorted, like
//                          terms merged, zero coefficients dropped)
//   mul  = c · Π bᵢ^eᵢ    (integer exponents, so division is a power −1; like bases merged;
//                          eᵃ·eᵇ = eᵃ⁺ᵇ; a product never holds an add-free constant factor)
//   max/min              (nested max flattened, sorted, deduplicated, −∞/+∞ identities)
//   exp, log, sqrt, opaque functions (tanh, erf, …) with their constant folds.
//   dot  = Σ cᵢ·xᵢ·yᵢ    (a long sum of products of two factors, without a term per product:
//                          what a GEMM's accumulations close into; see sum_of)
// The full decision of f = g is the canonicalizer's job (gpueq/canon); the term level only
// does what is O(operands) per construction. To keep an accumulation chain acc += aₖ·bₖ linear,
// a sum (or product) with more than `flatten_limit` operands is not flattened into its parent:
// the chain becomes a linked list of flat chunks, and the canonicalizer flattens it once.
//
// Files: term/node.hpp holds the node types and their entries; this header the class store
// (inspection, leaves, hash-consing, the canonical order, the invariants). The smart constructors
// are member functions defined out of line, by theme, in term/store_arithmetic.hpp (add, scale,
// pow, mul), term/store_functions.hpp (exp, log, sqrt, max/min, apply, strict_sign) and
// term/store_dot.hpp (dot, sum_of), and import in term/store_import.hpp; this header includes them
// at its end, and each includes this one.
#pragma once

#include <gpueq/support/arena.hpp>
#include <gpueq/support/hash.hpp>
#include <gpueq/support/operations.hpp>
#include <gpueq/support/rational.hpp>
#include <gpueq/support/small_rational.hpp>
#include <gpueq/term/node.hpp>

#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpueq::term {

class store {
 public:
  static constexpr std::uint32_t zero_index = 0, one_index = 1, minus_one_index = 2;
  static_assert(one_index == 1, "dot_entries_view reads a unit dot's coefficients as constant index 1");

  explicit store(store_options options = {}) : options_(options), table_(0, node_hash{this}, node_eq{this}) {
    // Room for the terms of a small run from the start (384 KiB of nodes, untouched until used):
    // growing the nodes and the table from nothing copied and rehashed them a dozen times, 3–4 %
    // of a symbolic GEMM's run (bench_exec, 2026-11-29).
    nodes_.reserve(std::size_t{1} << 14);
    table_.reserve(std::size_t{1} << 14);
    intern_constant(rational(0));
    intern_constant(rational(1));
    intern_constant(rational(-1));
    zero_ = make_leaf(kind::constant, zero_index);
    one_ = make_leaf(kind::constant, one_index);
    minus_one_ = make_leaf(kind::constant, minus_one_index);
    neg_inf_ = make_leaf(kind::neg_inf, 0);
    pos_inf_ = make_leaf(kind::pos_inf, 0);
  }
  // A copy is a fork: the same terms under the same ids, after which the two stores grow
  // independently (parallel deciders each work in a fork; ids that existed at the fork point mean
  // the same term in both). The hash-consing table is rebuilt around the copy's own nodes.
  store(const store& o)
      : options_(o.options_), nodes_(o.nodes_), slots_(o.slots_), constants_(o.constants_),
        constant_index_(o.constant_index_), tensor_names_(o.tensor_names_), tensor_index_(o.tensor_index_),
        table_(o.table_.size(), node_hash{this}, node_eq{this}), constant_hashes_(o.constant_hashes_),
        tensor_hashes_(o.tensor_hashes_), zero_(o.zero_), one_(o.one_), minus_one_(o.minus_one_),
        neg_inf_(o.neg_inf_), pos_inf_(o.pos_inf_), fork_of_(o.serial_),
        fork_terms_(static_cast<term_id>(o.nodes_.size())),
        fork_constants_(static_cast<std::uint32_t>(o.constants_.size())),
        fork_tensors_(static_cast<std::uint32_t>(o.tensor_names_.size())) {
    for (const table_entry& e : o.table_) table_.insert(e);
  }
  store& operator=(const store&) = delete;

  // The term `t` of store `from`, built in this store: nodes are copied bottom-up with their
  // children, constants and tensor names re-interned (no smart-constructor work: a canonical node
  // of one store is canonical in every store, since the canonical order is structural). `memo`
  // maps ids of `from` to ids here across calls (pass the same vector for many terms of one
  // store; it grows as needed). Iterative, so deep accumulation chains do not overflow the stack.
  // A fork of this store (`from` copied from it) shares its ids, constants and tensor names up to
  // the fork point: those need no mapping, and a dot over such factors keeps its entry order.
  term_id import(const store& from, term_id t, std::vector<term_id>& memo);
  // import of each of `roots` (replaced by its term here), with the lookups of the long unit dots
  // among them and of their inputs on `threads` threads: what a multi-worker check imports after
  // its runs (term/store_import.hpp). Same terms as import one by one.
  void import_all(const store& from, std::span<term_id> roots, std::vector<term_id>& memo, unsigned threads);

  // Room for n more terms without growing the node array or rehashing the table.
  void reserve(std::size_t n) {
    nodes_.reserve(nodes_.size() + n);
    table_.reserve(table_.size() + n);
  }

  // ---- inspection -------------------------------------------------------------------------
  std::size_t size() const { return nodes_.size(); }
  const node& at(term_id t) const { return nodes_[t]; }
  kind kind_of(term_id t) const { return nodes_[t].k; }
  std::uint64_t hash_of(term_id t) const { return nodes_[t].hash; }
  const rational& constant_value(std::uint32_t index) const { return constants_[index]; }
  const rational& value_of(term_id t) const {  // t must be a constant
    return constants_[nodes_[t].payload];
  }
  bool is_constant(term_id t) const { return nodes_[t].k == kind::constant; }
  // A constant, an input, or a product of powers of inputs (x·y, 2·x²/y).
  bool is_monomial(term_id t) const { return nodes_[t].monomial; }
  // A hint that t's node is read soon (walks over long sums issue their loads ahead).
  void prefetch(term_id t) const {
#if defined(__x86_64__)
    // GCC 12 drops __builtin_prefetch in some long functions (normal_forms::parts_of_sum).
    asm volatile("prefetcht0 %0" : : "m"(nodes_[t]));
#else
    __builtin_prefetch(nodes_.data() + t);
#endif
  }
  bool is_infinite(term_id t) const { return is_infinity(nodes_[t].k); }
  std::span<const std::uint32_t> slots(term_id t) const {
    const node& n = nodes_[t];
    if (n.count == 0) return {};
    return {slots_.at(n.first), n.count};
  }
  // The terms a node is built from, in slot order: a sum's entry terms, a product's bases, a dot's
  // factors (x then y of each entry), the arguments of the rest; leaves have none.
  std::size_t child_count(term_id t) const {
    const node& n = nodes_[t];
    switch (n.k) {
      case kind::constant: case kind::neg_inf: case kind::pos_inf: case kind::input: return 0;
      case kind::add: case kind::mul: return n.count / 2;
      case kind::dot: return dot_entries(t).size() * 2;
      default: return n.count;
    }
  }
  term_id child(term_id t, std::size_t i) const {
    const node& n = nodes_[t];
    switch (n.k) {
      case kind::add: return *slots_.at(n.first + 2 * static_cast<std::uint32_t>(i) + 1);
      case kind::mul: return *slots_.at(n.first + 2 * static_cast<std::uint32_t>(i));
      case kind::dot:  // straight from the slots (dot_entries_view's layout): imports walk every child
        return n.payload == unit_dot ? *slots_.at(n.first + static_cast<std::uint32_t>(i))
                                     : *slots_.at(n.first + 3 * static_cast<std::uint32_t>(i / 2) + 1 + static_cast<std::uint32_t>(i % 2));
      default: return *slots_.at(n.first + static_cast<std::uint32_t>(i));
    }
  }
  // Arguments of exp/log/sqrt/max/min/apply.
  std::span<const term_id> args(term_id t) const { return slots(t); }
  term_id arg(term_id t) const { return *slots_.at(nodes_[t].first); }
  std::span<const sum_entry> sum_entries(term_id t) const {
    auto s = slots(t);
    return {reinterpret_cast<const sum_entry*>(s.data()), s.size() / 2};
  }
  std::span<const product_entry> product_entries(term_id t) const {
    auto s = slots(t);
    return {reinterpret_cast<const product_entry*>(s.data()), s.size() / 2};
  }
  dot_entries_view dot_entries(term_id t) const {
    auto s = slots(t);
    return {s.data(), s.size(), nodes_[t].payload == unit_dot};
  }
  const rational& sum_constant(term_id t) const { return constants_[nodes_[t].payload]; }
  const rational& product_coefficient(term_id t) const { return constants_[nodes_[t].payload]; }
  function function_of(term_id t) const { return static_cast<function>(nodes_[t].payload); }
  std::string_view tensor_name(term_id t) const { return tensor_names_[nodes_[t].payload]; }
  std::uint32_t tensor_index(term_id t) const { return nodes_[t].payload; }
  // The product x with its coefficient replaced by 1 (a single factor with exponent 1: that factor).
  term_id unit_product(term_id x) {
    std::vector<std::uint32_t> s(slots(x).begin(), slots(x).end());
    if (s.size() == 2 && static_cast<std::int32_t>(s[1]) == 1) return s[0];
    return make(kind::mul, one_index, s);
  }
  // x₁^e₁ ⋯ xₙ^eₙ for distinct inputs xᵢ (in any order) and non-zero exponents: the node that
  // mul() builds for it, made directly (a single factor with exponent 1 is that input).
  term_id power_product(std::span<const product_entry> factors) {
    if (factors.size() == 1 && factors[0].exponent == 1) return factors[0].base;
    boost::container::small_vector<product_entry, 8> f(factors.begin(), factors.end());
    std::sort(f.begin(), f.end(), [this](const product_entry& a, const product_entry& b) { return before(a.base, b.base); });
    boost::container::small_vector<std::uint32_t, 16> s;
    for (auto x : f) {
      s.push_back(x.base);
      s.push_back(static_cast<std::uint32_t>(x.exponent));
    }
    return make(kind::mul, one_index, s);
  }
  std::uint64_t tensor_hash(term_id t) const { return tensor_hashes_[nodes_[t].payload]; }  // of its name
  std::span<const std::uint32_t> input_indices(term_id t) const { return slots(t); }
  std::string_view tensor_name_at(std::uint32_t tensor) const { return tensor_names_[tensor]; }
  std::size_t tensor_count() const { return tensor_names_.size(); }

  const store_options& options() const { return options_; }

  // ---- leaves ------------------------------------------------------------------------------
  term_id zero() const { return zero_; }
  term_id one() const { return one_; }
  term_id minus_one() const { return minus_one_; }
  term_id infinity(bool negative = false) const { return negative ? neg_inf_ : pos_inf_; }
  term_id constant(const rational& value) { return make_leaf(kind::constant, intern_constant(value)); }
  term_id constant(long long value) {
    if (value == 0) return zero_;
    if (value == 1) return one_;
    if (value == -1) return minus_one_;
    return constant(rational(value));
  }
  std::uint32_t tensor(std::string_view name) {
    auto it = tensor_index_.find(name);
    if (it != tensor_index_.end()) return it->second;
    auto index = static_cast<std::uint32_t>(tensor_names_.size());
    tensor_names_.emplace_back(name);
    tensor_hashes_.push_back(support::hash_string(name));
    tensor_index_.emplace(tensor_names_.back(), index);
    return index;
  }
  // An input element: tensor name and its indices (none for a scalar input such as alpha).
  term_id input(std::string_view name, std::span<const std::uint32_t> indices = {}) {
    return make(kind::input, tensor(name), indices);
  }
  term_id input(std::string_view name, std::initializer_list<std::uint32_t> indices) {
    return input(name, std::span<const std::uint32_t>(indices.begin(), indices.size()));
  }

  // ---- arithmetic --------------------------------------------------------------------------
  term_id add(std::span<const term_id> xs);
  term_id add(term_id a, term_id b) {
    term_id xs[2] = {a, b};
    return add(xs);
  }
  term_id scale(const rational& c, term_id t);
  term_id neg(term_id t) { return scale(rational(-1), t); }
  term_id sub(term_id a, term_id b) { return add(a, neg(b)); }
  term_id mul(std::span<const term_id> xs);
  term_id mul(term_id a, term_id b) {
    term_id xs[2] = {a, b};
    return mul(xs);
  }
  term_id pow(term_id base, std::int64_t exponent);
  term_id inv(term_id t) { return pow(t, -1); }
  term_id div(term_id a, term_id b) { return mul(a, inv(b)); }
  // a·b + c, the shape of fma/mad.
  term_id fma(term_id a, term_id b, term_id c) { return add(mul(a, b), c); }

  // ---- functions ---------------------------------------------------------------------------
  term_id exp(term_id x);
  term_id log(term_id x);
  term_id sqrt(term_id x);
  term_id rsqrt(term_id x) { return pow(sqrt(x), -1); }
  term_id max(std::span<const term_id> xs) { return extremum(kind::max, xs); }
  term_id min(std::span<const term_id> xs) { return extremum(kind::min, xs); }
  term_id max(term_id a, term_id b) {
    term_id xs[2] = {a, b};
    return max(xs);
  }
  term_id min(term_id a, term_id b) {
    term_id xs[2] = {a, b};
    return min(xs);
  }
  term_id apply(function f, std::span<const term_id> xs);
  term_id apply(function f, term_id x) { return apply(f, std::span<const term_id>(&x, 1)); }

  // ---- signs -------------------------------------------------------------------------------
  // The sign t has at every input where it is defined, when the term's structure shows it:
  // +1 (t > 0 everywhere), −1 (t < 0 everywhere), 0 when not known (t may be 0, may change
  // sign, or the rules below cannot tell). It is what decides ∞ · t (product): ∞ times a value
  // that is positive for some inputs and negative (or zero) for others has no single value, so
  // only a strict sign that holds for every input counts. The rules: a non-zero constant has its
  // sign; exp(·) > 0; log(c) of a constant c ≠ 1 has the sign of c − 1; sqrt(t) > 0 and |t| > 0
  // for t of known sign; tanh and erf keep their argument's sign; a product multiplies its
  // coefficient's sign by each factor's (an even power needs a factor known non-zero); a sum or
  // dot whose constant and every entry are ≥ 0 with one entry > 0 is positive (and likewise
  // negative); max is positive when one argument is, negative when all are, and min the other way
  // round. Inputs, sin, cos and anything deeper than the visit budget are unknown, never guessed.
  int strict_sign(term_id t) const {
    int budget = 4096;  // nodes visited at most: a sign that needs more is reported unknown
    return strict_sign(t, budget);
  }

  // ---- long sums built at once -----------------------------------------------------------
  // Σ aᵢ·bᵢ (aᵢ alone where bᵢ is no_term) as one flat sum, the way an accumulation is closed
  // (exec/symbolic.hpp) and a specification's reduction is lowered (dsl/domains.hpp), so that the
  // two meet as one term. When more than flatten_limit of the summands are products of two dot
  // factors, those products go into one dot node, an entry of the sum, and are never made as terms
  // of their own: a 128x128 GEMM tile of depth K would otherwise hash-cons 16384·K products, one
  // hash-table miss each. The rest are added as add() adds them.
  term_id sum_of(std::span<const summand> xs);
  // sum_of when the caller knows that xs[plain_from..] are plain pairs (plain_pair) whose
  // pair_hash values sum to hash_sum (mod 2^64): those go into the dot without looking at their
  // factors again, and a dot without merged entries takes its hash from the sum.
  term_id sum_of(std::span<const summand> xs, std::size_t plain_from, std::uint64_t hash_sum);
  // x·y as a dot entry with coefficient 1, as sum_of would take it: two dot factors, not two
  // exponentials. pair_hash: its share of a dot's structural hash (structural_hash, kind::dot).
  bool plain_pair(term_id x, term_id y) const { return plain_pair_kinds(nodes_[x].k, nodes_[y].k); }
  // The same from the factors' kinds.
  static constexpr bool plain_pair_kinds(kind x, kind y) {
    return dot_factor_kind(x) && dot_factor_kind(y) && !(x == kind::exp && y == kind::exp);
  }
  // Symmetric in x and y by construction, and cheap: it runs once per product appended to an open
  // sum: a full mix of the two hashes was a third of symbolic_domain::push, and this made the
  // symbolic hgemm 16 % faster (bench_exec, 2026-11-29). The node hashes are already mixed and
  // dot_hash mixes the sum; a collision costs the table a structural comparison, never a wrong
  // term (node_eq compares the nodes).
  std::uint64_t pair_hash(term_id x, term_id y, std::uint32_t coefficient) const {
    const std::uint64_t hx = nodes_[x].hash, hy = nodes_[y].hash;
    return (hx * hy + (hx ^ hy)) ^ constant_hashes_[coefficient];
  }
  std::uint64_t pair_hash(term_id x, term_id y) const { return pair_hash(x, y, one_index); }
  // A dot's structural hash from the sum (mod 2^64) of its entries' pair hashes.
  static std::uint64_t dot_hash(std::uint64_t pair_hash_sum) {
    return support::mix64(support::hash_combine(static_cast<std::uint64_t>(kind::dot) + 1, 0) ^ pair_hash_sum);
  }
  // The factors a dot holds: inputs and applications (exp, log, sqrt, max, min, tanh, …), whose
  // product with one another is just the two of them side by side (no constant to fold, no
  // product to flatten, no sum to make primitive) — except two exponentials, which merge.
  bool dot_factor(term_id t) const { return dot_factor_kind(nodes_[t].k); }
  static constexpr bool dot_factor_kind(kind k) {
    switch (k) {
      case kind::input: case kind::exp: case kind::log: case kind::sqrt: case kind::max: case kind::min:
      case kind::apply: return true;
      default: return false;
    }
  }
  // The dot t as the add of its products (the normal forms read a dot this way).
  term_id dot_as_sum(term_id t);
  // The structural hash the product x·y of two dot factors has as a term (whether or not it was
  // made): the order of an add of such products, which a dot's printed form follows.
  std::uint64_t product_hash(term_id x, term_id y) const {
    std::uint32_t sl[4] = {x, 1, y, 1};
    if (x == y) sl[1] = 2;
    else if (before(y, x)) sl[0] = y, sl[2] = x;
    return structural_hash(kind::mul, one_index, std::span<const std::uint32_t>(sl, x == y ? 2 : 4));
  }
  // Σ cᵢ·xᵢ·yᵢ over dot factors (not two exponentials in one entry): entries put in canonical
  // shape (x ≤ y by id, sorted by (x, y), like products merged, zeros dropped), then a dot node, or
  // the add of the products when at most flatten_limit remain. Reorders `entries`.
  // `known_hash`: the node's structural hash when the caller has it (import: a node's hash is the
  // same in every store), so that it is not computed again from every entry's factors.
  term_id dot(std::vector<dot_entry>& entries, std::optional<std::uint64_t> known_hash = std::nullopt,
              std::optional<std::uint64_t> entry_hash_sum = std::nullopt);

  // The canonical operand order: constants, infinities, inputs by (tensor name, indices), then
  // compound terms by structural hash. Independent of construction order, so a fresh store that
  // builds the same values prints them the same way.
  bool before(term_id a, term_id b) const {
    if (a == b) return false;
    const node &x = nodes_[a], &y = nodes_[b];
    int rx = rank(x.k), ry = rank(y.k);
    if (rx != ry) return rx < ry;
    if (x.k == kind::constant) return constants_[x.payload] < constants_[y.payload];
    if (x.k == kind::input) {
      if (x.payload != y.payload) {
        int c = tensor_names_[x.payload].compare(tensor_names_[y.payload]);
        if (c != 0) return c < 0;
      }
      auto ix = slots(a), iy = slots(b);
      return std::lexicographical_compare(ix.begin(), ix.end(), iy.begin(), iy.end());
    }
    if (x.hash != y.hash) return x.hash < y.hash;
    return a < b;
  }

  // Intern a rational and return its index in the constant table.
  std::uint32_t intern_constant(const small_rational& value) {
    if (value == 0) return zero_index;
    if (value == 1) return one_index;
    if (value == -1) return minus_one_index;
    return intern_constant(value.to_rational());
  }
  std::uint32_t intern_constant(const rational& value) {
    // 0, 1 and −1 are by far the most common: no hashing of a GMP value for them.
    if (constants_.size() > minus_one_index) {
      switch (support::unit_value(value)) {
        case 0: return zero_index;
        case 1: return one_index;
        case -1: return minus_one_index;
        default: break;
      }
    }
    auto it = constant_index_.find(value);
    if (it != constant_index_.end()) return it->second;
    auto index = static_cast<std::uint32_t>(constants_.size());
    constants_.push_back(value);
    constant_hashes_.push_back(support::hash_rational(value));
    constant_index_.emplace(value, index);
    return index;
  }

 private:
  // What store `from` has in common with this one by construction (import, import_all): the
  // terms, constants and tensor names below these indices have the same ids in both. A fork of
  // this store shares everything up to the fork; any store shares the constants 0, 1 and -1.
  struct shared_prefix {
    term_id terms;
    std::uint32_t constants, tensors;
  };
  shared_prefix shared_with(const store& from) const {
    if (from.fork_of_ == serial_) return {from.fork_terms_, from.fork_constants_, from.fork_tensors_};
    return {0, minus_one_index + 1, 0};
  }
  // import's path for a unit dot, and its slots alone (term/store_import.hpp).
  template <class Map>
  term_id import_unit_dot(std::span<const std::uint32_t> slots, std::uint64_t hash, Map&& map);
  template <class Map>
  static bool unit_dot_slots(std::span<const std::uint32_t> slots, Map&& map, std::vector<std::uint64_t>& keys,
                             std::vector<std::uint32_t>& out);

  struct key_view {
    kind k;
    std::uint32_t payload;
    std::span<const std::uint32_t> slots;
    std::uint64_t hash;
  };
  // The hash-consing table holds (id, hash) pairs: probing and rehashing never touch nodes_
  // (random accesses into a large array were the cost of building terms). Structural hashes are
  // already mixed, so the table uses them as they are.
  struct table_entry {
    term_id id;
    std::uint64_t hash;
  };
  struct node_hash {
    const store* s;
    using is_transparent = void;
    using is_avalanching = void;
    std::size_t operator()(const table_entry& e) const { return static_cast<std::size_t>(e.hash); }
    std::size_t operator()(const key_view& k) const { return static_cast<std::size_t>(k.hash); }
  };
  struct node_eq {
    const store* s;
    using is_transparent = void;
    bool operator()(const table_entry& a, const table_entry& b) const { return a.id == b.id; }
    bool operator()(const key_view& k, const table_entry& e) const { return k.hash == e.hash && s->matches(k, e.id); }
    bool operator()(const table_entry& e, const key_view& k) const { return k.hash == e.hash && s->matches(k, e.id); }
  };
  struct rational_hash {
    std::size_t operator()(const rational& r) const {
      return static_cast<std::size_t>(support::hash_rational(r));
    }
  };
  struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const {
      return static_cast<std::size_t>(support::hash_string(s));
    }
  };
  struct string_eq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };

  static int rank(kind k) {
    switch (k) {
      case kind::constant: return 0;
      case kind::neg_inf: return 1;
      case kind::pos_inf: return 2;
      case kind::input: return 3;
      default: return 4;
    }
  }

  bool matches(const key_view& k, term_id t) const {
    const node& n = nodes_[t];
    if (n.hash != k.hash || n.k != k.k || n.payload != k.payload || n.count != k.slots.size()) return false;
    return n.count == 0 || std::equal(k.slots.begin(), k.slots.end(), slots_.at(n.first));
  }

  std::uint64_t hash_payload(kind k, std::uint32_t payload) const {
    switch (k) {
      case kind::constant:
      case kind::add:
      case kind::mul: return constant_hashes_[payload];
      case kind::input: return tensor_hashes_[payload];
      case kind::dot: return 0;  // the representation (general_dot, unit_dot) is not hashed
      default: return payload;
    }
  }

  // The structural hash: built from child hashes and values, never from ids, so it does not
  // depend on the order in which a store created its terms.
  std::uint64_t structural_hash(kind k, std::uint32_t payload, std::span<const std::uint32_t> s) const {
    std::uint64_t h = support::hash_combine(static_cast<std::uint64_t>(k) + 1, hash_payload(k, payload));
    switch (k) {
      case kind::input:
        for (auto i : s) h = support::hash_combine(h, i);
        break;
      // Sums and products are hashed with one multiply per entry (they are long and built often),
      // then mixed once at the end.
      case kind::add:
        for (std::size_t i = 0; i + 1 < s.size(); i += 2)
          h = (h ^ (constant_hashes_[s[i]] + nodes_[s[i + 1]].hash * 0x9e3779b97f4a7c15ULL)) * 0x100000001b3ULL;
        return support::mix64(h);
      case kind::mul:
        for (std::size_t i = 0; i + 1 < s.size(); i += 2)
          h = (h ^ (nodes_[s[i]].hash + s[i + 1] * 0x9e3779b97f4a7c15ULL)) * 0x100000001b3ULL;
        return support::mix64(h);
      // A dot's entries are ordered by id (store::dot), so its hash must not depend on their order:
      // a sum of mixed entry hashes, each symmetric in its two factors.
      // Both representations hash alike (a unit dot's coefficients are the constant 1).
      case kind::dot: {
        std::uint64_t sum = 0;
        for (dot_entry e : dot_entries_view(s.data(), s.size(), payload == unit_dot))
          sum += pair_hash(e.x, e.y, e.coefficient);
        return dot_hash(sum);
      }
      default:
        for (auto c : s) h = support::hash_combine(h, nodes_[c].hash);
    }
    return h;
  }

  term_id make_leaf(kind k, std::uint32_t payload) { return make(k, payload, {}); }

  // The node make would find, or no_term; reads only, so threads may look up at once while
  // nothing is made (import_all).
  term_id find(kind k, std::uint32_t payload, std::span<const std::uint32_t> s, std::uint64_t hash) const {
    auto it = table_.find(key_view{k, payload, s, hash});
    return it == table_.end() ? no_term : it->id;
  }

  // `known_hash`: see dot().
  term_id make(kind k, std::uint32_t payload, std::span<const std::uint32_t> s,
               std::optional<std::uint64_t> known_hash = std::nullopt) {
    key_view key{k, payload, s, known_hash ? *known_hash : structural_hash(k, payload, s)};
#if GPUEQ_CHECK_INVARIANTS
    GPUEQ_INVARIANT(!known_hash || *known_hash == structural_hash(k, payload, s), "a known hash is the structural one");
#endif
    auto it = table_.find(key);
    if (it != table_.end()) return it->id;
    check_invariants(k, payload, s);
    if (nodes_.size() >= no_term) throw std::length_error("term store is full (2^32 terms)");
    auto id = static_cast<term_id>(nodes_.size());
    bool monomial = k == kind::constant || k == kind::input;
    if (k == kind::mul) {
      monomial = true;
      for (std::size_t i = 0; i < s.size(); i += 2) monomial = monomial && nodes_[s[i]].k == kind::input;
    }
    std::uint32_t first = slots_.append(s);
    nodes_.push_back(node{k, monomial, payload, first, static_cast<std::uint32_t>(s.size()), key.hash});
    table_.insert(table_entry{id, key.hash});
    return id;
  }

  void check_invariants([[maybe_unused]] kind k, [[maybe_unused]] std::uint32_t payload,
                        [[maybe_unused]] std::span<const std::uint32_t> s) const {
#if GPUEQ_CHECK_INVARIANTS
    switch (k) {
      case kind::add:
        GPUEQ_INVARIANT(s.size() >= 2 && s.size() % 2 == 0, "a sum has entries");
        GPUEQ_INVARIANT(s.size() >= 4 || payload != zero_index, "a sum of one term is that term");
        for (std::size_t i = 0; i < s.size(); i += 2) {
          kind ck = nodes_[s[i + 1]].k;
          GPUEQ_INVARIANT(s[i] != zero_index, "no zero coefficient in a sum");
          GPUEQ_INVARIANT(ck != kind::constant && ck != kind::neg_inf && ck != kind::pos_inf,
                          "no constant operand in a sum");
          GPUEQ_INVARIANT(ck != kind::mul || nodes_[s[i + 1]].payload == one_index,
                          "a sum's operands carry no coefficient of their own");
          GPUEQ_INVARIANT(i == 0 || before(s[i - 1], s[i + 1]), "a sum's operands are sorted");
        }
        break;
      case kind::mul:
        GPUEQ_INVARIANT(s.size() >= 2 && s.size() % 2 == 0, "a product has entries");
        GPUEQ_INVARIANT(payload != zero_index, "a product's coefficient is not zero");
        GPUEQ_INVARIANT(s.size() >= 4 || payload != one_index || static_cast<std::int32_t>(s[1]) != 1,
                        "a product of one factor is that factor");
        for (std::size_t i = 0; i < s.size(); i += 2) {
          kind bk = nodes_[s[i]].k;
          GPUEQ_INVARIANT(static_cast<std::int32_t>(s[i + 1]) != 0, "no zero exponent");
          GPUEQ_INVARIANT(bk != kind::constant && bk != kind::neg_inf && bk != kind::pos_inf,
                          "no constant factor in a product");
          GPUEQ_INVARIANT(i == 0 || before(s[i - 2], s[i]), "a product's factors are sorted");
          GPUEQ_INVARIANT(bk != kind::add || nodes_[s[i]].count / 2 > options_.flatten_limit ||
                              *slots_.at(nodes_[s[i]].first) == one_index,
                          "a sum factor is primitive (first coefficient 1)");
        }
        break;
      case kind::max:
      case kind::min:
        GPUEQ_INVARIANT(s.size() >= 2, "max/min of at least two arguments");
        for (std::size_t i = 0; i < s.size(); ++i) {
          GPUEQ_INVARIANT(nodes_[s[i]].k != k, "max/min arguments are flattened");
          GPUEQ_INVARIANT(!is_infinite(s[i]), "no infinite max/min argument");
          GPUEQ_INVARIANT(i == 0 || before(s[i - 1], s[i]), "max/min arguments sorted and distinct");
        }
        break;
      case kind::exp:
      case kind::log:
      case kind::sqrt:
        // A constant argument stays when the value is irrational (exp 2, log 3, sqrt 2).
        GPUEQ_INVARIANT(s.size() == 1 && !is_infinite(s[0]), "one finite argument");
        GPUEQ_INVARIANT(k != kind::exp || (s[0] != zero_ && nodes_[s[0]].k != kind::log), "exp folds 0 and log");
        GPUEQ_INVARIANT(k != kind::log || (s[0] != one_ && nodes_[s[0]].k != kind::exp), "log folds 1 and exp");
        break;
      case kind::dot: {
        GPUEQ_INVARIANT(payload == general_dot || payload == unit_dot, "a dot is general or unit");
        const std::size_t width = payload == unit_dot ? 2 : 3;
        GPUEQ_INVARIANT(s.size() % width == 0 && s.size() / width > options_.flatten_limit,
                        "a dot has more than flatten_limit entries");
        dot_entries_view es(s.data(), s.size(), payload == unit_dot);
        bool all_unit = true;
        for (std::size_t i = 0; i < es.size(); ++i) {
          const dot_entry e = es[i];
          all_unit = all_unit && e.coefficient == one_index;
          GPUEQ_INVARIANT(e.coefficient != zero_index, "no zero coefficient in a dot");
          GPUEQ_INVARIANT(dot_factor(e.x) && dot_factor(e.y), "a dot's factors are dot factors");
          GPUEQ_INVARIANT(nodes_[e.x].k != kind::exp || nodes_[e.y].k != kind::exp,
                          "no product of two exponentials in a dot");
          GPUEQ_INVARIANT(e.x <= e.y, "a dot entry's factors are in id order");
          GPUEQ_INVARIANT(i == 0 || std::pair(es[i - 1].x, es[i - 1].y) < std::pair(e.x, e.y),
                          "a dot's entries are sorted and distinct");
        }
        GPUEQ_INVARIANT(all_unit == (payload == unit_dot), "a dot with every coefficient 1 is a unit dot");
      }
        break;
      default: break;
    }
#endif
  }

  // Scratch buffers reused across constructions (no per-operation allocation once warm).
  struct sum_item {
    std::uint32_t coefficient;  // constant index
    term_id term;
  };
  struct product_item {
    term_id base;
    std::int64_t exponent;
  };

  // Adds c·x to the pending sum; coefficients travel as constant indices so the common case
  // (coefficient 1, flattening a chunk) does no rational arithmetic.
  void collect_summand(term_id x, std::uint32_t c, small_rational& c0, int& infinities,
                       std::vector<sum_item>& items);

  std::uint32_t times(std::uint32_t a, std::uint32_t b) {
    if (a == one_index) return b;
    if (b == one_index) return a;
    return intern_constant(constants_[a] * constants_[b]);
  }


  term_id extremum(kind k, std::span<const term_id> xs);
  int strict_sign(term_id t, int& budget) const;
  term_id product(std::vector<product_item>& items);
  void collect_factor(term_id x, std::int64_t e, small_rational& c, int& infinity_sign, int& infinities,
                      std::vector<product_item>& items, std::vector<term_id>& exponents);

  store_options options_;
  std::vector<node> nodes_;
  support::word_arena slots_;  // operands; spans into it stay valid while the store grows
  std::vector<rational> constants_;
  boost::unordered_flat_map<rational, std::uint32_t, rational_hash> constant_index_;
  std::vector<std::string> tensor_names_;
  boost::unordered_flat_map<std::string, std::uint32_t, string_hash, string_eq> tensor_index_;
  boost::unordered_flat_set<table_entry, node_hash, node_eq> table_;
  std::vector<sum_item> sum_scratch_;
  std::vector<product_item> product_scratch_;
  std::vector<std::uint32_t> slot_scratch_;
  std::vector<std::uint64_t> constant_hashes_;  // hash of constants_[i], cached (hot in hashing)
  std::vector<std::uint64_t> tensor_hashes_;
  std::vector<product_item> factor_scratch_;
  std::vector<term_id> exponent_scratch_;
  std::vector<std::uint32_t> dot_slot_scratch_;
  std::vector<term_id> extremum_scratch_;
  std::vector<dot_entry> import_scratch_;
  std::vector<dot_entry> sum_of_entries_;  // sum_of's
  std::vector<term_id> sum_of_items_;
  std::vector<std::uint64_t> import_keys_;
  term_id zero_ = 0, one_ = 0, minus_one_ = 0, neg_inf_ = 0, pos_inf_ = 0;
  // Which store this is, and which one it was forked from, with the sizes at the fork (import).
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> n{1};
    return n++;
  }
  std::uint64_t serial_ = next_serial();
  std::uint64_t fork_of_ = 0;
  term_id fork_terms_ = 0;
  std::uint32_t fork_constants_ = 0, fork_tensors_ = 0;
};

}  // namespace gpueq::term

// The smart constructors and import, member functions of store declared above and defined out of
// line, by theme. Each of these headers includes this one, so any of them alone gives the whole
// store.
#include <gpueq/term/store_import.hpp>
#include <gpueq/term/store_arithmetic.hpp>
#include <gpueq/term/store_functions.hpp>
#include <gpueq/term/store_dot.hpp>
