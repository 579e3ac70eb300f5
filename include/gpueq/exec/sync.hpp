// Synchronization resources: the one description of barriers that the engine and the race
// context share (issue 18 item 3). A resource is something threads register on, generation after
// generation, until a generation completes and orders the registrants' earlier work before the
// waiters' later work (WEFT's barrier model, digest §6.3). What differs between the kinds of
// resource is data, written once here per kind (`resource_model`):
//
// - identity: what names one resource (`barrier_key::id`): a CTA barrier id 0..15 (in a cluster
//   run, 16 * (the CTA's rank + 1) + the id: each CTA has its own sixteen), a warp index, an mbarrier
//   by its shared-memory address (region and offset), the cluster barrier (one per cluster: id 0);
// - arrival: how registrations count towards completion (per warp for CTA barriers on sm_70+,
//   every non-exited lane of a member mask for warp syncs; an mbarrier counts arrivals per
//   thread plus transaction bytes);
// - waiting: whether a waiter blocks at the instruction until the generation completes (bar.sync,
//   collectives) or polls and learns completion later (mbarrier.try_wait: the waiter acquires a
//   generation that completed before it looked, so the race context keeps completed clocks);
// - what the race context checks: whether registrants name a count that must agree, whether the
//   identity is recycled (WEFT's recycling check, one clock component per identity), whether
//   registering without waiting exists (a generation nobody waited on is diagnosed), and whether
//   race reports name the resource as the last synchronization before an access.
//
// The engine keeps a resource's open generation in `open_generation` (the registrations so far)
// and decides completion with the model's arrival rule (`arrived`); the race context reads the
// model instead of testing kinds and ids. Adding a kind is a row in GPUEQ_EXEC_SYNC_KINDS, its
// arrival rule if new, and the instructions that register on it (docs/ARCHITECTURE.md,
// "Synchronization").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::exec {

// How registrations count towards a generation's completion.
enum class arrival_rule : std::uint8_t {
  // A warp counts as warp-size threads once all its non-exited threads have registered; a warp
  // still arriving counts its registered threads (PTX bar/barrier on sm_70+). A generation
  // completes at the count the instruction names, or when every live thread of the CTA has
  // registered if it names none.
  per_warp,
  // Every non-exited lane of the member mask has registered (warp-level synchronization).
  lane_mask,
  // Explicit counts: each arrive names how many arrivals it is (default 1) against the count the
  // object was initialized with, and transaction bytes are expected and completed on the side; a
  // phase completes when the pending arrivals and the pending bytes are both zero. A thread that
  // exits counts for nothing (mbarrier).
  counted,
  // The engine completes each generation as it opens it: a one-off ordering between a thread and
  // its async-proxy agent (async_issue, async_done, proxy_fence).
  immediate,
  // Every non-exited thread of the cluster has registered once; a thread that exits no longer
  // holds the generation back (barrier.cluster, exec/semantics/cluster.hpp).
  all_live,
};

// How a waiter learns that a generation completed.
enum class wait_rule : std::uint8_t {
  block,  // it registers and is held at the instruction until the generation completes
  poll,   // it asks, and may ask after the generation completed (acquires a completed generation)
};

// X(enumerator, noun in messages, JSON spelling, arrival, waiting, identities (0: open),
//   named count, recycled, may arrive without waiting, marks segments in race reports,
//   identity is a shared-memory address, proxy fence)
//
// The cluster barrier (barrier.cluster.arrive / barrier.cluster.wait, exec/semantics/cluster.hpp)
// is split like an mbarrier: arrive registers (releasing, unless .relaxed) without waiting, and
// the wait acquires the generation the thread arrived on once it completed (polled), blocking
// until then. One identity per cluster run.
//
// The async proxy (TMA and bulk copies, exec/semantics/bulk_copy.hpp) is one virtual agent per
// issuing thread (run_info::agents); three kinds order it with its thread, each identified by the
// issuing thread's linear id and completed by the engine as soon as it opens (arrival `immediate`):
// - async_issue: at a copy's issue the thread registers without waiting and its agent waiting, so
//   the agent's accesses come after everything the thread did and knew (a load's shared writes);
// - async_done: after a bulk-group copy's accesses the agent registers; the thread's
//   cp.async.bulk.wait_group acquires the generation of the last copy it retires (polled);
// - proxy_fence: fence.proxy.async registers the thread; the agent of a copy that reads shared
//   memory (a TMA store) acquires it, which the race context turns into the thread's view of
//   the generic accesses that proxy fences made visible to the async proxy (race/async_proxy.hpp).
#define GPUEQ_EXEC_SYNC_KINDS(X)                                                                      \
  X(cta, "barrier", "cta", per_warp, block, 16, true, true, true, true, false, false)               \
  X(warp, "warp", "warp", lane_mask, block, 0, false, false, false, false, false, false)            \
  X(mbarrier, "mbarrier", "mbarrier", counted, poll, 0, false, false, false, false, true, false)    \
  X(async_issue, "async issue of thread", "async_issue", immediate, block, 0, false, false, false, false, false, false) \
  X(async_done, "async copies of thread", "async_done", immediate, poll, 0, false, false, false, false, false, false) \
  X(proxy_fence, "proxy fence of thread", "proxy_fence", immediate, poll, 0, false, false, false, false, false, true) \
  X(cluster, "cluster barrier", "cluster", all_live, poll, 1, false, false, false, false, false, false)

