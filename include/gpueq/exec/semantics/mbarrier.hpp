// mbarriers (semantics of engine<D, O>, declared in exec/engine.hpp): the `mbarrier` synchronization
// resource of exec/sync.hpp, an object of 8 bytes in shared memory with phases. PTX ISA, "Parallel
// Synchronization and Communication Instructions: mbarrier":
//
// - init sets the expected arrival count (1 .. 2^20-1), the pending count to it, the pending
//   transaction bytes to 0 and the phase to 0; inval ends the object's life.
// - arrive (count, default 1) takes arrivals off the pending count; arrive_drop also takes them
//   off the expected count of later phases; expect_tx adds transaction bytes, complete_tx takes
//   them off (arrive.expect_tx is expect_tx, then arrive). When the pending count and the pending
//   bytes are both 0, the phase completes: the phase number advances, the pending count is the
//   expected count again.
// - arrive returns a state: here the phase the arrival went to (high 32 bits) and the pending
//   count it left (low 32 bits, what pending_count reads back).
// - test_wait / try_wait ask whether a phase completed: the phase of a state (completed once the
//   current phase is past it), or with .parity the phase of that parity among the current and
//   the one before it (completed unless the current phase has that parity; at phase 0 the
//   "preceding" phase of parity 1 counts as completed, which is why producers start waiting on
//   parity 1).
//
// Semantic choices the ISA leaves to us (README, "Semantics"):
// - A wait that finds its phase incomplete is not answered false: the thread is parked at the
//   instruction until the phase completes and then runs it again (true). This is the schedule in
//   which the waiter is slow, a legal one; for the retry loops kernels write it is the same result
//   without spinning. When no thread can move while threads are parked, each parked wait is
//   answered false (the schedule in which the phase is still incomplete when it tests; a kernel's
//   fallback when a test fails runs so), and the threads go on; after max_false_rounds such
//   rounds in which none of the phases waited on completed, the run is a deadlock naming the
//   mbarrier, its phase, and the arrivals and bytes still pending (mbarrier_answer_false).
// - A phase must not complete while a thread that the previous completion woke has not yet run
//   its wait again: on a GPU that waiter may test after both completions and find the phase's
//   parity (or a state two phases old, undefined in the ISA) back where it waited, and wait for
//   the wrong phase. Such a lap, and a state-based wait for a phase two or more phases old, stop
//   the run (a barrier error naming both threads' instructions). Waiters that have not reached
//   their wait when a phase is lapped are not seen.
// - Ordering (race context): an arrive or arrive_drop (`.release`, the default) registers on the
//   current phase without waiting (it releases); a wait (`.acquire`, the default) that observes a
//   completed phase acquires it (observer::on_barrier_acquire). A `.relaxed` arrive or wait, and a
//   standalone expect_tx or complete_tx (the ISA allows only `.relaxed` for them), count but order
//   nothing: the ISA gives `.relaxed` "no memory ordering semantics". (The agents of bulk copies
//   and cp.async.mbarrier.arrive, which the ISA orders, register as releases.)
// - The object's own bytes: init and inval are writes of its 8 bytes, every other operation an
//   atomic access, so a use not ordered after the init (or an init racing a use) is a race.
// - An operation on an uninitialized or invalidated object, over-arrival (more arrivals than
//   pending), a count out of range, a transaction count leaving -(2^20-1)..2^20-1 and an init
//   over an object that threads wait on stop the run (a barrier error).
#pragma once

#include <gpueq/exec/engine.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// The object an mbarrier instruction names: its shared-memory place (8 bytes, 8-aligned), observed
// as a write (init, inval) or an atomic access (everything else).
template <value_domain D, observer O>
inline auto engine<D, O>::mbarrier_at(std::uint32_t t, const xinstr& x, const xoperand& a, std::uint32_t pc,
                                      access_kind kind) -> mbarrier_ref {
  address_value addr = effective_address(t, a);
  check_alignment(t, addr.at, 8);
  place p = locate(t, x.has_space ? x.space : ptx::state_space::generic, addr, 8);
  if (p.index == ~0u || p.r->space != memory_space::shared)
    fail_at(error_kind::barrier, t, "an mbarrier object must be in shared memory, not in " + std::string(name(p.r->space)));
  barrier_key key{barrier_kind::mbarrier, (std::uint64_t{p.index} << 32) | p.offset};
  // Only arrivals and transaction counts reach another CTA's object (.shared::cluster); init,
  // inval, the waits and cp.async.mbarrier.arrive name the executing CTA's own (.shared::cta).
  using op = ptx::opcode;
  const bool remote_allowed = x.op == op::mbarrier_arrive || x.op == op::mbarrier_arrive_drop ||
                              x.op == op::mbarrier_expect_tx || x.op == op::mbarrier_complete_tx;
  if (!remote_allowed && mbarrier_owner(key) != rank_of(t))
    fail_at(error_kind::barrier, t,
            resource_name(key) + " is CTA rank " + std::to_string(mbarrier_owner(key)) + "'s: " +
                std::string(ptx::name(x.op)) + " reaches only the executing CTA's own mbarriers (.shared::cta), "
                "and this thread is in rank " + std::to_string(rank_of(t)));
  observe(t, p, 8, kind, pc, {}, atomic_op::other);
  mbarrier_state& m = mbarriers_[key];
  if (x.op != ptx::opcode::mbarrier_init && !m.valid)
    fail_at(error_kind::barrier, t,
            resource_name(key) + (m.invalidated ? " was invalidated" : " is used before mbarrier.init"));
  return {key, m};
}

