// What the race context finds, and how it is printed. A race names one address, the two accesses
// (thread, instruction, segment, the last CTA barrier each thread registered on before it) and
// whether it is a benign WAW (both writes store the same value). Races are grouped by
// (instruction pair, kind) because that is what a user fixes: one missing barrier between two
// source lines typically races on thousands of addresses and threads. Barrier diagnostics follow
// WEFT's taxonomy as far as the observer's events show it (deadlock is the scheduler's: it knows
// who is stuck). Kept apart from the context so that tools can print reports without the
// context's shadow-memory machinery, and so that printing needs no exec-engine internals: source
// positions come in as a span (or a callback) indexed by instruction.
#pragma once

#include <gpueq/exec/observer.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpueq::race {

enum class race_kind : std::uint8_t { raw, war, waw };

inline std::string_view name(race_kind k) {
  constexpr std::string_view names[] = {"RAW", "WAR", "WAW"};
  return names[static_cast<std::size_t>(k)];
}

// A generation of a barrier; generation 0 means "none" (the start of the kernel).
struct barrier_mark {
  exec::barrier_key key;
  std::uint32_t generation = 0;
  friend bool operator==(const barrier_mark&, const barrier_mark&) = default;
};

// One side of a race.
struct race_access {
  std::uint32_t thread = 0;
  std::uint32_t instruction = 0;
  // Barrier operations (CTA and warp) the thread had executed before the access: accesses of
  // one segment share their ordering with every other thread.
  std::uint32_t segment = 0;
  exec::access_kind kind = exec::access_kind::read;
  // The last CTA/named barrier the thread registered on before the access (warp collectives are
  // not listed: users place CTA barriers, and warp syncs would crowd the history).
  barrier_mark after;
  // The access is the async proxy's (a TMA or bulk copy that `thread` issued at `instruction`, or
  // a cp.async landing through cp.async.mbarrier.arrive). Its segment and `after` are its agent's
  // and mean nothing to a user: reports name the copy and `completion` instead.
  bool async_proxy = false;
  // An async-proxy access: the generation that orders the copy's accesses before others, which
  // its agent registered on right after them: an mbarrier phase (a load's complete_tx, a cp.async
  // arrive-on) or the thread's bulk group (`async_done`, acquired by cp.async.bulk.wait_group).
  // Generation 0: not known (the run stopped before the copy completed).
  barrier_mark completion = {};
  friend bool operator==(const race_access&, const race_access&) = default;
};

struct race {
  race_kind kind = race_kind::raw;
  std::uint32_t region = 0;   // index into run_info::regions
  std::uint64_t offset = 0;   // the lowest byte both accesses touch
  std::uint64_t element = 0;  // offset / element_bytes of the region
  race_access first;          // the access the run executed first
  race_access second;
  // WAW of two plain writes of equal width that store the same value at the same place (the
  // same term, or the same bits: exec::value_identity, exact): still a race (another schedule
  // may interleave differently), but it cannot change memory.
  bool benign = false;
  // The second access is the async proxy's read of shared memory (a TMA store's source) and the
  // first a generic write that its issuing thread knew of at the issue but no fence.proxy.async
  // made visible to the async proxy: the fix is the proxy fence, not a barrier.
  bool missing_proxy_fence = false;
  friend bool operator==(const race&, const race&) = default;
};

// Races with the same (first instruction, second instruction, kind): one example and a count of
// racing access pairs (pairs are counted once per access, however many bytes they share).
struct race_group {
  race example;
  std::uint64_t count = 0;
  // Every counted pair was benign: one harmful pair makes the group harmful.
  bool all_benign = true;
};

