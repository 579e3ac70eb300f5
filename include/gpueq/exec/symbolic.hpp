// The symbolic domain: data values are term ids of a term::store, so a run computes each output
// as a real-valued term of the inputs (VOLTA's symbolic execution). Float formats are reals here
// (README, "Semantics decisions"): a float constant is the exact dyadic rational it encodes, a
// format conversion (f32 -> f16, f16 -> f32) is the identity, rounding modes and .ftz are not
// modelled. Integer data are exact integers (no overflow: stated in the README). A value that is
// not a real (NaN) or a conversion of symbolic data to an integer is a domain_error, which the
// engine reports as "not a structured CTA" with the instruction.
#pragma once

#include <gpueq/exec/case_split.hpp>
#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/floats.hpp>
#include <gpueq/term/operations.hpp>
#include <gpueq/term/print.hpp>
#include <gpueq/term/store.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace gpueq::exec {

class symbolic_domain {
 public:
  // A value during a run: a term of the store, or an *open sum*, the sum of the first n entries of
  // one of the domain's accumulation buffers. An accumulation acc = a·b + acc (a dot product, a
  // softmax denominator, an mma's k loop) appends one entry to acc's buffer instead of building a
  // term: no hash-consing, no sorting, no partial sums in the store, whose cost per step grew with
  // the chunk it re-hashed. The sum becomes a term once (flat, its operands sorted) when something
  // other than accumulation reads it: an exp, a product, a comparison, a store whose identity the
  // race context records, an output. Values stay values: (buffer, n) always means the first n
  // entries, which later appends never change; appending to a value that is not the buffer's
  // whole length (a second continuation of the same partial sum) continues from its closed term.
  struct real {
    term::term_id t = 0;  // n == 0: a term of the store; n > 0: an accumulation buffer
    std::uint32_t n = 0;
    bool open() const { return n != 0; }
  };
  using result = term::term_id;
  static constexpr bool symbolic = true;

  explicit symbolic_domain(term::store& s) : s_(s) {}
  symbolic_domain(const symbolic_domain&) = delete;
  symbolic_domain& operator=(const symbolic_domain&) = delete;
  term::store& store() { return s_; }
  static real of(term::term_id t) { return {t, 0}; }

  real from_float(std::uint64_t bits, rkind k) {
    double v = floats::decode(bits, k);
    if (std::isnan(v)) throw domain_error("a NaN constant has no real value");
    if (std::isinf(v)) return of(s_.infinity(v < 0));
    return of(s_.constant(support::rational(v)));
  }
  real from_int(std::int64_t v) { return of(s_.constant(static_cast<long long>(v))); }
  std::optional<std::uint64_t> float_bits(real x, rkind k) {
    term::term_id a = close(x);
    if (s_.kind_of(a) == term::kind::neg_inf) return floats::encode(-INFINITY, k);
    if (s_.kind_of(a) == term::kind::pos_inf) return floats::encode(INFINITY, k);
    if (!s_.is_constant(a)) return std::nullopt;
    double d = s_.value_of(a).convert_to<double>();
    if (support::rational(d) != s_.value_of(a) || floats::round_to(d, k) != d) return std::nullopt;
    return floats::encode(d, k);
  }
  std::optional<std::int64_t> integer(real x) {
    term::term_id a = close(x);
    if (!s_.is_constant(a)) return std::nullopt;
    return support::to_int64(s_.value_of(a));
  }
  // Input terms are cached by (tensor, element): every CTA of a grid loads its tile of the inputs
  // afresh, and making the term again (hashing the name and indices, probing the store) was a
  // tenth of a GEMM's symbolic run.
  real input(const input_ref& in) {
    if (in.tensor >= inputs_.size()) inputs_.resize(in.tensor + 1);
    input_cache& c = inputs_[in.tensor];
    if (c.name != in.name || !std::equal(c.shape.begin(), c.shape.end(), in.shape.begin(), in.shape.end())) {
      c.name = in.name;  // first use of this tensor index, or a launch that binds it otherwise
      c.shape.assign(in.shape.begin(), in.shape.end());
      c.ids.clear();
    }
    if (in.element < c.ids.size() && c.ids[in.element] != term::no_term) return of(c.ids[in.element]);
    term::term_id t;
    if (in.shape.empty()) {
      t = s_.input(in.name);
    } else {
      boost::container::small_vector<std::uint32_t, 4> idx(in.shape.size());
      std::uint64_t e = in.element;
      for (std::size_t d = in.shape.size(); d-- > 0;) {
        idx[d] = static_cast<std::uint32_t>(e % in.shape[d]);
        e /= in.shape[d];
      }
      t = s_.input(in.name, std::span<const std::uint32_t>(idx.data(), idx.size()));
    }
    if (in.element < (std::uint64_t{1} << 28)) {  // (a dense cache up to 2^28 elements per tensor)
      if (in.element >= c.ids.size()) c.ids.resize(std::max<std::size_t>(in.element + 1, 2 * c.ids.size()), term::no_term);
      c.ids[in.element] = t;
    }
    return of(t);
  }

