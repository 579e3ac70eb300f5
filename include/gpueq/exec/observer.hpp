// The events the execution engine reports while it runs one CTA: every shared/global memory
// access, every barrier registration and completed barrier instance (CTA barriers, named
// barriers, warp-level synchronization and mbarriers alike), a poller's acquisition of a
// completed mbarrier phase, and thread exits. The race context
// (gpueq/race/) is an observer; so are the tests' recorders. The engine is a template over its
// observer, so a run without one (the null observer) pays nothing for the hooks.
//
// Barrier model (WEFT, digest §6.3): a barrier key names a barrier resource; each resource goes
// through generations 1, 2, ...; a thread registers on the current generation either waiting
// (bar.sync, and every warp collective) or not (bar.arrive); when the expected number of threads
// has registered, the generation completes: every registrant's earlier accesses happen before
// every *waiting* registrant's later ones. Arrivers learn nothing.
#pragma once

#include <gpueq/exec/sync.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpueq::exec {

enum class memory_space : std::uint8_t { global, shared, local, constant, param };

inline std::string_view name(memory_space s) {
  constexpr std::string_view names[] = {"global", "shared", "local", "const", "param"};
  return names[static_cast<std::size_t>(s)];
}

enum class access_kind : std::uint8_t { read, write, atomic };

// The operation of an atomic access. add, min, max and the bitwise ones commute: atomics of one
// of them from different CTAs give the same memory in any order. exch, cas, inc and dec (which
// wraps) do not: `other`.
enum class atomic_op : std::uint8_t { none, add, min, max, and_, or_, xor_, other };

// What a write stored, exactly, so that two writes are known to store the same value (a benign
// WAW race) only when they do: the same term in a symbolic run, the same bits in a concrete one.
// `id` is the whole identity, never a hash: the bytes themselves (`bits`, little-endian, at most
// 8), a domain value's exact identity (`real`: a term id, a double's bits), or a run-local number
// the engine gives each distinct sequence of element identities (`sequence`: vectors and packed
// halves). `unknown` never equals anything, itself included.
struct value_identity {
  enum class kind : std::uint8_t { unknown, bits, real, sequence };
  kind k = kind::unknown;
  std::uint64_t id = 0;
  bool known() const { return k != kind::unknown; }
  // Both known and equal: the same value.
  friend bool same_value(const value_identity& a, const value_identity& b) {
    return a.known() && a.k == b.k && a.id == b.id;
  }
};

// Numbers the distinct sequences of element identities of one run (value_identity::sequence):
// a vector store or a packed pair stores the same value as another exactly when its elements
// are the same values. A sequence of one element is that element; one unknown element makes
// the sequence unknown.
class identity_sequences {
 public:
  value_identity of(std::span<const value_identity> elements) {
    if (elements.size() == 1) return elements[0];
    key_.clear();
    for (const value_identity& e : elements) {
      if (!e.known()) return {};
      key_.push_back(static_cast<std::uint64_t>(e.k));
      key_.push_back(e.id);
    }
    auto [it, fresh] = numbers_.try_emplace(key_, numbers_.size());
    return {value_identity::kind::sequence, it->second};
  }

 private:
  // The key is (kind, id) word pairs, hashed a word at a time (a vector store, an mma's packed
  // outputs: hashing them as a byte string was 6 % of a tensor-core kernel's run).
  struct words_hash {
    std::size_t operator()(const std::vector<std::uint64_t>& w) const noexcept {
      std::uint64_t h = w.size();
      for (std::uint64_t x : w) h = (h ^ x) * 0x9e3779b97f4a7c15ULL + (h >> 29);
      return static_cast<std::size_t>(h);
    }
  };
  std::vector<std::uint64_t> key_;
  boost::unordered_flat_map<std::vector<std::uint64_t>, std::uint64_t, words_hash> numbers_;
};

// A memory region: a tensor bound to a kernel parameter (global), a shared array (static or the
// dynamic one), a thread's local depot. Element size is for naming addresses as name[index]:
// a tensor's dtype, a typed array's PTX type; 1 for an array declared as bytes (`.b8`, the dynamic
// shared array), which reports name by byte offset (byte_indexed: "buf[byte 12]").
struct region_desc {
  memory_space space = memory_space::global;
  std::string name;
  std::uint32_t element_bytes = 4;
  std::uint64_t bytes = 0;
  // A tensor the launch binds as an input only: the kernel is expected only to read it (the race
  // context may then leave its reads unrecorded until something writes it).
  bool input_only = false;
  // Declared as bytes: element_bytes is 1 and an address is named by its byte offset.
  bool byte_indexed = false;
};