enum class barrier_problem : std::uint8_t {
  // A thread registered on generation g >= 2 of a CTA barrier without happening after the
  // completion of generation g-1: which registrations form which generation then depends on the
  // schedule, so one run proves nothing (WEFT §4.2). An error.
  unsafe_recycling,
  // Registrants of one generation named different thread counts (WEFT rule 9). An error.
  count_mismatch,
  // A generation completed with arrivals only (bar.arrive / barrier.arrive): nobody waited, so it
  // orders nothing, and the handshake it stands for is missing its consumer (a named barrier
  // needs at least one bar.sync per generation). An error, as WEFT classifies it (ALL_ARRIVALS).
  all_arrive,
  // Strict mode (options::strict_barriers, CUDA's rule for __syncthreads): a generation of a
  // barrier that waits for the whole CTA (no thread count) that some threads of the CTA never
  // reached (they exited first), or that its threads reached at different barrier instructions
  // (a divergent branch). PTX releases such a barrier when the exited threads are the only ones
  // missing, so without strict mode it is no error. An error.
  divergence,
};

inline std::string_view name(barrier_problem p) {
  constexpr std::string_view names[] = {"unsafe recycling", "count mismatch", "all-arrive generation",
                                        "barrier divergence"};
  return names[static_cast<std::size_t>(p)];
}

// Threads that did one thing at one instruction (registered on a barrier there, or exited
// there), as ascending ranges of linear thread ids.
struct thread_group {
  // The instruction; exec::no_instruction for threads that ran past the kernel's last one.
  std::uint32_t instruction = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // [first, last]
  std::uint32_t threads = 0;
  // Adds thread t, which is larger than every thread added before.
  void add(std::uint32_t t) {
    if (!ranges.empty() && ranges.back().second + 1 == t) ranges.back().second = t;
    else ranges.push_back({t, t});
    ++threads;
  }
  friend bool operator==(const thread_group&, const thread_group&) = default;
};

// Registrations grouped by instruction, in order of each instruction's first registration.
inline std::vector<thread_group> by_instruction(std::span<const exec::barrier_registration> regs) {
  std::vector<std::uint32_t> order;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sorted;  // (instruction, thread)
  sorted.reserve(regs.size());
  for (const auto& r : regs) {
    if (std::find(order.begin(), order.end(), r.instruction) == order.end()) order.push_back(r.instruction);
    sorted.push_back({r.instruction, r.thread});
  }
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<thread_group> groups;
  for (std::uint32_t i : order) {
    thread_group g;
    g.instruction = i;
    for (auto it = std::lower_bound(sorted.begin(), sorted.end(), std::pair{i, 0u}); it != sorted.end() && it->first == i; ++it)
      g.add(it->second);
    groups.push_back(std::move(g));
  }
  return groups;
}

struct barrier_diagnostic {
  barrier_problem problem = barrier_problem::unsafe_recycling;
  barrier_mark where;               // the barrier and the generation concerned
  // The first offending registrant (all-arrive: the first arriver; divergence: the first thread
  // that did not register at the barrier instruction below, having exited or registered elsewhere).
  std::uint32_t thread = 0;
  // Its barrier instruction (divergence: the instruction the generation's first registrant
  // waited at).
  std::uint32_t instruction = 0;
  std::uint32_t count = 1;          // offending registrations of this generation (all-arrive, divergence: all of them)
  std::uint32_t expected = 0;       // count mismatch: the count the first registrant named
  std::uint32_t found = 0;          // count mismatch: the differing count
  std::uint32_t known_generation = 0;  // unsafe recycling: the last generation the thread knew done
  // All-arrive: the arrivals, by arrive instruction. Divergence: the registrations, by barrier
  // instruction. In order of the instructions' first registration.
  std::vector<thread_group> arrived;
  // Divergence: the threads of the CTA that never registered on the generation, by the
  // instruction at which they exited.
  std::vector<thread_group> missing;
  // Every problem is an error today; the severity stays in reports (JSON, SARIF) for warnings to
  // come.
  bool is_error() const { return true; }
};