  // An fma is inline (the step of every accumulation, which the warp-wide form calls for each
  // lane), the rest out of line: with everything in one function its prologue and the calls it
  // could not inline cost a symbolic GEMM a fifth of its instructions.
  real arith(aop o, std::span<const real> x, rkind k, float_mode m) {
    if (o == aop::fma && x.size() == 3) return fma(x[0], x[1], x[2]);
    return arith_other(o, x, k, m);
  }
  [[gnu::noinline]] real arith_other(aop o, std::span<const real> x, rkind, float_mode) {
    switch (o) {
      case aop::add: return sum(x[0], x[1], false);
      case aop::sub: return sum(x[0], x[1], true);
      case aop::fma: return fma_general(x[0], x[1], x[2]);
      default: break;
    }
    boost::container::small_vector<term::term_id, 3> args;
    for (const real& r : x) args.push_back(close(r));
    return of(term::build(s_, o, std::span<const term::term_id>(args.data(), args.size())));
  }

  std::optional<bool> compare(cmp_op c, real x, real y, rkind) {
    term::term_id a = close(x), b = close(y);
    auto value = [&](term::term_id t) -> std::optional<double> {
      if (s_.kind_of(t) == term::kind::neg_inf) return -INFINITY;
      if (s_.kind_of(t) == term::kind::pos_inf) return INFINITY;
      return std::nullopt;
    };
    std::optional<int> order;  // -1, 0, 1
    if (a == b) order = 0;
    else if (s_.is_constant(a) && s_.is_constant(b)) order = s_.value_of(a) < s_.value_of(b) ? -1 : s_.value_of(a) == s_.value_of(b) ? 0 : 1;
    else if (auto va = value(a)) order = *va < 0 ? -1 : 1;   // -inf below, +inf above any real
    else if (auto vb = value(b)) order = *vb < 0 ? 1 : -1;
    if (!order) return split_ ? split_->decided(s_, c, a, b) : std::nullopt;
    return holds(relation_of(c), *order);
  }

  // A case split (exec/case_split.hpp) for the runs that follow, or none (nullptr): with one, a
  // comparison its path's assumptions decide is decided, and `branch` takes an outcome for an
  // undecided one the run cannot go on without. Without one, `branch` answers nullopt and such a
  // run stops as not structured.
  void attach(case_split* c) { split_ = c; }
  std::optional<bool> branch(cmp_op c, real x, real y) {
    if (!split_) return std::nullopt;
    term::term_id a = close(x), b = close(y);
    // A predicate computed before the path assumed its outcome (one setp feeding two selps) is
    // decided by the assumptions now: no second branch point for it.
    if (auto d = split_->decided(s_, c, a, b)) return *d;
    return split_->branch(s_, c, a, b);
  }

  // Float formats are reals; only a conversion to an integer needs a concrete value.
  real convert(real x, rkind, rkind to, float_mode m) {
    if (to != rkind::integer) return x;
    term::term_id a = close(x);
    if (!s_.is_constant(a)) throw domain_error("conversion of a symbolic value to an integer");
    double d = s_.value_of(a).convert_to<double>();
    switch (m.round) {
      case rounding::rzi: case rounding::rz: d = std::trunc(d); break;
      case rounding::rmi: case rounding::rm: d = std::floor(d); break;
      case rounding::rpi: case rounding::rp: d = std::ceil(d); break;
      default: d = std::nearbyint(d); break;
    }
    return of(s_.constant(static_cast<long long>(d)));
  }

  bool same(real a, real b) const { return close(a) == close(b); }
  std::optional<std::uint64_t> identity(real a) const { return std::uint64_t{close(a)}; }  // the term id
  std::string show(real a) const { return term::to_string(s_, close(a)); }
  result finish(real a) { return close(a); }
  // A CTA run that starts over (check::run_cta): its accumulators are dropped and its path, if a
  // case split is attached, replays from the first branch point.
  void restart_run() {
    end_run();
    if (split_) split_->restart();
  }
  // The buffers and their chunks go back to the pools: a domain runs many CTAs, each with its own
  // accumulators.
  void end_run() {
    for (auto& b : buffers_) {
      b.chunks.clear();
      b.closed.clear();
      spare_.push_back(std::move(b));
    }
    buffers_.clear();
    tails_.clear();
    chunks_used_ = 0;
  }

