// Scheduling (not an instruction family; engine<D, O>, declared in exec/engine.hpp): the passes
// over the CTA's threads under each schedule (round robin, lockstep warps, a seeded random
// schedule, a given thread order), parked loads tried again after progress, and the deadlock
// report when nothing can move; and the engine's setup, a thread's exit and the run loop of one
// thread (run_thread_loop, step_once, the step/progress/memory checks), declared in engine.hpp.
#pragma once

#include <gpueq/exec/engine.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

template <value_domain D, observer O>
inline void engine<D, O>::schedule() {
  for (;;) {
    if (abandoned()) return;
    bool moved = false;
    bool resumed = false;  // the per-thread pass started past thread 0 (see below)
    // A load that waited ran one step and changed nothing: it is not progress.
    const std::uint64_t steps_before = stats_.steps;
    waits_this_pass_ = 0;
    if (options_.lockstep_warps) {
      for (std::uint32_t w = 0; w < warps_; ++w)
        for (bool any = true; any;) {
          any = false;
          for (std::uint32_t t = w * warp_size; t < std::min(n_, (w + 1) * warp_size); ++t)
            if (status_[t] == status::runnable) {
              step_once(t);
              any = moved = true;
            }
        }
    } else if (options_.schedule_seed) {
      std::vector<std::uint32_t> order(n_);
      for (std::uint32_t t = 0; t < n_; ++t) order[t] = t;
      for (std::uint32_t i = n_; i > 1; --i) std::swap(order[i - 1], order[random() % i]);
      for (std::uint32_t t : order)
        for (std::uint64_t k = 1 + random() % 64; k > 0 && status_[t] == status::runnable; --k) {
          step_once(t);
          moved = true;
        }
    } else if (options_.thread_order.size() == n_) {
      for (std::uint32_t t : options_.thread_order)
        if (t < n_ && status_[t] == status::runnable) {
          run_thread(t);
          moved = true;
        }
    } else {
      // Warp-wide first (run_warp): in rounds, each warp up to warp_round instructions in turn while
      // some warp can go on, so that the warps of a CTA move through a loop together and what one
      // warp loads (a row of an input, its memory's bookkeeping) is still in cache for the next.
      // The pass that follows runs each thread until it blocks, except that it breaks off when a
      // barrier generation completes: the thread that completed it stops right after its barrier
      // instruction (barrier_released_), the warps the barrier released are converged, and the
      // next pass runs them warp-wide in its rounds instead of thread by thread up to the next
      // barrier. (Without this, in every barrier interval the thread that arrived last and the
      // threads after it in the pass ran the whole interval one by one.) That next pass then
      // resumes its threads where this one broke off (resume_from_: that thread first, then the
      // ones after it), so the instructions that never run warp-wide (atomics, barriers,
      // mbarrier arrivals and waits, collectives) keep round robin's order, and only data
      // instructions move, as in the rounds: only unordered accesses of different threads.
      // After a pass broke off at a release, the rounds begin with the warp of the thread that
      // completed the barrier (resume_from_), as round robin goes on with that thread, and take
      // the warps after it in turn: a lane that fails in that interval then fails before the other
      // warps ran theirs, as under round robin (which runs the CTA again all the same).
      const bool rounds = warp_wide_ && hold_ == hold_phase::off;
      if (rounds)
        for (bool again = true; again;) {  // (abandoned: checked after each warp's turn)
          again = false;
          for (std::uint32_t i = 0, w = resume_from_ / warp_size; i < warps_; ++i, w = w + 1 == warps_ ? 0 : w + 1) {
            again = run_warp(w, warp_round) || again;
            if (abandoned()) return;
          }
        }
      break_at_release_ = rounds;
      barrier_released_ = false;
      std::uint32_t t = rounds ? resume_from_ : 0;
      resumed = t != 0;
      resume_from_ = 0;
      for (; t < n_; ++t) {
        if (status_[t] == status::runnable) {
          run_thread(t);
          moved = true;
          if (abandoned()) return;
          if (barrier_released_) {
            warp_steps_taken_ = true;  // not round robin's order any more (went_warp_wide)
            resume_from_ = t;
            break;
          }
        }
      }
      break_at_release_ = barrier_released_ = false;
    }
    if (live_ == 0) break;
    moved = moved && stats_.steps - steps_before > waits_this_pass_;
    // A pass that resumed one broken off at a release ends that pass, which moved (the release):
    // as at the end of any pass that moved, loads that wait are tried again in the next one, in
    // its order, so that a load parked in the resumed part is not first in line.
    if (resumed) moved = true;
    if (!moved && hold_ == hold_phase::holding) {  // nothing else can move: the held threads go on
      release_hold();
      continue;
    }
    // Parked mbarrier waits answer false (mbarrier.hpp) before a waiting load is forced to read:
    // a fallback that a false answer runs may write what the load waits for.
    if (!moved && mbarrier_answer_false()) continue;
    if (!waiting_reads_.empty()) {
      // Loads that found nothing written: after progress, try them again; without progress
      // nobody will write for them, so the first is the uninitialized read it is.
      std::vector<std::uint32_t> readers = std::move(waiting_reads_);
      waiting_reads_.clear();
      for (std::uint32_t t : readers) status_[t] = status::runnable;
      if (!moved) {
        options_.reads_wait_for_writes = false;
        run_thread(readers.front());
        options_.reads_wait_for_writes = true;
      }
      continue;
    }
    if (!moved) deadlock();
  }
  setmaxnreg_finish();
  sync_.for_each_open([&](barrier_key key, const open_generation& g) {
    fail(error_kind::barrier, g.regs.front().thread,
         describe(key) + " generation " + std::to_string(g.generation) + " never completed: " +
             std::to_string(g.regs.size()) + " of " + std::to_string(g.expected) +
             " threads arrived and every thread has exited",
         g.started_by);
  });
}