// "mbarrier full[1] (shared byte 8)": the array and element of an mbarrier object.
template <value_domain D, observer O>
inline std::string engine<D, O>::resource_name(barrier_key key) const {
  if (!model(key.kind).addressed) return describe(key);
  auto region = static_cast<std::uint32_t>(key.id >> 32);
  std::uint64_t offset = key.id & 0xffffffffu;
  if (region >= regions_.size()) return describe(key);
  const auto& r = regions_[region];
  return "mbarrier " + r.name + "[" + std::to_string(offset / 8) + "] (shared byte " + std::to_string(offset) + ")";
}

// "phase 3: 1 of 2 arrivals pending, 4096 transaction bytes pending".
template <value_domain D, observer O>
inline std::string engine<D, O>::mbarrier_progress(const mbarrier_state& m) const {
  return "phase " + std::to_string(m.phase) + ": " + std::to_string(m.pending) + " of " + std::to_string(m.expected) +
         " arrivals pending, " + std::to_string(m.tx) + " transaction bytes pending";
}

// Whether the instruction at pc is spelled `.relaxed` (a memory-order qualifier the decoder passes
// over: program.hpp).
template <value_domain D, observer O>
inline bool engine<D, O>::relaxed(std::uint32_t pc) const {
  for (std::uint32_t m : p_.function->instructions[pc].mods)
    if (p_.str(m) == ".relaxed") return true;
  return false;
}