enum class barrier_kind : std::uint8_t {
#define GPUEQ_EXEC_SYNC_ENUM(e, ...) e,
  GPUEQ_EXEC_SYNC_KINDS(GPUEQ_EXEC_SYNC_ENUM)
#undef GPUEQ_EXEC_SYNC_ENUM
};

struct resource_model {
  std::string_view noun;      // "barrier 3", "warp 1": the noun before the identity in messages
  std::string_view spelling;  // in JSON reports
  arrival_rule arrival = arrival_rule::per_warp;
  wait_rule waiting = wait_rule::block;
  std::uint64_t identities = 0;  // how many per CTA when the ISA fixes it (bar: 16); 0 when open
  // Registrants name the count the generation waits for, and all of one generation must name the
  // same (WEFT's count check; the engine stops on a mismatch, the race context diagnoses it).
  bool named_count = false;
  // One identity serves generation after generation, and threads may register on it while others
  // are still on an earlier generation: WEFT's recycling check applies, and the race context keeps
  // a clock component per identity with the last generation a thread knows complete.
  bool recycled = false;
  // Threads may register without waiting (bar.arrive): a generation that completes with no waiter
  // orders nothing and is diagnosed.
  bool may_arrive = false;
  // Race reports name the last registration on such a resource before an access ("after barrier
  // 1 generation 2"). Warp syncs are left out: one per shuffle, they would name nothing useful.
  bool marks_segments = false;
  // The identity is a place in shared memory, region << 32 | byte offset (an mbarrier object).
  bool addressed = false;
  // A thread's proxy fence (fence.proxy.async): registering fences the thread's generic accesses
  // and what it knows of others' for the async proxy; its agent acquiring it gets only that view.
  bool proxy_fence = false;
};

inline constexpr resource_model resource_models[] = {
#define GPUEQ_EXEC_SYNC_MODEL(e, noun, spelling, arrival, waiting, ids, named, recycled, arrive, marks, addr, fence) \
  resource_model{noun, spelling, arrival_rule::arrival, wait_rule::waiting, ids, named, recycled, arrive, marks, addr, fence},
    GPUEQ_EXEC_SYNC_KINDS(GPUEQ_EXEC_SYNC_MODEL)
#undef GPUEQ_EXEC_SYNC_MODEL
};
inline constexpr std::size_t barrier_kind_count = std::size(resource_models);

constexpr const resource_model& model(barrier_kind k) { return resource_models[static_cast<std::size_t>(k)]; }

// The table's own consistency, checked where it is written.
consteval bool sync_models_consistent() {
  for (const resource_model& m : resource_models) {
    if (m.noun.empty() || m.spelling.empty()) return false;
    if (m.may_arrive && m.waiting != wait_rule::block) return false;  // arrivals are for generations waiters block on
    if (m.named_count && m.arrival != arrival_rule::per_warp) return false;  // a mask or an init is the count
    if (m.addressed && m.identities != 0) return false;  // addresses are open
  }
  return true;
}
static_assert(sync_models_consistent(), "GPUEQ_EXEC_SYNC_KINDS: a row contradicts itself");

// One resource: its kind and its identity within the CTA (a barrier id, a warp index, an
// mbarrier's shared-memory place as region << 32 | offset).
struct barrier_key {
  barrier_kind kind = barrier_kind::cta;
  std::uint64_t id = 0;
  friend bool operator==(const barrier_key&, const barrier_key&) = default;
  friend auto operator<=>(const barrier_key&, const barrier_key&) = default;
};

