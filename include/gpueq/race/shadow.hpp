// The race context's shadow state (race/context.hpp): epochs, the per-word access slots and
// their epoch sets, the clock slots, barrier joins waiting for their instance, the history of
// recycled resources, and the keys of the hash maps that hold them. Plain data and hashes; what
// they mean and how they change is the context's.
#pragma once

#include <gpueq/exec/observer.hpp>
#include <gpueq/race/report.hpp>
#include <gpueq/support/hash.hpp>

#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpueq::race {

namespace detail {

inline constexpr std::uint32_t none = 0xffffffffu;
inline constexpr std::uint32_t fresh = 0xfffffffeu;  // word::bytes of a dense word no access touched yet

struct epoch {
  std::uint32_t thread = none;
  std::uint32_t segment = 0;
  std::uint32_t instruction = 0;
};

// The last write of a byte, with what it stored there: the write's exact value identity, its
// width and where in the write this byte (or word) sits, so that a later write of the same value
// at the same place is known to store the same bytes (exec::value_identity).
// Packed into 24 bytes, as small as the hashed identity it replaced: one per shadow byte.
struct write_epoch {
  std::uint32_t thread = none;
  std::uint32_t segment = 0;
  std::uint32_t instruction = 0;
  std::uint8_t width = 0;  // writes are at most 128 bytes
  std::uint8_t at = 0;     // the byte's offset within the write
  bool async_visible = false;  // exec::access::async_visible
  exec::value_identity::kind value_kind = exec::value_identity::kind::unknown;
  std::uint64_t value_id = 0;
  exec::value_identity value() const { return {value_kind, value_id}; }
  // Whether a write of `v`, `width` bytes wide with this byte at `at`, stores what this one did.
  bool same_store(const exec::value_identity& v, std::uint32_t w, std::uint32_t a) const {
    return same_value(value(), v) && width == w && at == a;
  }
};
static_assert(sizeof(write_epoch) == 24);

// Unordered accesses of one kind to one byte, at most one per thread (a thread's later access
// supersedes its earlier one: program order).
// Kept as a vector sorted by thread: the readers of a word in one segment are typically a warp's
// or a block's threads, met in increasing order by the round-robin schedule, so a new entry is
// mostly appended (a hash map per word cost more than the whole check).
struct epoch_set {
  std::vector<epoch> by_thread;
  // The serial of a clock under which every entry is known finished: threads holding that clock
  // (after a CTA barrier, all of them) skip the scan.
  std::uint64_t ordered_under = 0;
  void put(std::uint32_t thread, std::uint32_t segment, std::uint32_t instruction) {
    if (by_thread.empty() || by_thread.back().thread < thread) {
      by_thread.push_back({thread, segment, instruction});
      return;
    }
    auto it = std::lower_bound(by_thread.begin(), by_thread.end(), thread,
                               [](const epoch& e, std::uint32_t t) { return e.thread < t; });
    if (it != by_thread.end() && it->thread == thread) *it = {thread, segment, instruction};
    else by_thread.insert(it, {thread, segment, instruction});
  }
};

// FastTrack's adaptive representation: one epoch while the accesses are totally ordered, a set
// (index into the context's pool) once two are concurrent.
struct access_slot {
  epoch one;
  std::uint32_t set = none;
};

struct cell {
  write_epoch write;
  access_slot reads;
  access_slot atomics;
};

struct word {
  cell whole;                 // the state of all four bytes while they share it
  std::uint32_t bytes = none;  // index into the split pool once a partial access divides them
                               // (`fresh`: a dense word not yet touched in this run)
};

inline constexpr word fresh_word{{}, fresh};

struct word_key {
  std::uint64_t word = 0;  // byte offset / 4
  std::uint32_t region = 0;
  friend bool operator==(const word_key&, const word_key&) = default;
};

struct word_key_hash {
  std::size_t operator()(const word_key& k) const noexcept {
    return static_cast<std::size_t>(support::hash_combine(k.word, k.region));
  }
};

struct group_key {
  std::uint32_t first = 0, second = 0;
  race_kind kind = race_kind::raw;
  friend bool operator==(const group_key&, const group_key&) = default;
};

struct group_key_hash {
  std::size_t operator()(const group_key& k) const noexcept {
    return static_cast<std::size_t>(support::hash_combine(
        support::hash_combine(k.first, k.second), static_cast<std::uint64_t>(k.kind)));
  }
};

struct clock_slot {
  // Threads, then one component per recycled resource in order of first use; a clock made before
  // a resource was first used is shorter, and its missing components are 0.
  std::vector<std::uint32_t> v;
  std::uint32_t refs = 0;        // threads holding it (0 while it is a pending join)
  std::uint64_t serial = 0;      // unique over the run; slots are reused, serials never
};

// One generation of one barrier while its registrants arrive.
struct pending_join {
  std::uint32_t slot = none;                          // the clock being joined
  boost::unordered_flat_set<std::uint64_t> joined;   // serials of the clocks already in it
  std::uint32_t registrants = 0;
  std::uint32_t expected = 0;  // resources with a named count: the count the first registrant named
  bool all = false;            // resources with a named count: the first registrant named none (the whole CTA)
};

struct history_entry {
  std::uint32_t segment;  // the segment this registration opened
  exec::barrier_key key;
  std::uint32_t generation;
};

// into = max(into, from) component-wise; `from` may be shorter (a clock made before a resource's
// component existed), never longer.
inline void join_into(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& from) {
  for (std::size_t k = 0; k < from.size(); ++k) into[k] = std::max(into[k], from[k]);
}

// One generation of one resource.
struct instance_key {
  exec::barrier_key key;
  std::uint32_t generation = 0;
  friend bool operator==(const instance_key&, const instance_key&) = default;
};
struct instance_key_hash {
  std::size_t operator()(const instance_key& k) const noexcept {
    return static_cast<std::size_t>(support::hash_combine(exec::barrier_key_hash{}(k.key), k.generation));
  }
};
struct diagnostic_key_hash {
  std::size_t operator()(const std::pair<instance_key, barrier_problem>& k) const noexcept {
    return static_cast<std::size_t>(
        support::hash_combine(instance_key_hash{}(k.first), static_cast<std::uint64_t>(k.second)));
  }
};

// A recycled resource (exec::resource_model::recycled): its clock component and the last of its
// generations that completed with nobody waiting.
struct recycled_resource {
  std::uint32_t component = 0;
  std::uint32_t all_arrive_generation = 0;
};

}  // namespace detail

}  // namespace gpueq::race