template <value_domain D, observer O>
inline void engine<D, O>::mbarrier_op(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  using op = ptx::opcode;
  auto count_of = [&](const xoperand& o, const char* what, std::int64_t lo) {
    auto v = static_cast<std::int64_t>(to_bits(read(t, o), t) & 0xffffffffu);
    if (v < lo || v > max_mbarrier_count)
      fail_at(error_kind::barrier, t,
              std::string(what) + " " + std::to_string(v) + " is not in " + std::to_string(lo) + ".." +
                  std::to_string(max_mbarrier_count));
    return v;
  };
  switch (x.op) {
    case op::mbarrier_init: {
      auto [key, m] = mbarrier_at(t, x, x.ops[0], pc, access_kind::write);
      std::int64_t n = count_of(x.ops[1], "mbarrier.init count", 1);
      if (m.valid && (!m.regs.empty() || m.unordered))
        fail_at(error_kind::barrier, t, resource_name(key) + " is initialized again while its " +
                                            mbarrier_progress(m) + " has arrivals");
      if (m.valid && (!m.pollers.empty() || !m.woken.empty()))
        fail_at(error_kind::barrier, t,
                resource_name(key) + " is initialized again while " + threads_text(waiting_on(m)) +
                    " wait on its " + mbarrier_progress(m));
      // Observers number the generations of one key increasingly across inits: the new object's
      // first phase comes after every phase the old one began. The first init's phase p is
      // generation p + 1 (what race reports print).
      const bool used = m.valid || m.invalidated;
      std::uint32_t base = used ? m.generation_base + m.phase + 1 : 0;
      m = mbarrier_state{};
      m.valid = true;
      m.expected = m.pending = static_cast<std::uint32_t>(n);
      m.generation_base = base;
      return;
    }
    case op::mbarrier_inval: {
      auto [key, m] = mbarrier_at(t, x, x.ops[0], pc, access_kind::write);
      if (!m.pollers.empty() || !m.woken.empty())
        fail_at(error_kind::barrier, t,
                resource_name(key) + " is invalidated while " + threads_text(waiting_on(m)) + " wait on it");
      m.valid = false;
      m.invalidated = true;
      return;
    }
    case op::mbarrier_arrive: case op::mbarrier_arrive_drop: {
      auto [key, m] = mbarrier_at(t, x, x.ops[1], pc, access_kind::atomic);
      std::int64_t n = 1, tx = 0;
      if (x.has(flag::expect_tx)) {
        if (x.ops.size() < 3) fail_at(error_kind::barrier, t, "mbarrier.arrive.expect_tx needs a transaction count");
        tx = count_of(x.ops[2], "transaction count", 0);
      } else if (x.ops.size() > 2) {
        n = count_of(x.ops[2], "arrival count", 1);
      }
      if (relaxed(pc)) ++m.unordered;
      else mbarrier_register(t, key, m, pc);
      mbarrier_tx(t, key, m, tx);
      if (n > m.pending)
        fail_at(error_kind::barrier, t,
                resource_name(key) + " " + mbarrier_progress(m) + ": an arrival of " + std::to_string(n) +
                    " is more than is pending (over-arrival)");
      m.pending -= static_cast<std::uint32_t>(n);
      if (x.op == op::mbarrier_arrive_drop) {
        if (static_cast<std::uint32_t>(n) > m.expected) fail_at(error_kind::barrier, t, "mbarrier.arrive_drop below zero");
        m.expected -= static_cast<std::uint32_t>(n);
      }
      std::uint64_t state = (std::uint64_t{m.phase} << 32) | m.pending;
      if (x.ops[0].k != xoperand::kind::sink) {
        if (mbarrier_owner(key) != rank_of(t))
          fail_at(error_kind::barrier, t,
                  "an arrive on " + resource_name(key) + ", CTA rank " + std::to_string(mbarrier_owner(key)) +
                      "'s mbarrier, returns no state: its destination must be the sink `_` (PTX ISA)");
        write(t, x.ops[0], value::of_bits(state));
      }
      mbarrier_try_complete(t, key, m);
      return;
    }
    case op::mbarrier_expect_tx: case op::mbarrier_complete_tx: {
      auto [key, m] = mbarrier_at(t, x, x.ops[0], pc, access_kind::atomic);
      std::int64_t tx = count_of(x.ops[1], "transaction count", 0);
      ++m.unordered;  // .relaxed only: no release
      mbarrier_tx(t, key, m, x.op == op::mbarrier_expect_tx ? tx : -tx);
      mbarrier_try_complete(t, key, m);
      return;
    }
    case op::mbarrier_pending_count: {
      std::uint64_t state = to_bits(read(t, x.ops[1]), t);
      return write(t, x.ops[0], value::of_bits(state & 0xffffffffu));
    }
    default: fail_at(error_kind::unsupported, t, "this mbarrier instruction");
  }
}

// An operation that releases into the current phase (arrive, expect_tx, complete_tx).
template <value_domain D, observer O>
inline void engine<D, O>::mbarrier_register(std::uint32_t t, barrier_key key, mbarrier_state& m, std::uint32_t pc) {
  barrier_registration r{t, false, pc};
  m.regs.push_back(r);
  o_.on_barrier_register(r, key, m.generation_base + m.phase + 1, m.expected);
}

// The transaction count moves by `delta` (expect_tx: up, complete_tx: down); the ISA's range for
// it is -(2^20-1)..2^20-1.
template <value_domain D, observer O>
inline void engine<D, O>::mbarrier_tx(std::uint32_t t, barrier_key key, mbarrier_state& m, std::int64_t delta) {
  m.tx += delta;
  if (m.tx > max_mbarrier_count || m.tx < -max_mbarrier_count)
    fail_at(error_kind::barrier, t,
            resource_name(key) + " " + mbarrier_progress(m) + ": the transaction count leaves its range -" +
                std::to_string(max_mbarrier_count) + ".." + std::to_string(max_mbarrier_count));
}

// Threads parked at a wait on m, and those its last completion woke that have not run it again.
template <value_domain D, observer O>
inline std::vector<std::uint32_t> engine<D, O>::waiting_on(const mbarrier_state& m) {
  std::vector<std::uint32_t> ts = m.pollers;
  ts.insert(ts.end(), m.woken.begin(), m.woken.end());
  std::sort(ts.begin(), ts.end());
  return ts;
}