struct report {
  std::vector<race_group> races;  // in order of first detection
  std::uint64_t race_count = 0;   // racing access pairs, listed in a group or not
  std::uint64_t unlisted_races = 0;  // pairs whose group did not fit under the cap
  std::uint64_t unlisted_groups = 0;  // first sightings of groups that did not fit
  std::vector<barrier_diagnostic> barriers;  // one per (problem, barrier, generation)
  std::uint64_t unlisted_barrier_errors = 0;    // diagnostics past the cap, by severity
  std::uint64_t unlisted_barrier_warnings = 0;  // (none today: every problem is an error)

  bool race_free() const { return race_count == 0; }
  // Without errors a single run stands for every schedule's synchronization (deadlock aside).
  bool well_synchronized() const {
    for (auto& d : barriers)
      if (d.is_error()) return false;
    return unlisted_barrier_errors == 0;
  }
  bool clean() const { return race_free() && well_synchronized(); }
  // There are races and every one is a benign same-value WAW (a race past the group cap is not
  // known to be benign): what check_options::allow_benign tolerates.
  bool only_benign_races() const {
    if (race_free() || unlisted_races != 0) return false;
    for (auto& g : races)
      if (!g.all_benign) return false;
    return true;
  }
};

// Where an instruction came from, for messages. Zero lines and an empty file mean unknown.
struct source_line {
  std::uint32_t ptx_line = 0;
  std::string cuda_file;
  std::uint32_t cuda_line = 0;
  // The instruction's opcode as PTX spells it ("cp.async.bulk.tensor"; empty if unknown): names
  // the copy of an async-proxy access.
  std::string_view opcode = {};
};

using source_lookup = std::function<source_line(std::uint32_t instruction)>;

