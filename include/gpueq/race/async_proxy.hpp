// The async proxy in the race context (members of race::context, declared in race/context.hpp).
//
// TMA and bulk copies run in the async proxy: the engine gives each issuing thread t one virtual
// agent, numbered threads + t (exec::run_info::agents), whose accesses are the copies' reads and
// writes and which registers on the copy's mbarrier (complete_tx) when the copy lands. Three
// resources of exec/sync.hpp order the agent with its thread, and the context treats two of them
// as it treats any resource: at a copy's issue the thread arrives on a one-off `async_issue`
// instance and the agent waits on it (the agent knows everything the thread did and knew), and a
// bulk group's `async_done` generation, registered by the agent after the copy's accesses, is
// what the thread's cp.async.bulk.wait_group acquires.
//
// The third, `proxy_fence`, needs a view the resource model does not express. A generic write to
// shared memory becomes visible to the async proxy only through a proxy fence (PTX ISA, "Proxies"
// and fence.proxy.async): the fence of the writing thread, or of a thread that the write is
// ordered before (the fence is cumulative). So when a copy that *reads* shared memory (a TMA
// store's source) issues, its agent does not get its thread's clock but the fenced view of it:
// for every thread u, the latest proxy fence of u that the issuing thread knows of (u's
// segments before that fence), joined with the clock the issuing thread held at its own last
// fence (what it knew when it fenced). Both CUDA idioms are then race-free: every thread
// fences its own writes and a barrier follows, or a barrier follows the writes and the issuing
// thread fences. A generic write reached by neither is unordered with the copy's read: a race,
// which `missing_fence` labels a missing proxy fence when the issuing thread's whole view (kept
// per agent in `unfenced_`) does order the write.
#pragma once

#include <gpueq/race/context.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpueq::race {

inline void context::proxy_start() {
  fences_.assign(threads_, {});
  unfenced_.assign(agents_, {});
  agent_done_.assign(agents_, {});
  awaiting_completion_.clear();
}

// What completes a copy, for reports: the engine registers a copy's agent on the copy's mbarrier
// (a load's complete_tx, a cp.async arrive-on) or on its thread's async_done right after the
// copy's accesses, so the registration without waiting that opened the segment after an access's
// is its copy's completion (a multicast load's first destination).
inline void context::agent_completed(std::uint32_t agent, exec::barrier_key key, std::uint32_t generation) {
  const std::uint32_t a = agent - threads_;
  if (a >= agent_done_.size()) return;
  agent_done_[a].push_back({seg_[agent], key, generation});
  for (std::size_t i = 0; i < awaiting_completion_.size();) {
    auto [group, second] = awaiting_completion_[i];
    race& r = result_.races[group].example;
    race_access& x = second ? r.second : r.first;
    if (x.thread == a && x.segment + 1 == seg_[agent]) {
      x.completion = {key, generation};
      awaiting_completion_[i] = awaiting_completion_.back();
      awaiting_completion_.pop_back();
    } else {
      ++i;
    }
  }
}

// A new race example: its async-proxy side's completion, if the copy completed already, else
// once it does.
inline void context::name_completion(std::uint32_t group, bool second) {
  race_access& x = second ? result_.races[group].example.second : result_.races[group].example.first;
  if (!x.async_proxy || x.thread >= agent_done_.size()) return;
  const auto& done = agent_done_[x.thread];
  auto it = std::lower_bound(done.begin(), done.end(), x.segment + 1,
                             [](const detail::history_entry& e, std::uint32_t s) { return e.segment < s; });
  if (it != done.end() && it->segment == x.segment + 1) x.completion = {it->key, it->generation};
  else if (it == done.end()) awaiting_completion_.push_back({group, second});
}

// Thread t's fence.proxy.async, after its registration opened segment seg_[t]: its segments
// below that one are fenced.
inline void context::note_fence(std::uint32_t t) {
  if (t < threads_) fences_[t].push_back(seg_[t]);
}

// Agent r.thread acquires the fenced view of its thread's clock (see the header comment).
inline void context::acquire_fenced(const exec::barrier_registration& r, exec::barrier_key key,
                                    std::uint32_t generation) {
  const auto t = static_cast<std::uint32_t>(key.id);
  const std::uint32_t agent = r.thread;
  if (t >= threads_ || agent < threads_) return;
  const std::uint32_t n = new_clock();
  std::vector<std::uint32_t>& v = clocks_[n].v;
  const std::vector<std::uint32_t>& held = clocks_[acq_[t]].v;
  // Past the threads (agents, recycled resources): what t knows. Async-proxy writes it has
  // acquired (a TMA load it waited for) need no proxy fence.
  for (std::size_t k = threads_; k < held.size(); ++k) v[k] = held[k];
  for (std::uint32_t u = 0; u < threads_; ++u) {
    const std::uint32_t known = u == t ? seg_[t] + 1 : held[u];
    const auto& f = fences_[u];
    auto it = std::upper_bound(f.begin(), f.end(), known);  // the latest fence at or below `known`
    v[u] = it == f.begin() ? 0 : *(it - 1);
  }
  if (auto kept = completed_.find(key); kept != completed_.end())
    for (const auto& [g, slot] : kept->second)
      if (g == generation) detail::join_into(v, clocks_[slot].v);
  clocks_[n].serial = next_serial_++;
  clocks_[n].refs = 1;
  release(acq_[agent]);
  acq_[agent] = n;
  std::vector<std::uint32_t>& whole = unfenced_[agent - threads_];
  whole.assign(held.begin(), held.end());
  whole.resize(width_, 0);
  whole[t] = seg_[t] + 1;
}

// An agent acquired its thread's whole clock (a copy that only writes shared memory): it is no
// longer under a fenced view.
inline void context::agent_issued(std::uint32_t agent) {
  if (agent >= threads_ && agent - threads_ < unfenced_.size()) unfenced_[agent - threads_].clear();
}

// Reports name the issuing thread of an agent's access, marked as the async proxy's.
inline void context::as_actor(race_access& a) const {
  if (a.thread < threads_) return;
  a.thread -= threads_;
  a.async_proxy = true;
}

// The current access is an agent's under a fenced view, and the earlier access (thread t,
// segment) is a generic one its issuing thread knew of: only a proxy fence was missing.
inline bool context::missing_fence(std::uint32_t t, std::uint32_t segment) const {
  if (self_ < threads_ || t >= threads_) return false;
  const auto& whole = unfenced_[self_ - threads_];
  return t < whole.size() && whole[t] > segment;
}

}  // namespace gpueq::race