 private:
  // An entry of an open sum: a·b (an fma's product) or a alone (b == no_term): the summands
  // store::sum_of takes, so a sum closes without a copy.
  using entry = term::summand;
  static constexpr term::term_id alone = term::no_term;
  // A buffer's entries lie in fixed-size chunks of one pool per domain (chunk i holds entries
  // [i·chunk_entries, (i+1)·chunk_entries)), not in a vector of their own: the accumulators of a
  // CTA grow in lockstep, and a vector each meant a reallocation and a copy at every doubling of
  // every one of them (a 128x128 tile: 16384 sums of 129 entries), which with the allocator's
  // page faults was a third of a tiled GEMM's symbolic run. Closing a sum copies its entries out
  // once (close_open).
  static constexpr std::uint32_t chunk_entries = 32;
  struct buffer {
    boost::container::small_vector<entry*, 5> chunks;
    const entry& operator[](std::uint32_t i) const { return chunks[i / chunk_entries][i % chunk_entries]; }
    std::vector<std::pair<std::uint32_t, term::term_id>> closed;  // (n, term) of earlier closes, by n
  };
  // What an append reads and writes of buffer i, in tails_[i], apart from the rest: 32 bytes, two
  // to a cache line, where a buffer is two lines (a CTA's accumulators take turns, thousands of
  // them, so each append's buffer is a cache miss).
  struct alignas(32) tail {
    entry* chunk = nullptr;  // the last chunk (entries [size - size % chunk_entries, ...))
    std::uint32_t size = 0;
    // entries[plain_from..] are plain pairs (store::plain_pair) whose pair hashes sum to hash_sum,
    // noted at append while their factors are in cache: closing the whole buffer then reads no
    // factor again (store::sum_of's plain tail).
    std::uint32_t plain_from = 0;
    std::uint64_t hash_sum = 0;
  };

  // A value that an open sum never holds as an entry: a constant or an infinity is folded by the
  // store at once (so an infinity meets its ∞ − ∞ or 0·∞ at the instruction that made it, and
  // closing a sum never fails).
  bool folds(term::term_id t) const { return s_.is_constant(t) || s_.is_infinite(t); }

  real sum(real x, real y, bool negate) {
    if (x.open()) return add_to(x, y, negate);
    if (y.open() && !negate) return add_to(y, x, false);
    term::term_id a = x.t, b = close(y);
    if (folds(a) || folds(b)) return of(negate ? s_.sub(a, b) : s_.add(a, b));
    return start({a, alone}, {negate ? s_.neg(b) : b, alone});
  }

  // A product the store folds at once (an infinity meets its 0·∞ or ∞ − ∞ there, two constants
  // multiply): never an open sum's entry.
  static bool folded_product(term::kind ka, term::kind kb) {
    return term::is_infinity(ka) || term::is_infinity(kb) || (ka == term::kind::constant && kb == term::kind::constant);
  }
  // acc = a·b + acc: fma_general's append to an open sum, read off the two factors' kinds once
  // (a and b closed terms, neither infinite nor both constants, acc the whole of its buffer).
  real fma(real x, real y, real z) {
    if (!x.open() && !y.open() && z.open()) [[likely]] {
      tail& h = tails_[z.t];
      const term::kind ka = s_.kind_of(x.t), kb = s_.kind_of(y.t);
      if (h.size == z.n && !folded_product(ka, kb)) {
        push(h, z.t, {x.t, y.t}, term::store::plain_pair_kinds(ka, kb));
        return {z.t, z.n + 1};
      }
    }
    return fma_general(x, y, z);
  }
  [[gnu::noinline]] real fma_general(real x, real y, real z) {
    term::term_id a = close(x), b = close(y);
    if (folded_product(s_.kind_of(a), s_.kind_of(b))) return of(s_.fma(a, b, close(z)));
    if (z.open()) return append(z, {a, b});
    if (folds(z.t)) return of(s_.fma(a, b, z.t));
    return start({z.t, alone}, {a, b});
  }

  // acc + y (or acc − y) for an open acc.
  real add_to(real acc, real y, bool negate) {
    if (!y.open() || negate || y.t == acc.t) {
      term::term_id b = close(y);
      if (s_.is_infinite(b)) return of(negate ? s_.sub(close(acc), b) : s_.add(close(acc), b));
      if (b == s_.zero()) return acc;
      return append(acc, {negate ? s_.neg(b) : b, alone});
    }
    // Two open sums: y's entries continue acc (a split-K tree of partial sums becomes one sum).
    for (std::uint32_t i = 0; i < y.n; ++i) acc = append(acc, buffers_[y.t][i]);
    return acc;
  }

  real start(entry first, entry second) {
    std::uint32_t id = new_buffer();
    push(id, first);
    push(id, second);
    return {id, 2};
  }