namespace detail {

inline std::string where(std::uint32_t instruction, const source_lookup& lookup) {
  if (instruction == exec::no_instruction) return "the end of the kernel";
  std::string s = "instruction " + std::to_string(instruction);
  if (!lookup) return s;
  source_line l = lookup(instruction);
  if (l.ptx_line != 0) s = "PTX line " + std::to_string(l.ptx_line);
  if (l.cuda_line != 0)
    s += " (" + (l.cuda_file.empty() ? std::string("line ") : l.cuda_file + ":") + std::to_string(l.cuda_line) +
         ")";
  return s;
}

inline std::string address(const race& r, const exec::run_info& info) {
  if (r.region >= info.regions.size()) return "region " + std::to_string(r.region) + " byte " + std::to_string(r.offset);
  const auto& reg = info.regions[r.region];
  return std::string(exec::name(reg.space)) + " " + exec::place_name(reg, r.offset);
}

// The opcode of an access's instruction as PTX spells it; empty without a lookup.
inline std::string_view opcode_of(const race_access& a, const source_lookup& lookup) {
  return lookup && a.instruction != exec::no_instruction ? lookup(a.instruction).opcode : std::string_view{};
}

// What an async-proxy access's copy is, from its opcode and the access: "TMA load", "TMA store",
// "bulk copy", "cp.async copy"; "TMA/bulk copy" when the opcode is unknown. A load writes shared
// memory (and reads global), a store reads shared memory (and writes global).
inline std::string copy_name(const race_access& a, exec::memory_space space, const source_lookup& lookup) {
  const std::string_view op = opcode_of(a, lookup);
  const bool to_shared = (space == exec::memory_space::shared) == (a.kind != exec::access_kind::read);
  if (op == "cp.async.bulk.tensor") return to_shared ? "TMA load" : "TMA store";
  if (op == "cp.reduce.async.bulk.tensor") return "TMA reduction";
  if (op == "cp.async.bulk") return to_shared ? "bulk copy to shared memory" : "bulk copy from shared memory";
  if (op == "cp.reduce.async.bulk") return "bulk reduction";
  if (op == "cp.async") return "cp.async copy";
  if (!op.empty()) return std::string(op);
  return "TMA/bulk copy";
}

// "mbarrier full[1] (shared byte 8)" (the array, the index of the 8-byte object, the byte), as the
// engine's messages name an mbarrier; exec::describe for other resources.
inline std::string resource(exec::barrier_key k, const exec::run_info& info) {
  if (!exec::model(k.kind).addressed || (k.id >> 32) >= info.regions.size()) return exec::describe(k);
  const std::uint64_t offset = k.id & 0xffffffffu;
  return std::string(exec::model(k.kind).noun) + " " + info.regions[k.id >> 32].name + "[" + std::to_string(offset / 8) +
         "] (shared byte " + std::to_string(offset) + ")";
}

// An async-proxy access: the copy, where its thread issued it, and what completes it.
inline std::string async_side(const race_access& a, const exec::run_info* info, std::uint32_t region,
                              const source_lookup& lookup) {
  constexpr std::string_view verbs[] = {"read", "write", "atomic"};
  const bool known = info && region < info->regions.size();
  const exec::memory_space space = known ? info->regions[region].space : exec::memory_space::shared;
  std::string s = std::string(verbs[static_cast<std::size_t>(a.kind)]) + " by the async proxy: thread " +
                  std::to_string(a.thread) + "'s " + copy_name(a, space, lookup) + " at " + where(a.instruction, lookup);
  if (a.completion.generation == 0) return s;
  if (a.completion.key.kind == exec::barrier_kind::async_done)
    return s + (opcode_of(a, lookup) == "wgmma.mma_async" ? ", retired by its warp's wgmma.wait_group"
                    : ", retired by the thread's cp.async.bulk.wait_group");
  return s + ", completed on " + (info ? resource(a.completion.key, *info) : exec::describe(a.completion.key)) +
         " generation " + std::to_string(a.completion.generation);
}

inline std::string side(const race_access& a, const source_lookup& lookup, const exec::run_info* info = nullptr,
                        std::uint32_t region = 0) {
  if (a.async_proxy) return async_side(a, info, region, lookup);
  constexpr std::string_view verbs[] = {"read", "write", "atomic"};
  std::string s = std::string(verbs[static_cast<std::size_t>(a.kind)]) + " by thread " + std::to_string(a.thread) +
                  " at " + where(a.instruction, lookup) + ", segment " + std::to_string(a.segment);
  if (a.after.generation == 0)
    s += " (before any CTA barrier)";
  else
    s += " (after " + exec::describe(a.after.key) + " generation " + std::to_string(a.after.generation) + ")";
  return s;
}

// "threads 0..31, 64..95" / "thread 7": at most `shown` ranges, then how many more threads.
inline std::string threads_text(const thread_group& g, std::size_t shown = 4) {
  std::string s = g.threads == 1 ? "thread " : "threads ";
  std::uint32_t listed = 0;
  for (std::size_t i = 0; i < g.ranges.size() && i < shown; ++i) {
    auto [a, b] = g.ranges[i];
    s += (i ? ", " : "") + std::to_string(a) + (a == b ? std::string() : ".." + std::to_string(b));
    listed += b - a + 1;
  }
  if (listed < g.threads) s += " and " + std::to_string(g.threads - listed) + " more";
  return s;
}

// "threads 0..63 at PTX line 40, thread 64 at PTX line 52": each group with its instruction.
inline std::string groups_text(const std::vector<thread_group>& groups, const source_lookup& lookup) {
  std::string s;
  for (std::size_t i = 0; i < groups.size(); ++i)
    s += (i ? ", " : "") + threads_text(groups[i]) + " at " + where(groups[i].instruction, lookup);
  return s;
}

}  // namespace detail

// One race as one line (no trailing newline).
inline std::string format(const race& r, const exec::run_info& info, const source_lookup& lookup = {}) {
  std::string s = std::string(name(r.kind)) + (r.benign ? " race (benign: same value)" : " race") + " on " +
                  detail::address(r, info) + ": " + detail::side(r.first, lookup, &info, r.region) + " vs " +
                  detail::side(r.second, lookup, &info, r.region);
  if (r.missing_proxy_fence)
    s += "; missing proxy fence: the write is ordered before the " +
         std::string(detail::opcode_of(r.second, lookup) == "wgmma.mma_async" ? "operation's" : "copy's") +
         " issue but no fence.proxy.async makes it visible to the async proxy";
  return s;
}

