// The race context's check of CUDA's barrier-divergence rule (strict mode), defined out of line
// so that race/context.hpp stays one screenful shorter; declared and documented there.
#pragma once

#include <gpueq/race/context.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpueq::race {

inline void context::check_divergence(const exec::barrier_instance& inst) {
  if (inst.participants.empty()) return;
  const std::uint32_t at_first = inst.participants.front().instruction;
  if (inst.participants.size() == threads_ &&
      std::all_of(inst.participants.begin(), inst.participants.end(),
                  [&](const exec::barrier_registration& r) { return r.instruction == at_first; }))
    return;  // every thread, one instruction: the common case, decided without allocating
  std::vector<std::uint8_t> present(threads_, 0);
  for (const auto& r : inst.participants) present[r.thread] = 1;
  std::vector<thread_group> missing;  // by exit instruction, in order of the first such thread
  std::uint32_t first_missing = detail::none;
  for (std::uint32_t t = 0; t < threads_; ++t) {
    if (present[t]) continue;
    if (first_missing == detail::none) first_missing = t;
    auto it = std::find_if(missing.begin(), missing.end(),
                           [&](const thread_group& g) { return g.instruction == exit_at_[t]; });
    if (it == missing.end()) {
      missing.push_back({});
      missing.back().instruction = exit_at_[t];
      it = missing.end() - 1;
    }
    it->add(t);
  }
  std::vector<thread_group> arrived = by_instruction(inst.participants);
  if (missing.empty() && arrived.size() <= 1) return;
  // The first offender: the first missing thread, or the first registrant at another instruction.
  std::uint32_t offender = first_missing;
  for (const auto& r : inst.participants)
    if (r.instruction != arrived.front().instruction && (offender == detail::none || r.thread < offender))
      offender = r.thread;
  exec::barrier_registration at = inst.participants.front();
  at.thread = offender;
  auto& d = diagnose(barrier_problem::divergence, inst.key, inst.generation, at);
  d.count = static_cast<std::uint32_t>(inst.participants.size());
  d.arrived = std::move(arrived);
  d.missing = std::move(missing);
}

}  // namespace gpueq::race
