// Race-witness holds (engine_options::hold, declared in exec/engine.hpp): threads held back at an
// instruction until another thread has executed another, under the round-robin schedules. Not an
// instruction family: scheduling hooks of engine<D, O>, kept beside the families so engine.hpp
// stays the scheduler's outline.
#pragma once

#include <gpueq/exec/engine.hpp>

#include <cstdint>

namespace gpueq::exec {

// Armed only for the round-robin schedules: the lockstep and seeded random schedules run threads
// one instruction (or a few) at a time through step_once, which does not look at holds.
template <value_domain D, observer O>
inline void engine<D, O>::hold_setup() {
  const hold_plan& h = options_.hold;
  held_.clear();
  hold_mask_.assign(n_, false);
  hold_ = hold_phase::off;
  if (h.threads.empty() || options_.lockstep_warps || options_.schedule_seed) return;
  for (std::uint32_t t : h.threads)
    if (t < n_ && t != h.until_thread) hold_mask_[t] = true;  // the releasing thread is never held
  hold_ = hold_phase::armed;
}

// run_thread while a hold is armed or holding: one instruction at a time (step_once; the fast
// forms are skipped), looking at the thread's instruction before and after each.
template <value_domain D, observer O>
inline void engine<D, O>::run_thread_holding(std::uint32_t t) {
  const hold_plan& h = options_.hold;
  while (status_[t] == status::runnable) {
    if (hold_ != hold_phase::armed && hold_ != hold_phase::holding) {
      run_thread_loop(t);  // released: the rest of the run as without a hold
      return;
    }
    const std::uint32_t pc = pc_[t];
    const bool listed = hold_mask_[t] && pc == h.instruction;
    if (listed && !h.after) {  // held before its first execution of the instruction
      hold_thread(t);
      return;
    }
    step_once(t);
    // A load parked for a write (status::at_read) has not executed yet.
    const bool executed = status_[t] != status::at_read;
    if (executed && hold_ == hold_phase::holding && t == h.until_thread && pc == h.until_instruction) {
      release_hold();
      continue;
    }
    if (executed && listed && h.after) {  // held right after its first execution
      hold_mask_[t] = false;
      if (status_[t] == status::runnable) {
        hold_thread(t);
        return;
      }
    }
  }
}

// Thread t is held now (its hold is used up: each listed thread is held once).
template <value_domain D, observer O>
inline void engine<D, O>::hold_thread(std::uint32_t t) {
  hold_mask_[t] = false;
  status_[t] = status::held;
  held_.push_back(t);
  hold_ = hold_phase::holding;
}

// The held threads run again (the releasing access happened, or nothing else could move); the
// hold is over for the rest of the run.
template <value_domain D, observer O>
inline void engine<D, O>::release_hold() {
  for (std::uint32_t u : held_) status_[u] = status::runnable;
  held_.clear();
  hold_ = hold_phase::done;
  scheduled_by_passes_ = true;  // (deadlock_is_round_robins)
}

}  // namespace gpueq::exec
