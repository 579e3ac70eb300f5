// Asynchronous copies (semantics of engine<D, O>, declared in exec/engine.hpp): cp.async reads
// global memory when it executes and its shared-memory writes land, as observed writes, at the
// cp.async.wait_group/wait_all that covers their commit group (commit_group is a counter in the
// engine's execute), or at a cp.async.mbarrier.arrive that hands them to an mbarrier.
#pragma once

#include <gpueq/exec/engine.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

template <value_domain D, observer O>
inline void engine<D, O>::cp_async(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}
  address_value dst = effective_address(t, x.ops[0]), src = effective_address(t, x.ops[1]);
  std::uint32_t size = static_cast<std::uint32_t>(to_bits(read(t, x.ops[2]), t));
  std::uint32_t src_size = x.ops.size() > 3 && x.ops[3].k != xoperand::kind::address
                               ? static_cast<std::uint32_t>(to_bits(read(t, x.ops[3]), t))
                               : size;
  if (size != 4 && size != 8 && size != 16) fail_at(error_kind::unsupported, t, "cp.async size");
  check_alignment(t, dst.at, size);
  check_alignment(t, src.at, size);
  place d = locate(t, ptx::state_space::shared, dst, size);
  std::uint32_t piece_w = 4;
  if (src_size) {
    place s = locate(t, ptx::state_space::global, src, src_size);
    // fp8 elements move one by one: four symbolic fp8 values do not make one 4-byte cell.
    if (s.r->element_bytes == 1 && floats::is_fp8(s.r->kind) && src_size == size) piece_w = 1;
    observe(t, s, src_size, access_kind::read, pc);
    for (std::uint32_t off = 0; off < size; off += piece_w) {
      value v = off < src_size ? load_cell(t, *s.r, s.offset + off, piece_w) : value::of_bits(0);
      copies_[t].push_back(pending_copy{copy_group_[t], pc, d.index, d.offset + off, piece_w, std::move(v)});
    }
  } else {
    for (std::uint32_t off = 0; off < size; off += piece_w)
      copies_[t].push_back(pending_copy{copy_group_[t], pc, d.index, d.offset + off, piece_w, value::of_bits(0)});
  }
}

// Lands this thread's copies of every committed group but the newest `keep` ones (wait_all:
// every copy, committed or not). Copies not yet committed never land at a wait_group.
template <value_domain D, observer O>
inline void engine<D, O>::cp_async_wait(std::uint32_t t, std::uint64_t keep, bool all) {
  std::uint64_t committed = copy_group_[t];
  auto& cs = copies_[t];
  std::vector<pending_copy> rest;
  for (auto& c : cs) {
    bool land = all || c.group + keep < committed;
    if (!land) {
      rest.push_back(std::move(c));
      continue;
    }
    land_copy(t, c);
  }
  cs = std::move(rest);
}

// A cp.async copy's shared-memory write lands, observed as `writer`'s (the thread's, or at a
// cp.async.mbarrier.arrive its async agent's).
// Semantic choice: the write is visible to the async proxy (a wgmma.mma_async's operand read, a
// TMA store's source read) without a fence.proxy.async, once it is ordered before that read (a
// cp.async.wait_group and a barrier). The ISA counts cp.async among the generic proxy's
// operations, which would ask for the proxy fence; but Triton's sm_90a cp.async -> wgmma
// pipelines have none and compute the right results on an H100 (examples/kernels/README.md,
// "On a GPU"), so gpueq does not call that compiler output racy. A plain st.shared still needs
// the fence (race/async_proxy.hpp).
template <value_domain D, observer O>
inline void engine<D, O>::land_copy(std::uint32_t writer, pending_copy& c) {
  region<real>& r = regions_[c.region];
  observe(writer, place{&r, c.region, c.offset}, c.width, access_kind::write, c.instruction, identity_of(c.v),
          atomic_op::none, true);
  r.store(c.offset, c.width, std::move(c.v));
}

// cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar] (PTX ISA, "cp.async.mbarrier.arrive"):
// the mbarrier tracks every cp.async the thread issued before it, committed to a group or not;
// once they are complete an arrive-on operation takes place on the object. Without .noinc the
// pending count first goes up by one, so that arrive-on changes no count (the thread arrives
// itself, as a rule); with .noinc it is one of the phase's expected arrivals.
// Semantic choice: the copies complete here, the schedule in which they are fast, as writes of
// the thread's asynchronous agent (the one TMA copies use, semantics/bulk_copy.hpp), which first
// acquires the thread's clock; the agent's arrive-on releases into the current phase. So a thread
// that waits on the phase reads them ordered, a thread that only passes a bar.sync races with
// them (bar.sync does not wait for cp.async), and a later cp.async.wait_group of this thread has
// none of them left to land. Not modelled: the agent is ordered after all the thread did up to
// this instruction, not only up to each copy's issue (an access of the destination between the
// two is not a race here); a cp.async.wait_all that should order them for the thread itself.
template <value_domain D, observer O>
inline void engine<D, O>::cp_async_mbarrier_arrive(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  const std::uint32_t agent = n_ + t;
  auto [key, m] = mbarrier_at(t, x, x.ops[0], pc, access_kind::atomic);
  async_issue(t, pc, false);
  for (auto& c : copies_[t]) land_copy(agent, c);
  copies_[t].clear();
  mbarrier_register(agent, key, m, pc);
  if (has_mod(x, ".noinc")) {  // the phase's pending count is at least 1 until it completes
    if (m.pending == 0)
      fail_at(error_kind::barrier, t,
              resource_name(key) + " " + mbarrier_progress(m) +
                  ": cp.async.mbarrier.arrive.noinc is one arrival more than is pending (over-arrival)");
    --m.pending;
    mbarrier_try_complete(t, key, m);
  }
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