// ---- setup, thread exit and the per-thread run loop (declared, with their comments, in
// exec/engine.hpp) ----
template <value_domain D, observer O>
inline void engine<D, O>::setup() {
  n_ = cluster_setup();  // the CTA's threads, or every thread of the cluster (semantics/cluster.hpp)
  rng_ = options_.schedule_seed;
  if (n_ == 0) fail(error_kind::unsupported, 0, "the block has no threads");
  nregs_ = p_.registers;
  regs_.assign(std::size_t{(n_ + warp_size - 1) / warp_size} * warp_size * nregs_, value{});  // see reg()
  status_.assign(n_, status::runnable);
  pc_.assign(n_, 0);
  barrier_of_.assign(n_, barrier_key{});
  sync_.clear();
  mbarriers_.clear();
  false_rounds_ = 0;
  false_answered_.clear();
  waiting_reads_.clear();
  read_waits_ = false;
  scheduled_by_passes_ = false;
  hold_setup();
  warp_mask_.assign(n_, 0);
  copies_.assign(n_, {});
  copy_group_.assign(n_, 0);
  proxy_.assign(n_, {});
  live_ = n_;
  warps_ = (n_ + warp_size - 1) / warp_size;
  warp_generation_.assign(warps_, 1);
  collective_scan_.assign(warps_, {});
  setmaxnreg_.assign(warps_, {});
  wgmma_warps_.assign(warps_, nullptr);

  run_info info;
  info.threads = n_;
  info.agents = uses_async_proxy() ? n_ : 0;
  info.warp_size = warp_size;
  layout_memory(info);
  hint_.assign(p_.code.size(), ~0u);
  fixed_.assign(p_.code.size(), {});
  param_at_.assign(p_.code.size(), ~0u);
  for (std::size_t pc = 0; pc < p_.fast.size(); ++pc) {
    const fast_form& f = p_.fast[pc];
    if (f.absolute && symbol_provenance(f.base)) fixed_[pc] = {symbol_address(0, f.base, f.offset), symbol_provenance(f.base)};
    if (f.op == fast_op::ld_param)
      if (auto it = symbols_.find(f.base); it != symbols_.end() && it->second.k == symbol::kind::param &&
                                           l_.params[it->second.index].fields.empty())
        param_at_[pc] = it->second.index;
  }
  // (a program not from decode has none; a cluster run's shared places depend on the CTA)
  fast_forms_ = options_.fast_forms && p_.fast.size() == p_.code.size() && !clustered_;
  warp_wide_ = fast_forms_ && options_.warp_wide && !options_.lockstep_warps && !options_.schedule_seed &&
               options_.thread_order.size() != n_;
  plan_warp_steps();
  next_check_ = 0;
  update_next_check();
  params_.clear();
  param_fields_.assign(l_.params.size(), {});
  for (std::uint32_t i = 0; i < l_.params.size(); ++i) {
    params_.push_back(param_value(i));
    for (const field_binding& f : l_.params[i].fields) param_fields_[i].push_back(bound_value(f.tensor, f.index, f.type));
  }
  locals_.clear();
  locals_.resize(local_top_ ? n_ : 0);
  o_.on_start(info);
}