struct barrier_key_hash {
  std::size_t operator()(const barrier_key& k) const noexcept {
    std::uint64_t h = k.id * 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(k.kind);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// "barrier 3", "warp 1", "mbarrier at shared region 2 byte 16": how reports name a resource (the
// engine's own messages name an addressed one by its array, see engine::resource_name).
inline std::string describe(barrier_key k) {
  const resource_model& m = model(k.kind);
  if (k.kind == barrier_kind::cta && k.id >= m.identities)  // a cluster run: 16 * (CTA rank + 1) + id
    return "barrier " + std::to_string(k.id % m.identities) + " of cluster CTA rank " +
           std::to_string(k.id / m.identities - 1);
  if (m.addressed)
    return std::string(m.noun) + " at shared region " + std::to_string(k.id >> 32) + " byte " +
           std::to_string(k.id & 0xffffffffu);
  return std::string(m.noun) + " " + std::to_string(k.id);
}

struct barrier_registration {
  std::uint32_t thread = 0;
  bool waits = true;  // false for bar.arrive
  std::uint32_t instruction = 0;
};

// A completed generation of a barrier.
struct barrier_instance {
  barrier_key key;
  std::uint32_t generation = 1;  // 1-based, per key
  std::uint32_t expected = 0;    // threads it waited for
  std::span<const barrier_registration> participants;  // in registration order
};

// The engine's state of one resource between completions: the generation threads register on
// now and its registrations so far.
struct open_generation {
  std::uint32_t generation = 1;
  std::uint32_t expected = 0;    // the count registrants name; with all = true: every live thread
  bool all = false;              // (per_warp) no count named: the generation waits for every live thread
  std::uint32_t started_by = 0;  // instruction that opened this generation (for messages)
  std::vector<barrier_registration> regs;

  bool open() const { return !regs.empty(); }
  // "3 registered, 64 expected" / "all live threads expected".
  std::string progress() const {
    return std::to_string(regs.size()) + " registered, " +
           (all ? std::string("all live threads") : std::to_string(expected)) + " expected";
  }
};

// The per-warp arrival rule (arrival_rule::per_warp) over a generation's registrations: how many
// threads have arrived. `exited(t)` says whether thread t has exited, `live_in_warp(w)` how many
// threads of warp w have not. A registrant that exited since (after bar.arrive) still counts.
template <class Exited, class LiveInWarp>
std::uint32_t arrived_per_warp(const open_generation& g, std::uint32_t warps, std::uint32_t warp_size,
                               Exited exited, LiveInWarp live_in_warp) {
  // (On the stack for a CTA of up to 64 warps: no allocation per registration.)
  std::uint32_t on_stack[2 * 64];
  std::vector<std::uint32_t> on_heap;
  std::uint32_t* counts = on_stack;
  if (warps > 64) {
    on_heap.resize(2 * std::size_t{warps});
    counts = on_heap.data();
  }
  std::fill(counts, counts + 2 * std::size_t{warps}, 0u);
  std::uint32_t* per_warp = counts;
  std::uint32_t* live_registered = counts + warps;
  for (const barrier_registration& r : g.regs) {
    ++per_warp[r.thread / warp_size];
    live_registered[r.thread / warp_size] += !exited(r.thread);
  }
  std::uint32_t arrived = 0;
  for (std::uint32_t w = 0; w < warps; ++w) {
    if (!per_warp[w]) continue;
    arrived += live_registered[w] == live_in_warp(w) ? warp_size : per_warp[w];
  }
  return arrived;
}

// The resources of one CTA with an open generation or a generation count past the first: keyed
// by barrier_key, iterated in key order so that messages do not depend on hashing.
class sync_table {
 public:
  open_generation& at(barrier_key k) {
    // (A registration looks its resource up, and try_complete again: the last one first.)
    if (last_ < keys_.size() && keys_[last_] == k) return states_[last_];
    auto it = std::lower_bound(keys_.begin(), keys_.end(), k);
    auto i = static_cast<std::size_t>(it - keys_.begin());
    if (it == keys_.end() || *it != k) {
      keys_.insert(it, k);
      states_.insert(states_.begin() + static_cast<std::ptrdiff_t>(i), open_generation{});
    }
    last_ = i;
    return states_[i];
  }
  void clear() {
    keys_.clear();
    states_.clear();
    last_ = 0;
  }
  // f(key, state) for every resource whose current generation has registrations, in key order.
  // f may complete the generation (empty its registrations) but not add resources.
  template <class F>
  void for_each_open(F f) {
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (states_[i].open()) f(keys_[i], states_[i]);
  }

 private:
  std::vector<barrier_key> keys_;  // sorted; a CTA has few resources (16 barriers, a ring's mbarriers)
  std::vector<open_generation> states_;
  std::size_t last_ = 0;  // the entry at() returned last
};

}  // namespace gpueq::exec