// How reports name byte `offset` of a region: "name[12]", "name[12] (byte 2 of it)" for a byte
// inside an element, "name[byte 48]" for an array declared as bytes.
inline std::string place_name(const region_desc& r, std::uint64_t offset) {
  const std::string name = r.name.empty() ? std::string("?") : r.name;
  if (r.byte_indexed) return name + "[byte " + std::to_string(offset) + "]";
  const std::uint64_t eb = r.element_bytes == 0 ? 1 : r.element_bytes;
  std::string s = name + "[" + std::to_string(offset / eb) + "]";
  if (offset % eb != 0) s += " (byte " + std::to_string(offset % eb) + " of it)";
  return s;
}

// What the observer is told before the first event.
struct run_info {
  std::uint32_t threads = 0;  // threads of the CTA, numbered by linear thread id
  std::uint32_t warp_size = 32;
  std::vector<region_desc> regions;
  // Virtual agents past the threads: agent threads + t is thread t's async proxy (its TMA and bulk
  // copies' accesses and mbarrier completions, exec/semantics/bulk_copy.hpp). 0 when the kernel
  // has no async-proxy instruction, else `threads`.
  std::uint32_t agents = 0;
};

struct access {
  std::uint32_t thread = 0;
  std::uint32_t region = 0;  // index into run_info::regions
  std::uint64_t offset = 0;  // byte offset in the region
  std::uint32_t width = 0;   // bytes
  access_kind kind = access_kind::read;
  std::uint32_t instruction = 0;  // index into the kernel's ptx::function::instructions
  // Writes: the value written (value_identity). Two writes of one width at one address whose
  // identities are the same value store the same bytes (a benign WAW race).
  value_identity value{};
  // Atomics: the operation, which decides whether atomics of different CTAs commute.
  atomic_op op = atomic_op::none;
  // Writes the async proxy sees without a proxy fence once they are ordered before its read: a
  // landed cp.async (non-bulk) copy (semantic choice, exec/semantics/async_copy.hpp).
  bool async_visible = false;
};

// Barrier kinds, keys, registrations and completed instances: exec/sync.hpp.

// An instruction index that names none: where a thread that ran past the kernel's last
// instruction exited (on_exit).
inline constexpr std::uint32_t no_instruction = 0xffffffffu;

// The observer concept, spelled out by the null observer: every hook is optional in spirit but
// present in the type, so the engine calls them unconditionally.
struct null_observer {
  void on_start(const run_info&) {}
  void on_access(const access&) {}
  // Thread registers on `generation` of `key`; `expected` is the count the instruction names
  // (0 when it names none and the barrier waits for all live threads of the CTA/warp mask).
  void on_barrier_register(const barrier_registration&, barrier_key, std::uint32_t /*generation*/,
                           std::uint32_t /*expected*/) {}
  void on_barrier_complete(const barrier_instance&) {}
  // A waiter of a polled resource (wait_rule::poll, exec/sync.hpp: mbarrier.test_wait/try_wait)
  // observed that `generation` of `key` completed, possibly long after it did: it acquires what
  // the generation's registrants released. (Waiters of blocking resources register instead.)
  void on_barrier_acquire(const barrier_registration&, barrier_key, std::uint32_t /*generation*/) {}
  // A thread exited at `instruction` (its ret or exit; no_instruction when it ran past the end).
  void on_exit(std::uint32_t /*thread*/, std::uint32_t /*instruction*/) {}
};

template <class O>
concept observer = requires(O o, const run_info& ri, const access& a, const barrier_registration& r,
                            const barrier_instance& bi) {
  o.on_start(ri);
  o.on_access(a);
  o.on_barrier_register(r, barrier_key{}, std::uint32_t{}, std::uint32_t{});
  o.on_barrier_complete(bi);
  o.on_barrier_acquire(r, barrier_key{}, std::uint32_t{});
  o.on_exit(std::uint32_t{}, std::uint32_t{});
};

static_assert(observer<null_observer>);

}  // namespace gpueq::exec
