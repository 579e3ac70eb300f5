// The race context: an execution-engine observer (gpueq/exec/observer.hpp) that decides, from one
// run of a CTA, whether any two accesses to the same shared or global byte, at least one a write,
// are unordered by happens-before, and whether the run's barrier matching holds for every
// schedule (WEFT's recycling check, count mismatches, generations completed by arrivals only; in
// strict mode also CUDA's rule that every thread reaches each __syncthreads). Race-free and well-synchronized, the run stands for all
// schedules (VOLTA's confluence), which is what makes an equivalence verdict mean something.
//
// Happens-before lives at barrier-instance granularity (digest §6.3): a thread's accesses between
// two barrier operations form a segment; a thread holds the clock of the last instance it waited
// on; a completed instance makes one new clock, the join of the *distinct* clocks its
// participants held when they registered plus each participant's finished segments, and only
// its waiting participants acquire it (arrivers publish, learn nothing). A barrier therefore costs
// in its participants and their distinct clocks, never in the size of memory: there is no
// per-address thread set for a barrier to sweep. Clock components past the threads carry, per
// recycled synchronization resource (exec/sync.hpp's `recycled`: the sixteen CTA barriers), the
// last generation known complete: the recycling check reads them. What is checked for which
// resource comes from its model (exec::model(kind)), never from testing kinds and ids here.
//
// Per-address state is FastTrack's (last write, reads since it, at most one per thread, kept as
// one epoch until two unordered readers force a set) at byte granularity, stored per 4-byte word
// and split into bytes only when an access covers part of a word, so that a 16-byte vector write
// and a 4-byte read of one of its words meet, while whole-word accesses (nearly all) pay for one
// state per word. Atomics are a second FastTrack set: ordered against plain reads and writes,
// never against each other. The async proxy's agents and fences: race/async_proxy.hpp.
#pragma once

#include <gpueq/exec/observer.hpp>
#include <gpueq/race/report.hpp>
#include <gpueq/race/shadow.hpp>
#include <gpueq/support/hash.hpp>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpueq::race {

struct options {
  // Legacy pre-Volta semantics: the threads of a warp run in lockstep, so two accesses by threads
  // of one warp never race. Off by default: on Volta and later they may (reduction version 5..7).
  bool warp_synchronous = false;
  std::size_t max_race_groups = 256;          // groups stored with an example; the rest are counted
  std::size_t max_barrier_diagnostics = 256;  // likewise for barrier diagnostics
  // Leave reads of input-only tensors (exec::region_desc::input_only) unrecorded: a race needs a
  // write, and a run that writes none of them has no race on them (a race-free run stands for
  // every schedule, so no other schedule writes them either). Most of a GEMM's accesses are such
  // reads. A write or atomic to one makes the report incomplete (context::incomplete()): reads
  // before it went unrecorded, and the caller runs the CTA again with this off.
  bool skip_input_reads = false;
  // CUDA's rule for __syncthreads instead of PTX's barrier semantics: every thread of the CTA
  // must reach each generation of a barrier that waits for the whole CTA (bar.sync/barrier.sync/
  // bar.red without a thread count) that any thread reaches, at the same instruction. A thread
  // that exits first, or threads that reach it at different barrier instructions (a divergent
  // branch), are a barrier-divergence error (barrier_problem::divergence). Off (PTX): the barrier
  // waits only for threads that have not exited, and the instructions may differ.
  bool strict_barriers = false;
};

class context {
 public:
  explicit context(options o = {}) : options_(o) {}