  real append(real acc, entry e) {
    if (tails_[acc.t].size != acc.n)  // another continuation appended already
      return start({close(acc), alone}, e);
    push(acc.t, e);
    return {acc.t, acc.n + 1};
  }

  void push(std::uint32_t id, entry e) {
    push(tails_[id], id, e, e.b != term::no_term && s_.plain_pair(e.a, e.b));
  }
  // plain: e is a plain pair (store::plain_pair), whose pair hash the tail adds up.
  void push(tail& h, std::uint32_t id, entry e, bool plain) {
    if (plain) {
      h.hash_sum += s_.pair_hash(e.a, e.b);
    } else {
      h.plain_from = h.size + 1;
      h.hash_sum = 0;
    }
    const std::uint32_t i = h.size % chunk_entries;
    if (i == 0) [[unlikely]] grow(h, id);
    h.chunk[i] = e;
    ++h.size;
  }
  [[gnu::noinline]] void grow(tail& h, std::uint32_t id) {
    h.chunk = new_chunk();
    buffers_[id].chunks.push_back(h.chunk);
  }

  // A chunk of the pool: blocks of block_chunks chunks that stay where they are while the pool
  // grows (buffers point into them), handed out in order and all taken back at the end of a run.
  // (Blocks of 2 MiB on transparent huge pages measured slower.)
  static constexpr std::uint32_t block_chunks = 256;
  entry* new_chunk() {
    const std::uint32_t block = chunks_used_ / block_chunks;
    if (block == blocks_.size()) blocks_.push_back(std::make_unique_for_overwrite<entry[]>(std::size_t{block_chunks} * chunk_entries));
    entry* c = blocks_[block].get() + std::size_t{chunks_used_ % block_chunks} * chunk_entries;
    ++chunks_used_;
    return c;
  }

  // Entries [from, to) of b, appended to out.
  static void copy_entries(const buffer& b, std::uint32_t from, std::uint32_t to, std::vector<entry>& out) {
    while (from < to) {
      const std::uint32_t i = from % chunk_entries, n = std::min(chunk_entries - i, to - from);
      const entry* c = b.chunks[from / chunk_entries] + i;
      out.insert(out.end(), c, c + n);
      from += n;
    }
  }

  std::uint32_t new_buffer() {
    if (buffers_.size() >= term::no_term - 2) throw domain_error("too many open sums in one run");
    if (spare_.empty()) {
      buffers_.emplace_back();
    } else {
      buffers_.push_back(std::move(spare_.back()));
      spare_.pop_back();
    }
    tails_.emplace_back();
    return static_cast<std::uint32_t>(buffers_.size() - 1);
  }

  // The term of an open sum: one flat sum of its entries (store::sum_of: the products of a long
  // one go into a dot, without a term each), memoized per (buffer, n). A sum closed again after a
  // few more entries (a shared-memory accumulator whose every store the race context identifies)
  // continues from the longest earlier close when that is the larger part, so repeated closes
  // cost the entries added since, not the whole sum each time.
  term::term_id close(real v) const { return v.open() ? close_open(v) : v.t; }
  [[gnu::noinline]] term::term_id close_open(real v) const {
    buffer& b = buffers_[v.t];
    auto it = std::lower_bound(b.closed.begin(), b.closed.end(), v.n,
                               [](const std::pair<std::uint32_t, term::term_id>& c, std::uint32_t n) { return c.first < n; });
    if (it != b.closed.end() && it->first == v.n) return it->second;
    term::term_id r;
    if (it != b.closed.begin() && v.n - (it - 1)->first < (it - 1)->first) {
      items_.assign(1, {(it - 1)->second});
      copy_entries(b, (it - 1)->first, v.n, items_);
      r = s_.sum_of(items_);
    } else {
      items_.clear();
      copy_entries(b, 0, v.n, items_);
      const tail& h = tails_[v.t];
      r = v.n == h.size ? s_.sum_of(items_, h.plain_from, h.hash_sum) : s_.sum_of(items_);
    }
    b.closed.insert(it, {v.n, r});
    return r;
  }

  struct input_cache {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::vector<term::term_id> ids;  // by flat element index; no_term: not made yet
  };
  term::store& s_;
  case_split* split_ = nullptr;
  std::vector<input_cache> inputs_;  // by the launch's tensor index
  mutable std::vector<buffer> buffers_;
  std::vector<tail> tails_;  // by buffer
  std::vector<buffer> spare_;
  std::vector<std::unique_ptr<entry[]>> blocks_;  // the chunk pool
  std::uint32_t chunks_used_ = 0;
  mutable std::vector<term::summand> items_;
};

static_assert(value_domain<symbolic_domain>);

}  // namespace gpueq::exec