// The phase completes when nothing is pending: its releases reach the observer, the pollers are
// woken (they run their wait again), and the next phase begins. Thread t's operation completed it.
template <value_domain D, observer O>
inline void engine<D, O>::mbarrier_try_complete(std::uint32_t t, barrier_key key, mbarrier_state& m) {
  if (m.pending != 0 || m.tx != 0) return;
  if (!m.woken.empty()) {  // a lap (header comment)
    std::uint32_t w = m.woken.front();
    fail_at(error_kind::barrier, t,
            "this completes phase " + std::to_string(m.phase) + " of " + resource_name(key) + " while " +
                threads_text(m.woken) + " (first " + thread_name(w) + ", waiting at " + where(pc_[w]) +
                "), woken by phase " + std::to_string(m.phase - 1) +
                "'s completion, have not run their wait again: on a GPU they may test after both completions "
                "and wait for the wrong phase (a phase must not complete before every waiter has seen the one "
                "before it)");
  }
  std::vector<barrier_registration> regs = std::move(m.regs);
  m.regs.clear();
  m.unordered = 0;
  ++stats_.barrier_instances;
  o_.on_barrier_complete(barrier_instance{key, m.generation_base + m.phase + 1, m.expected, regs});
  ++m.phase;
  m.pending = m.expected;
  for (std::uint32_t u : m.pollers) status_[u] = status::runnable;  // they run their wait again
  m.woken = std::move(m.pollers);
  m.pollers.clear();
}

// test_wait / try_wait: the answer (true) once the phase asked about has completed, acquiring it;
// parked until then (see the header comment).
template <value_domain D, observer O>
inline void engine<D, O>::mbarrier_wait(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  auto [key, m] = mbarrier_at(t, x, x.ops[1], pc, access_kind::atomic);
  if (auto it = std::find(m.woken.begin(), m.woken.end(), t); it != m.woken.end()) m.woken.erase(it);
  std::uint64_t asked = to_bits(read(t, x.ops[2]), t);
  // The phase waited for, as a phase number, and whether it has completed.
  std::uint32_t phase;
  if (x.has(flag::parity)) {
    if (asked > 1) fail_at(error_kind::barrier, t, "phase parity " + std::to_string(asked) + " is not 0 or 1");
    bool current = (m.phase & 1u) == asked;
    phase = current ? m.phase : m.phase - 1;  // at phase 0 the preceding phase is "-1": completed
  } else {
    phase = static_cast<std::uint32_t>(asked >> 32);
    if (phase > m.phase)
      fail_at(error_kind::barrier, t,
              "the state names " + resource_name(key) + " phase " + std::to_string(phase) + ", which has not begun (" +
                  mbarrier_progress(m) + ")");
    if (phase + 1 < m.phase)
      fail_at(error_kind::barrier, t,
              "the state names " + resource_name(key) + " phase " + std::to_string(phase) +
                  ", two or more phases before the current one (" + mbarrier_progress(m) +
                  "): a wait's state must be of the current phase or the one before it (PTX ISA)");
  }
  if (phase == m.phase) {  // not completed: wait here
    status_[t] = status::at_barrier;
    barrier_of_[t] = key;
    m.pollers.push_back(t);
    return;
  }
  if (phase + 1 != 0 && !relaxed(pc))  // (phase 0's parity-1 predecessor never existed: nothing to acquire)
    o_.on_barrier_acquire(barrier_registration{t, true, pc}, key, m.generation_base + phase + 1);
  write(t, x.ops[0], value::of_bits(1));
  pc_[t] = pc + 1;
}

// No thread can move and threads are parked at waits (schedule.hpp, before calling it a
// deadlock): every parked wait answers false, as test_wait and try_wait may while the phase is
// incomplete, and its thread goes on. After max_false_rounds rounds in which none of the phases
// the answered waits waited on completed (other barriers may: a retry loop around a bar.sync),
// the waits are not answered again: the run is the deadlock it is (a retry loop would spin
// forever).
template <value_domain D, observer O>
inline bool engine<D, O>::mbarrier_answer_false() {
  for (const auto& [key, phase] : false_answered_)  // progress: a phase those waits waited on completed
    if (mbarriers_[key].phase != phase) {
      false_rounds_ = 0;
      break;
    }
  if (false_rounds_ >= max_false_rounds) return false;
  false_answered_.clear();
  for (auto& [key, m] : mbarriers_) {
    if (m.pollers.empty()) continue;
    for (std::uint32_t u : m.pollers) {
      write(u, p_.code[pc_[u]].ops[0], value::of_bits(0));
      ++pc_[u];
      status_[u] = status::runnable;
    }
    m.pollers.clear();
    false_answered_.emplace_back(key, m.phase);
  }
  if (false_answered_.empty()) return false;
  ++false_rounds_;
  scheduled_by_passes_ = true;  // (deadlock_is_round_robins)
  return true;
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