  void on_start(const exec::run_info& info) {
    info_ = info;
    threads_ = info.threads;
    agents_ = info.agents;
    const std::uint32_t actors = threads_ + agents_;
    warp_size_ = info.warp_size == 0 ? 32 : info.warp_size;
    width_ = actors;
    recycled_.clear();
    completed_.clear();
    checked_.clear();
    element_bytes_.clear();
    input_only_.clear();
    incomplete_ = false;
    for (auto& r : info.regions) {
      checked_.push_back(r.space == exec::memory_space::global || r.space == exec::memory_space::shared);
      element_bytes_.push_back(r.element_bytes == 0 ? 1 : r.element_bytes);
      input_only_.push_back(options_.skip_input_reads && r.input_only);
    }
    clocks_.clear();
    free_clocks_.clear();
    clocks_.push_back({std::vector<std::uint32_t>(width_, 0), actors, 1});  // the initial clock: knows nothing
    next_serial_ = 2;
    acq_.assign(actors, 0);
    seg_.assign(actors, 0);
    history_.assign(actors, {});
    proxy_start();
    exit_at_.assign(threads_, exec::no_instruction);
    shadow_.clear();
    for (auto [region, w] : touched_) dense_[region][w] = detail::fresh_word;
    touched_.clear();
    dense_.resize(info.regions.size());
    for (std::size_t r = 0; r < info.regions.size(); ++r) {
      // Shared memory is small and densely used (a GEMM tile is read by every thread between two
      // barriers): its words are an array, found without hashing. Global memory is large and
      // touched sparsely: a hash map.
      std::uint64_t words = info.regions[r].space == exec::memory_space::shared ? (info.regions[r].bytes + 3) / 4 : 0;
      if (words > dense_limit_words) words = 0;
      dense_[r].resize(words, detail::fresh_word);
    }
    split_.clear();
    sets_.clear();
    free_sets_.clear();
    pending_index_.clear();
    pending_.clear();
    free_pending_.clear();
    groups_.clear();
    diagnostic_index_.clear();
    seen_.clear();
    result_ = {};
  }