template <value_domain D, observer O>
inline void engine<D, O>::exit_thread(std::uint32_t t, std::uint32_t pc) {
  status_[t] = status::exited;
  --live_;
  --cta_live_[rank_of(t)];
  o_.on_exit(t, pc);
  // Exited threads no longer hold anyone back.
  sync_.for_each_open([&](barrier_key key, open_generation&) { try_complete(key); });
  // Each group of the warp waiting at a collective (one per member mask: lanes of two masks may
  // wait at once) that counted on this lane may now be complete; the first waiting lane's
  // group is tried whatever its mask, as before. (Trying only that one left a second group that
  // waited for this lane alone blocked: a false deadlock under some thread orders.)
  const std::uint32_t w = t / warp_size, lane_bit = 1u << (t % warp_size);
  std::array<std::uint32_t, warp_size> tried;
  std::uint32_t n_tried = 0;
  for (std::uint32_t u = w * warp_size; u < std::min(n_, (w + 1) * warp_size); ++u) {
    if (status_[u] != status::at_warp) continue;  // (an earlier try may have released it)
    const std::uint32_t mask = warp_mask_[u];
    if (n_tried && !(mask & lane_bit)) continue;
    if (std::find(tried.begin(), tried.begin() + n_tried, mask) != tried.begin() + n_tried) continue;
    tried[n_tried++] = mask;
    try_collective(u);
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::run_thread_loop(std::uint32_t t) {
  const std::size_t size = p_.code.size();
  const bool fast = fast_forms_;
  std::uint32_t pc = pc_[t];
  for (;;) {
    if (++stats_.steps >= next_check_) checks(t);
    if (pc >= size) {
      exit_thread(t, no_instruction);
      return;
    }
    if (fast) {
      std::uint32_t next = fast_step(t, pc);
      if (next != no_fast) {
        pc_[t] = pc = next;
        continue;
      }
    }
    generic_step(t, p_.code[pc], pc);
    if (status_[t] != status::runnable || barrier_released_) return;
    pc = pc_[t];
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::step_once(std::uint32_t t) {
  if (++stats_.steps >= next_check_) checks(t);
  if (pc_[t] >= p_.code.size()) {
    exit_thread(t, no_instruction);
    return;
  }
  try {
    step(t);
  } catch (const read_wait&) {
    wait_for_write(t);
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::checks(std::uint32_t t) {
  if (stats_.steps > options_.max_steps)
    fail(error_kind::limit, t, "more than " + std::to_string(options_.max_steps) + " thread-instructions executed",
         pc_[t]);
  if (options_.progress && options_.progress_every && stats_.steps % options_.progress_every == 0)
    options_.progress(stats_.steps);
  if (options_.max_resident_mib && (stats_.steps & ((1u << 16) - 1)) == 0)
    if (std::uint64_t mib = resident_mib(); mib > options_.max_resident_mib)
      fail(error_kind::limit, t,
           "memory limit of " + std::to_string(options_.max_resident_mib) + " MiB exceeded (resident: " +
               std::to_string(mib) + " MiB)",
           pc_[t]);
  update_next_check();
}

template <value_domain D, observer O>
inline void engine<D, O>::update_next_check() {
  std::uint64_t s = stats_.steps;
  std::uint64_t next = options_.max_steps == ~std::uint64_t{0} ? ~std::uint64_t{0} : options_.max_steps + 1;
  if (next <= s) next = s + 1;
  if (options_.progress && options_.progress_every)
    next = std::min(next, (s / options_.progress_every + 1) * options_.progress_every);
  if (options_.max_resident_mib) next = std::min(next, ((s >> 16) + 1) << 16);
  next_check_ = next;
}

// Warp-wide execution (engine_options::warp_wide): the lanes of warp w that have not exited (at
// least two), all runnable at one instruction, run it in lane order, then the next, for at most
// `budget` instructions (then it returns true: the warp can go on) and while plan_warp_steps
// allows the instruction (its fast form, or the generic path of an instruction that touches only
// the lane's registers).
// It stops, leaving each lane where it got to, at the first lane that cannot run it so (a fast
// form that declines, a load that must wait for a write, an error); at a divergent branch; and at
// any other instruction. The caller then runs each lane until it blocks, as round robin does.
// (The step limit, counted per lane-instruction as always, may stop a run at another thread;
// check::run_cta then runs it again under round robin, as below.)
//
// Semantic choice: against round robin (each thread until it blocks), this reorders only the
// accesses of different threads within one barrier interval (the lanes of a warp, and warps
// taking turns in schedule()'s rounds), the ones no barrier or warp sync orders. Two such
// accesses to one byte, one a write, are a race, which the race context reports under either
// order (FastTrack finds a race whatever the order of the accesses); with no such pair, every
// load reads what it reads under round robin, so values, stores and outputs are the same
// (VOLTA's confluence). What runs warp-wide has no other effect that order could show:
// no atomics, barriers, collectives, clocks or errors (a lane that would fail is left for round
// robin, which reports the same error at the same place; the lanes' steps before it are counted,
// and check::run_cta runs a warp-wide run that stopped with an error or met a race again under
// round robin).
template <value_domain D, observer O>
inline bool engine<D, O>::run_warp(std::uint32_t w, std::uint32_t budget) {
  const std::uint32_t first = w * warp_size, end = std::min(n_, (w + 1) * warp_size);
  // Lanes that exited do nothing and stay out; the others must all be runnable at one pc.
  const std::uint32_t size = static_cast<std::uint32_t>(p_.code.size());
  std::uint32_t pc = ~0u;
  bool converged = false;  // known without looking at the lanes: all runnable at pc
  for (;; --budget) {
    if (budget == 0) return true;
    if (!converged) {
      std::uint32_t live = 0;
      for (std::uint32_t t = first; t < end; ++t) {
        if (status_[t] == status::exited) continue;
        if (status_[t] != status::runnable || (live && pc_[t] != pc)) return false;
        pc = pc_[t];
        ++live;
      }
      if (live < 2) return false;
      warp_whole_ = live == end - first;  // (no lane exits warp-wide: it holds while converged)
    }
    if (pc >= size) return false;
    const std::uint8_t how = warp_steps_[pc];
    if (how == warp_step::none) return false;
    // One dispatch on the form for the whole warp; the lanes run inside (warp_lanes).
    bool all = false;
    switch (p_.fast[pc].op) {
#define GPUEQ_X(e) \
  case fast_op::e: all = warp_lanes<fast_op::e>(first, end, pc, how); break;
      GPUEQ_EXEC_FAST_OPS(GPUEQ_X)
#undef GPUEQ_X
    }
    if (!all || abandoned()) return false;
    // Every lane ran it and is still runnable (warp_lanes), and no lane exits warp-wide; after
    // anything but a branch (which may diverge) they all stand at pc + 1.
    converged = p_.fast[pc].op != fast_op::bra;
#if GPUEQ_CHECK_INVARIANTS
    for (std::uint32_t t = first; t < end && converged; ++t)
      GPUEQ_INVARIANT(status_[t] == status::exited || (status_[t] == status::runnable && pc_[t] == pc + 1),
                      "a warp-wide instruction other than a branch leaves its lanes at the next one");
#endif
    ++pc;
  }
}

template <value_domain D, observer O>
template <fast_op Op>
inline bool engine<D, O>::warp_lanes(std::uint32_t first, std::uint32_t end, std::uint32_t pc, std::uint8_t how) {
  // The step count: each lane's step is counted before it runs, as round robin counts it; when no
  // check falls due within this warp-instruction, counting all lanes at once is the same.
  const bool no_checks = stats_.steps + (end - first) < next_check_;
  std::uint32_t ran = 0;
  struct count_steps {
    std::uint64_t& steps;
    const std::uint32_t& ran;
    const bool on;
    ~count_steps() {
      if (on) steps += ran;
    }
  } counted{stats_.steps, ran, no_checks};
  // Warp forms (warp_fast): the lanes before `from` ran at once; the others go one by one.
  std::uint32_t from = first;
  if (no_checks && (how & warp_step::fast)) from = warp_fast<Op>(first, end, pc, ran);
  if (ran) warp_steps_taken_ = true;  // (from may pass exited lanes only)
  for (std::uint32_t t = from; t < end; ++t) {
    if (status_[t] == status::exited) continue;
    if (no_checks) ++ran;
    else if (++stats_.steps >= next_check_) checks(t);
    bool executed = false;
    try {
      if (Op != fast_op::none && (how & warp_step::fast)) {
        if (std::uint32_t next = fast_step<Op>(t, pc); next != no_fast) {
          pc_[t] = next;
          executed = true;
        }
      }
      if (!executed && (how & warp_step::generic)) {
        generic_step(t, p_.code[pc], pc);  // sets pc_[t]
        executed = true;
      }
    } catch (const read_wait&) {
      read_waits_ = false;
    } catch (const run_failure&) {
      // The run will be run again under round robin (engine_options::stop_for_rerun): stop now,
      // as a run that went warp-wide (this error need not be the one round robin meets first).
      if (options_.stop_for_rerun) {
        warp_steps_taken_ = true;
        throw;
      }
    }
    if (!executed) {  // round robin runs it (and counts it) in its turn
      if (no_checks) --ran;
      else --stats_.steps;
      return false;
    }
    warp_steps_taken_ = true;
    if (status_[t] != status::runnable) return false;
  }
  return true;
}

// How run_warp may run each instruction (warp_step): by its fast form; by the generic path when it
// is a data instruction (ptx::computes_data: its result is a function of its operands), cvta, or a
// load of a kernel parameter or constant memory. Anything else (other memory forms, atomics,
// barriers, collectives, control beyond the fast branch, exits) ends warp-wide execution.
template <value_domain D, observer O>
inline void engine<D, O>::plan_warp_steps() {
  auto clock = [](special_reg r) {
    switch (r) {
      case special_reg::clock: case special_reg::clock64: case special_reg::clock_hi: case special_reg::globaltimer:
      case special_reg::globaltimer_lo: case special_reg::globaltimer_hi: return true;
      default: return false;
    }
  };
  warp_steps_.assign(p_.code.size(), warp_step::none);
  if (!warp_wide_) return;
  for (std::size_t pc = 0; pc < p_.code.size(); ++pc) {
    const xinstr& x = p_.code[pc];
    const fast_form& f = p_.fast[pc];
    // A clock reads the run's step count, which counts the other lanes' warp-wide steps too: a
    // kernel that reads one anywhere runs each thread until it blocks.
    bool reads_clock = f.op == fast_op::mov_special && clock(static_cast<special_reg>(f.src[0]));
    for (const xoperand& o : x.ops) reads_clock = reads_clock || (o.k == xoperand::kind::special && clock(o.sp));
    if (reads_clock) {
      warp_wide_ = false;
      warp_steps_.assign(p_.code.size(), warp_step::none);
      return;
    }
    std::uint8_t how = f.op != fast_op::none ? warp_step::fast : warp_step::none;
    const bool constant_load = x.op == ptx::opcode::ld && x.has_space &&
                               (x.space == ptx::state_space::param || x.space == ptx::state_space::constant);
    if (ptx::computes_data(x.op) || x.op == ptx::opcode::cvta || constant_load) how |= warp_step::generic;
    warp_steps_[pc] = how;
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::deadlock() {
  // Group the blocked threads by where they wait and what they wait on: one instruction may wait
  // on several resources (`bar.sync %r1` with the id in a register, an mbarrier.try_wait of a
  // ring's stage), and each is named with its own threads.
  struct waiting_on {
    std::uint32_t pc = 0;
    bool collective = false;  // a warp collective (at_warp), else a barrier (at_barrier)
    barrier_key key;          // the barrier (collectives: one group per instruction, as before)
    auto operator<=>(const waiting_on&) const = default;
  };
  std::map<waiting_on, std::vector<std::uint32_t>> at;
  for (std::uint32_t t = 0; t < n_; ++t) {
    if (status_[t] == status::at_barrier)
      at[waiting_on{pc_[t], false, barrier_of_[t]}].push_back(t);
    else if (status_[t] == status::at_warp)
      at[waiting_on{pc_[t], true, barrier_key{barrier_kind::warp, 0}}].push_back(t);
  }
  std::string msg = "deadlock: no thread can move;";
  std::uint32_t first = at.begin()->second.front();
  for (auto& [w, ts] : at) {
    msg += " " + std::to_string(ts.size()) + " thread(s) (first " + thread_name(ts.front()) + ") wait at " +
           std::string(ptx::name(p_.code[w.pc].op)) + " " + where(w.pc);
    if (!w.collective) {
      if (w.key.kind == barrier_kind::mbarrier) {
        msg += " [" + resource_name(w.key) + " " + mbarrier_progress(mbarriers_[w.key]) + "]";
      } else {
        const open_generation& g = sync_.at(w.key);
        msg += " [" + describe(w.key) + " generation " + std::to_string(g.generation) + ": " + g.progress() + "]";
      }
    } else {
      msg += " [warp collective, member mask 0x" + hex(warp_mask_[ts.front()]) + "]";
    }
    msg += " (" + threads_text(ts) + ");";
  }
  msg += " " + std::to_string(n_ - live_) + " thread(s) exited";
  fail(error_kind::deadlock, first, msg, at.begin()->first.pc);
}

template <value_domain D, observer O>
inline std::string engine<D, O>::threads_text(const std::vector<std::uint32_t>& ts) {
  std::string s = ts.size() == 1 ? "thread " : "threads ";
  std::size_t i = 0, listed = 0;
  for (std::size_t ranges = 0; i < ts.size() && ranges < 4; ++ranges) {
    std::size_t j = i;
    while (j + 1 < ts.size() && ts[j + 1] == ts[j] + 1) ++j;
    s += (ranges ? ", " : "") + std::to_string(ts[i]) + (j == i ? std::string() : ".." + std::to_string(ts[j]));
    listed += j - i + 1;
    i = j + 1;
  }
  if (listed < ts.size()) s += " and " + std::to_string(ts.size() - listed) + " more";
  return s;
}
}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