inline std::string format(const barrier_diagnostic& d, const source_lookup& lookup = {}) {
  std::string s = std::string(d.is_error() ? "error: " : "warning: ") + std::string(name(d.problem)) + " on " +
                  exec::describe(d.where.key) + " generation " + std::to_string(d.where.generation) + ": ";
  switch (d.problem) {
    case barrier_problem::unsafe_recycling:
      s += "thread " + std::to_string(d.thread) + " registers at " + detail::where(d.instruction, lookup) +
           " without knowing that generation " + std::to_string(d.where.generation - 1) +
           " completed (it knows generation " + std::to_string(d.known_generation) + ")";
      break;
    case barrier_problem::count_mismatch:
      s += "thread " + std::to_string(d.thread) + " at " + detail::where(d.instruction, lookup) + " expects " +
           std::to_string(d.found) + " threads, the generation was configured for " + std::to_string(d.expected);
      break;
    case barrier_problem::all_arrive:
      s += "completed by arrivals only (" +
           (d.arrived.empty() ? "thread " + std::to_string(d.thread) + " at " + detail::where(d.instruction, lookup)
                              : detail::groups_text(d.arrived, lookup)) +
           "): no thread waited (bar.sync) on it, so it orders nothing";
      return s;
    case barrier_problem::divergence: {
      std::uint32_t arrived = 0;
      for (auto& g : d.arrived) arrived += g.threads;
      s += std::to_string(arrived) + " thread" + (arrived == 1 ? "" : "s");
      if (d.arrived.size() > 1) s += " reached it at different barrier instructions (a divergent branch): ";
      else s += " waited: ";
      s += detail::groups_text(d.arrived, lookup);
      if (!d.missing.empty()) {
        s += "; ";
        for (std::size_t i = 0; i < d.missing.size(); ++i)
          s += (i ? ", " : "") + detail::threads_text(d.missing[i]) + " exited at " +
               detail::where(d.missing[i].instruction, lookup);
        s += " without reaching it";
      }
      s += " (strict mode: every thread of the block must reach each __syncthreads that any thread reaches)";
      return s;
    }
  }
  if (d.count > 1) s += "; " + std::to_string(d.count) + " registrations";
  return s;
}

// The whole report, one line per group and per diagnostic; "race-free" when there is nothing.
inline std::string format(const report& r, const exec::run_info& info, const source_lookup& lookup) {
  std::string s;
  if (r.race_count == 0) {
    s += "race-free\n";
  } else {
    s += std::to_string(r.race_count) + (r.race_count == 1 ? " race" : " races") + " in " +
         std::to_string(r.races.size() + r.unlisted_groups) + " instruction pair" +
         (r.races.size() + r.unlisted_groups == 1 ? "" : "s") + ":\n";
    for (auto& g : r.races) {
      s += "  " + format(g.example, info, lookup);
      if (g.count > 1) s += " [" + std::to_string(g.count) + " pairs" + (g.all_benign ? ", all benign" : "") + "]";
      s += "\n";
    }
    if (r.unlisted_races != 0)
      s += "  ... and " + std::to_string(r.unlisted_races) + " more races in instruction pairs not listed\n";
  }
  for (auto& d : r.barriers) s += format(d, lookup) + "\n";
  if (r.unlisted_barrier_errors + r.unlisted_barrier_warnings != 0)
    s += "... and " + std::to_string(r.unlisted_barrier_errors) + " more barrier errors, " +
         std::to_string(r.unlisted_barrier_warnings) + " more warnings\n";
  return s;
}

inline std::string format(const report& r, const exec::run_info& info, std::span<const source_line> lines) {
  return format(r, info, source_lookup([lines](std::uint32_t i) {
                  return i < lines.size() ? lines[i] : source_line{};
                }));
}

inline std::string format(const report& r, const exec::run_info& info) { return format(r, info, source_lookup{}); }

}  // namespace gpueq::race