  void on_access(const exec::access& a) {
    check_thread(a.thread);
    if (a.region >= checked_.size()) throw std::out_of_range("race context: access to unknown region");
    if (input_only_[a.region]) {
      if (a.kind == exec::access_kind::read) return;
      incomplete_ = true;  // its earlier reads went unrecorded: this run's report may miss races
    }
    if (!checked_[a.region] || a.width == 0) return;
    self_ = a.thread;
    now_ = clocks_[acq_[self_]].v.data();
    now_serial_ = clocks_[acq_[self_]].serial;
    current_ = &a;
    const std::uint64_t end = a.offset + a.width;
    for (std::uint64_t w = a.offset >> 2; w <= (end - 1) >> 2; ++w) {
      const std::uint64_t base = w << 2;
      const std::uint64_t lo = base < a.offset ? a.offset - base : 0;
      const std::uint64_t hi = std::min<std::uint64_t>(end - base, 4);
      detail::word& ws = word_at(a.region, w);
      if (ws.bytes == detail::none && lo == 0 && hi == 4) {
        visit(ws.whole, base);
        continue;
      }
      if (ws.bytes == detail::none) split(ws);
      for (std::uint64_t b = lo; b < hi; ++b) visit(split_[ws.bytes][b], base + b);
    }
    if (!seen_.empty()) seen_.clear();
  }

  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key key, std::uint32_t generation,
                           std::uint32_t expected) {
    check_thread(r.thread);
    auto& p = pending_[pending_for(key, generation)];
    // What is checked comes from the resource's model: warp syncs name lane masks, which the
    // engine matches itself, lane by lane; CTA barriers name counts and are recycled.
    const exec::resource_model& m = exec::model(key.kind);
    if (m.named_count) {
      const std::uint32_t n = expected == 0 ? threads_ : expected;
      if (p.registrants == 0) {
        p.expected = n;
        p.all = expected == 0;
      } else if (n != p.expected) {
        auto& d = diagnose(barrier_problem::count_mismatch, key, generation, r);
        if (d.count == 1) {
          d.expected = p.expected;
          d.found = n;
        }
      }
    }
    if (m.recycled && generation >= 2) {
      // WEFT's check (Fig. 4) against the thread's state just before it registers. A generation
      // completed by arrivals only was never waited on, so nothing can know of it: WEFT's check is
      // vacuous there, and the all-arrive error already names it.
      const detail::recycled_resource& rr = recycled(key);
      if (rr.all_arrive_generation != generation - 1) {
        const std::uint32_t known = component(clocks_[acq_[r.thread]], rr.component);
        if (known < generation - 1) {
          auto& d = diagnose(barrier_problem::unsafe_recycling, key, generation, r);
          if (d.count == 1) d.known_generation = known;
        }
      }
    }
    join(p, r.thread, key, generation);
    if (m.proxy_fence) note_fence(r.thread);
    if (r.thread >= threads_ && !r.waits) agent_completed(r.thread, key, generation);
  }

  void on_barrier_complete(const exec::barrier_instance& inst) {
    const std::uint32_t pi = pending_for(inst.key, inst.generation);
    // An engine may leave out the registrations of an instance whose participants all wait (a
    // warp collective): blocked since registering, they cannot have moved on, so registering them
    // now is the same. An arriver has moved on: instances with arrivers need their registrations.
    if (pending_[pi].registrants == 0)
      for (auto& r : inst.participants) on_barrier_register(r, inst.key, inst.generation, inst.expected);
    const exec::resource_model& m = exec::model(inst.key.kind);
    detail::recycled_resource* rr = m.recycled ? &recycled(inst.key) : nullptr;
    auto& p = pending_[pi];
    auto& c = clocks_[p.slot];
    if (rr) {
      c.v.resize(width_, 0);
      c.v[rr->component] = std::max(c.v[rr->component], inst.generation);
    }
    std::uint32_t waiters = 0;
    for (auto& r : inst.participants) waiters += r.waits;
    if (m.waiting == exec::wait_rule::poll) {
      // Its waiters come later (on_barrier_acquire): keep the clock for them.
      c.serial = next_serial_++;
      keep_completed(inst.key, inst.generation, p.slot);
    } else if (waiters == 0) {
      if (rr) rr->all_arrive_generation = inst.generation;
      if (!inst.participants.empty() && m.may_arrive) {
        auto& d = diagnose(barrier_problem::all_arrive, inst.key, inst.generation, inst.participants.front());
        d.count = static_cast<std::uint32_t>(inst.participants.size());
        d.arrived = by_instruction(inst.participants);
      }
      free_clocks_.push_back(p.slot);
    } else {
      c.serial = next_serial_++;
      for (auto& r : inst.participants) {
        if (!r.waits || acq_[r.thread] == p.slot) continue;  // (a thread listed twice)
        if (r.thread >= threads_) agent_issued(r.thread);
        release(acq_[r.thread]);
        acq_[r.thread] = p.slot;
        ++clocks_[p.slot].refs;
      }
    }
    if (options_.strict_barriers && m.named_count && p.all) check_divergence(inst);
    p.slot = detail::none;
    pending_index_.erase(detail::instance_key{inst.key, inst.generation});
    free_pending_.push_back(pi);
  }

  // A poller observed that `generation` of `key` completed: it now knows what the generation's
  // registrants knew. A generation older than the last few kept ones (kept_generations) is
  // acquired as nothing, which can only report more races, never fewer.
  void on_barrier_acquire(const exec::barrier_registration& r, exec::barrier_key key, std::uint32_t generation) {
    check_thread(r.thread);
    if (exec::model(key.kind).proxy_fence) return acquire_fenced(r, key, generation);
    auto it = completed_.find(key);
    if (it == completed_.end()) return;
    for (const auto& [g, slot] : it->second) {
      if (g != generation) continue;
      const std::uint32_t held = acq_[r.thread];
      if (held == slot) return;
      const std::uint32_t n = new_clock();
      auto& v = clocks_[n].v;
      detail::join_into(v, clocks_[held].v);
      detail::join_into(v, clocks_[slot].v);
      clocks_[n].serial = next_serial_++;
      clocks_[n].refs = 1;
      release(held);
      acq_[r.thread] = n;
      return;
    }
  }

  void on_exit(std::uint32_t thread, std::uint32_t instruction) {
    check_thread(thread);
    exit_at_[thread] = instruction;
  }

  const report& result() const { return result_; }
  // What check::run_cta asks of an observer to run a warp-wide run again under round robin.
  bool found_race() const { return !result_.clean(); }
  // With options::skip_input_reads: the run wrote an input-only tensor, so reads of it before
  // went unrecorded and the report may be missing races. Run the CTA again without the option.
  bool incomplete() const { return incomplete_; }
  // Whether reads of region r are left unrecorded in this run.
  bool skips_reads(std::uint32_t region) const { return region < input_only_.size() && input_only_[region]; }
  // The run this context observes (its regions name the addresses of a report).
  const exec::run_info& info() const { return info_; }
  report take_result() { return std::move(result_); }
  const options& settings() const { return options_; }

  // For tests and benchmarks: the footprint is in touched words and live clocks.
  std::size_t shadow_words() const { return shadow_.size() + touched_.size(); }
  std::size_t live_clocks() const { return clocks_.size() - free_clocks_.size(); }

 private:
  void check_thread(std::uint32_t t) const {
    if (t >= threads_ + agents_) throw std::out_of_range("race context: thread " + std::to_string(t) + " out of range");
  }

  // Does the current access's thread know that thread t's segment s is finished?
  bool ordered(std::uint32_t t, std::uint32_t s) const { return t == self_ || now_[t] > s; }
  bool exempt(std::uint32_t t) const { return options_.warp_synchronous && t / warp_size_ == self_ / warp_size_; }

  // --- clocks ---------------------------------------------------------------------------------

  std::uint32_t new_clock() {
    std::uint32_t s;
    if (!free_clocks_.empty()) {
      s = free_clocks_.back();
      free_clocks_.pop_back();
    } else {
      s = static_cast<std::uint32_t>(clocks_.size());
      clocks_.emplace_back();
    }
    clocks_[s].v.assign(width_, 0);
    clocks_[s].refs = 0;
    clocks_[s].serial = 0;
    return s;
  }

  void release(std::uint32_t s) {
    if (--clocks_[s].refs == 0) free_clocks_.push_back(s);
  }

  // A clock's component k (0 past its end: the clock was made before that resource was used).
  static std::uint32_t component(const detail::clock_slot& c, std::uint32_t k) { return k < c.v.size() ? c.v[k] : 0; }

  // The state of a recycled resource; its first use gives it the next clock component.
  detail::recycled_resource& recycled(exec::barrier_key key) {
    auto [it, fresh] = recycled_.try_emplace(key);
    if (fresh) it->second.component = width_++;
    return it->second;
  }

  // A completed generation of a polled resource, kept for its late waiters: the last
  // kept_generations per resource (a parity wait can only name the last completed phase; a wait
  // on an older phase's state is rare).
  static constexpr std::size_t kept_generations = 4;
  // A thread's async_done generations are acquired further back: a wgmma.wait_group N retires
  // operations issued several wgmma.mma_async ago (exec/semantics/wgmma.hpp).
  static constexpr std::size_t kept_done_generations = 64;
  void keep_completed(exec::barrier_key key, std::uint32_t generation, std::uint32_t slot) {
    auto& kept = completed_[key];
    if (kept.size() == (key.kind == exec::barrier_kind::async_done ? kept_done_generations : kept_generations)) {
      release(kept.front().second);
      kept.erase(kept.begin());
    }
    clocks_[slot].refs = 1;
    kept.push_back({generation, slot});
  }

  std::uint32_t pending_for(exec::barrier_key key, std::uint32_t generation) {
    auto [it, fresh] = pending_index_.try_emplace(detail::instance_key{key, generation}, 0u);
    if (!fresh) return it->second;
    std::uint32_t pi;
    if (!free_pending_.empty()) {
      pi = free_pending_.back();
      free_pending_.pop_back();
    } else {
      pi = static_cast<std::uint32_t>(pending_.size());
      pending_.emplace_back();
    }
    auto& p = pending_[pi];
    p.slot = new_clock();
    p.joined.clear();
    p.registrants = 0;
    p.expected = 0;
    it->second = pi;
    return pi;
  }

  // Thread t registers: its finished segments, and everything its clock knows, flow into the
  // instance. Joining each distinct clock once keeps an instance at O(distinct clocks × width).
  void join(detail::pending_join& p, std::uint32_t t, exec::barrier_key key, std::uint32_t generation) {
    const std::uint32_t s = ++seg_[t];
    const auto& held = clocks_[acq_[t]];
    auto& into = clocks_[p.slot].v;
    if (into.size() < width_) into.resize(width_, 0);
    if (p.joined.insert(held.serial).second)
      detail::join_into(into, held.v);
    into[t] = std::max(into[t], s);
    ++p.registrants;
    if (exec::model(key.kind).marks_segments) history_[t].push_back({s, key, generation});
  }

  // --- shadow memory --------------------------------------------------------------------------

  detail::word& word_at(std::uint32_t region, std::uint64_t w) {
    auto& dense = dense_[region];
    if (w < dense.size()) {
      detail::word& ws = dense[w];
      if (ws.bytes == detail::fresh) {
        ws.bytes = detail::none;
        touched_.push_back({region, w});
      }
      return ws;
    }
    return shadow_[detail::word_key{w, region}];
  }

  std::uint32_t new_set() {
    if (!free_sets_.empty()) {
      std::uint32_t i = free_sets_.back();
      free_sets_.pop_back();
      return i;
    }
    sets_.emplace_back();
    return static_cast<std::uint32_t>(sets_.size() - 1);
  }

  void free_set(std::uint32_t& i) {
    if (i == detail::none) return;
    sets_[i].by_thread.clear();
    sets_[i].ordered_under = 0;
    free_sets_.push_back(i);
    i = detail::none;
  }

  void copy_slot(detail::access_slot& s) {
    if (s.set == detail::none) return;
    std::uint32_t c = new_set();
    sets_[c] = sets_[s.set];
    s.set = c;
  }

  void split(detail::word& ws) {
    std::array<detail::cell, 4> bytes;
    for (std::uint8_t i = 0; i < 4; ++i) {
      auto& b = bytes[i];
      b = ws.whole;
      b.write.at = static_cast<std::uint8_t>(b.write.at + i);  // the word's bytes sit one apart in its write
      copy_slot(b.reads);
      copy_slot(b.atomics);
    }
    free_set(ws.whole.reads.set);
    free_set(ws.whole.atomics.set);
    ws.bytes = static_cast<std::uint32_t>(split_.size());
    split_.push_back(bytes);
  }

  // Races of the current access against the earlier accesses in a slot (of kind `earlier`).
  void check_slot(detail::access_slot& s, exec::access_kind earlier, race_kind kind, std::uint64_t byte) {
    if (s.set == detail::none) {
      if (s.one.thread != detail::none && !ordered(s.one.thread, s.one.segment))
        conflict(s.one.thread, s.one.segment, s.one.instruction, earlier, kind, byte, false);
      return;
    }
    auto& set = sets_[s.set];
    if (set.ordered_under == now_serial_) return;
    bool all = true;
    for (const detail::epoch& e : set.by_thread) {
      if (now_[e.thread] > e.segment) continue;
      all = false;
      if (e.thread != self_) conflict(e.thread, e.segment, e.instruction, earlier, kind, byte, false);
    }
    if (all) set.ordered_under = now_serial_;
  }

  // Adds the current access to a slot. Dropping an earlier entry that happens before it loses
  // nothing: whoever is unordered with the dropped one is unordered with this one (FastTrack).
  void add_to_slot(detail::access_slot& s, std::uint32_t segment, std::uint32_t instruction) {
    if (s.set != detail::none) {
      auto& set = sets_[s.set];
      if (set.ordered_under == now_serial_) {  // every entry happens before this access
        free_set(s.set);
      } else {
        set.put(self_, segment, instruction);
        set.ordered_under = 0;
        return;
      }
    }
    if (s.one.thread == detail::none || ordered(s.one.thread, s.one.segment)) {
      s.one = {self_, segment, instruction};
      return;
    }
    std::uint32_t i = new_set();
    sets_[i].put(s.one.thread, s.one.segment, s.one.instruction);
    sets_[i].put(self_, segment, instruction);
    s.one = {};
    s.set = i;
  }

  void visit(detail::cell& c, std::uint64_t byte) {
    const exec::access& a = *current_;
    const std::uint32_t s = seg_[self_];
    const auto& w = c.write;
    const bool prior_write = w.thread != detail::none && !ordered(w.thread, w.segment);
    switch (a.kind) {
      case exec::access_kind::read:
        // A landed cp.async needs no proxy fence before an async-proxy read it is ordered before.
        if (prior_write && !(w.async_visible && missing_fence(w.thread, w.segment)))
          conflict(w.thread, w.segment, w.instruction, exec::access_kind::write, race_kind::raw, byte, false);
        check_slot(c.atomics, exec::access_kind::atomic, race_kind::raw, byte);
        add_to_slot(c.reads, s, a.instruction);
        break;
      case exec::access_kind::write: {
        const std::uint32_t at = static_cast<std::uint32_t>(byte - a.offset);
        if (prior_write)
          conflict(w.thread, w.segment, w.instruction, exec::access_kind::write, race_kind::waw, byte,
                   w.same_store(a.value, a.width, at));
        check_slot(c.reads, exec::access_kind::read, race_kind::war, byte);
        check_slot(c.atomics, exec::access_kind::atomic, race_kind::waw, byte);
        c.write = {self_, s, a.instruction, static_cast<std::uint8_t>(a.width), static_cast<std::uint8_t>(at),
                   a.async_visible, a.value.k, a.value.id};
        free_set(c.reads.set);
        c.reads.one = {};
        free_set(c.atomics.set);
        c.atomics.one = {};
        break;
      }
      case exec::access_kind::atomic:
        if (prior_write) conflict(w.thread, w.segment, w.instruction, exec::access_kind::write, race_kind::waw, byte, false);
        check_slot(c.reads, exec::access_kind::read, race_kind::war, byte);
        add_to_slot(c.atomics, s, a.instruction);
        break;
    }
  }

  // --- reporting ------------------------------------------------------------------------------

  barrier_mark last_barrier(std::uint32_t t, std::uint32_t segment) const {
    const auto& h = history_[t];
    auto it = std::upper_bound(h.begin(), h.end(), segment,
                               [](std::uint32_t s, const detail::history_entry& e) { return s < e.segment; });
    if (it == h.begin()) return {};
    --it;
    return {it->key, it->generation};
  }

  void conflict(std::uint32_t t, std::uint32_t segment, std::uint32_t instruction, exec::access_kind earlier,
                race_kind kind, std::uint64_t byte, bool benign) {
    if (exempt(t)) return;
    const exec::access& a = *current_;
    // One count per pair of accesses, however many bytes (words) they share.
    const std::uint64_t pair = (static_cast<std::uint64_t>(t) << 32) | (static_cast<std::uint64_t>(instruction) << 2) |
                               static_cast<std::uint64_t>(kind);
    if (!seen_.insert(pair).second) return;
    ++result_.race_count;
    const detail::group_key gk{instruction, a.instruction, kind};
    auto [it, fresh] = groups_.try_emplace(gk, detail::none);
    if (fresh && result_.races.size() < options_.max_race_groups) {
      it->second = static_cast<std::uint32_t>(result_.races.size());
      race r;
      r.kind = kind;
      r.region = a.region;
      r.offset = byte;
      r.element = byte / element_bytes_[a.region];
      r.first = {t, instruction, segment, earlier, last_barrier(t, segment)};
      r.second = {self_, a.instruction, seg_[self_], a.kind, last_barrier(self_, seg_[self_])};
      r.benign = benign;
      r.missing_proxy_fence = missing_fence(t, segment);
      as_actor(r.first);
      as_actor(r.second);
      result_.races.push_back({r, 0, true});
      name_completion(it->second, false);
      name_completion(it->second, true);
    } else if (fresh) {
      ++result_.unlisted_groups;
    }
    if (it->second == detail::none) {
      ++result_.unlisted_races;
      return;
    }
    auto& g = result_.races[it->second];
    ++g.count;
    g.all_benign = g.all_benign && benign;
  }

  // Strict mode (options::strict_barriers): a completed generation of a barrier that waits for the
  // whole CTA must have every thread of the CTA among its registrants, all at one instruction. The
  // engine completes it once the threads that have not exited registered (PTX), so a thread
  // missing here exited without reaching it.
  void check_divergence(const exec::barrier_instance& inst);  // race/divergence.hpp

  void proxy_start();  // these eight: race/async_proxy.hpp
  void note_fence(std::uint32_t t);
  void acquire_fenced(const exec::barrier_registration& r, exec::barrier_key key, std::uint32_t generation);
  void agent_issued(std::uint32_t agent);
  void as_actor(race_access& a) const;
  bool missing_fence(std::uint32_t t, std::uint32_t segment) const;
  void agent_completed(std::uint32_t agent, exec::barrier_key key, std::uint32_t generation);
  void name_completion(std::uint32_t group, bool second);

  barrier_diagnostic& diagnose(barrier_problem problem, exec::barrier_key key, std::uint32_t generation,
                               const exec::barrier_registration& r) {
    auto [it, fresh] =
        diagnostic_index_.try_emplace(std::pair{detail::instance_key{key, generation}, problem}, detail::none);
    if (fresh && result_.barriers.size() < options_.max_barrier_diagnostics) {
      it->second = static_cast<std::uint32_t>(result_.barriers.size());
      barrier_diagnostic d;
      d.problem = problem;
      d.where = {key, generation};
      d.thread = r.thread;
      d.instruction = r.instruction;
      d.count = 0;
      result_.barriers.push_back(d);
    }
    if (it->second == detail::none) {
      ++result_.unlisted_barrier_errors;  // (every problem is an error: barrier_diagnostic::is_error)
      scratch_diagnostic_ = {};
      return scratch_diagnostic_;
    }
    auto& d = result_.barriers[it->second];
    ++d.count;
    return d;
  }

  options options_;
  exec::run_info info_;
  std::uint32_t threads_ = 0, agents_ = 0, warp_size_ = 32, width_ = 0;
  std::vector<std::vector<std::uint32_t>> fences_, unfenced_;  // race/async_proxy.hpp
  // Per agent: its registrations without waiting (a copy's completion: complete_tx on an
  // mbarrier, async_done), by the segment each opened; and race examples (group, second side)
  // whose async-proxy access's completion is still to come.
  std::vector<std::vector<detail::history_entry>> agent_done_;
  std::vector<std::pair<std::uint32_t, bool>> awaiting_completion_;
  std::vector<std::uint8_t> checked_;         // per region: global or shared
  std::vector<std::uint8_t> input_only_;      // per region: reads left unrecorded (skip_input_reads)
  bool incomplete_ = false;                   // an input-only region was written (see incomplete())
  std::vector<std::uint64_t> element_bytes_;  // per region

  std::vector<detail::clock_slot> clocks_;
  std::vector<std::uint32_t> free_clocks_;
  std::uint64_t next_serial_ = 2;
  std::vector<std::uint32_t> acq_;  // per thread: the clock slot it holds
  std::vector<std::uint32_t> seg_;  // per thread: barrier operations executed
  // Per thread: registrations on resources that mark segments (CTA barriers), for reports.
  std::vector<std::vector<detail::history_entry>> history_;
  std::vector<std::uint32_t> exit_at_;  // per thread: the instruction it exited at (read once it has exited)

  boost::unordered_flat_map<detail::instance_key, std::uint32_t, detail::instance_key_hash> pending_index_;  // -> pending_
  std::vector<detail::pending_join> pending_;
  std::vector<std::uint32_t> free_pending_;
  boost::unordered_flat_map<exec::barrier_key, detail::recycled_resource, exec::barrier_key_hash> recycled_;
  // Polled resources: their last completed generations and the clocks their waiters acquire.
  boost::unordered_flat_map<exec::barrier_key, std::vector<std::pair<std::uint32_t, std::uint32_t>>,
                            exec::barrier_key_hash>
      completed_;

  boost::unordered_flat_map<detail::word_key, detail::word, detail::word_key_hash> shadow_;  // global words
  static constexpr std::uint64_t dense_limit_words = std::uint64_t{1} << 20;
  std::vector<std::vector<detail::word>> dense_;               // per region: shared words, by word
  std::vector<std::pair<std::uint32_t, std::uint64_t>> touched_;  // dense words touched this run
  std::vector<std::array<detail::cell, 4>> split_;
  std::vector<detail::epoch_set> sets_;
  std::vector<std::uint32_t> free_sets_;

  // The access being visited, and what its thread knows.
  const exec::access* current_ = nullptr;
  std::uint32_t self_ = 0;
  const std::uint32_t* now_ = nullptr;
  std::uint64_t now_serial_ = 0;
  boost::unordered_flat_set<std::uint64_t> seen_;  // racing pairs of the current access

  boost::unordered_flat_map<detail::group_key, std::uint32_t, detail::group_key_hash> groups_;
  boost::unordered_flat_map<std::pair<detail::instance_key, barrier_problem>, std::uint32_t, detail::diagnostic_key_hash>
      diagnostic_index_;
  barrier_diagnostic scratch_diagnostic_;
  report result_;
};

static_assert(exec::observer<context>);

}  // namespace gpueq::race

#include <gpueq/race/async_proxy.hpp>
#include <gpueq/race/divergence.hpp>
