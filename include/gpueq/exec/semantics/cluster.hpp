// Thread-block clusters (semantics of engine<D, O>, declared in exec/engine.hpp): the cluster
// special registers, barrier.cluster.arrive/wait, mapa, getctarank, and the distributed shared
// memory that ld/st/atom on .shared::cluster reach (issue 20 item 7).
//
// How a cluster runs. A launch with a cluster shape (launch::cluster, the spec's "cluster") runs
// every CTA of one cluster in one engine run, as one array of threads: thread t belongs to the CTA
// of cluster rank t / T (T: threads per CTA) and is thread t % T of it. %cluster_ctarank is
// x + y*cx + z*cx*cy over %cluster_ctaid (x fastest); %ctaid is the cluster's first CTA
// (launch::cta) plus %cluster_ctaid. The scheduler treats the cluster's threads as it treats a
// CTA's (round robin in that order). Each CTA has its own shared memory, its own sixteen CTA
// barriers (bar.sync and named barriers count and wait per CTA: barrier key 16 * (rank + 1) + id,
// exec/sync.hpp) and its own live-thread count for barriers without a count. Warps are counted
// across the array, so a CTA's thread count must be a multiple of 32 in a cluster of more than
// one CTA (a clear error otherwise). Without a cluster shape nothing here changes the run: one
// CTA, the implicit 1x1x1 cluster (%cluster_ctarank 0, %cluster_nctarank 1, %clusterid =
// %ctaid, %is_explicit_cluster 0), mapa to rank 0 gives its own address back.
//
// The address of another CTA's shared memory. Shared memory is one state space whose addresses
// are offsets (below 2^24; a CTA has at most 227 KiB). A .shared::cluster address that names a
// CTA explicitly carries (rank + 1) << 24 above the offset; an address without those bits (every
// .shared::cta address, and a symbol's) is the executing thread's own CTA, as PTX says a
// .shared::cta address is a valid .shared::cluster address of the executing CTA. mapa sets the
// bits, getctarank reads them, and the engine's locate finds the shared array by the offset and
// then takes CTA rank's copy of it. Generic addresses are the shared window plus the same. Each
// CTA's copy of a shared array is a region of its own, named `array@rankN` in cluster runs, so
// the race context sees the copies as distinct arrays and an access to CTA 1's array by a thread
// of CTA 0 races with CTA 1's own accesses unless a barrier.cluster (or an mbarrier) orders them.
// ld/st/atom with .shared::cta are not told apart from .shared::cluster (the decoder keeps one
// space): a .shared::cta access through another CTA's address, undefined in PTX, reaches that
// CTA here.
//
// barrier.cluster: `arrive` registers the thread on the cluster barrier's open generation without
// waiting (releasing its memory accesses, unless `.relaxed`); `wait` waits until that generation
// has completed, that is until every non-exited thread of the cluster has arrived (an exiting
// thread no longer holds it back, as PTX says), and acquires it. A second arrive before the wait,
// or a wait without an arrive, is an error (PTX: undefined behaviour). In the race context the
// resource is polled like an mbarrier (exec/sync.hpp): arrivals are registrations, the wait is
// on_barrier_acquire of the generation the thread arrived on.
//
// mbarrier operations on another CTA's address (mbarrier.arrive.release.cluster.shared::cluster)
// reach the mbarrier object in that CTA's copy of the array, as any shared access does; only
// arrivals (returning no state) and expect_tx/complete_tx may, the rest is an error (mbarrier.hpp,
// mbarrier_at; region_rank_ says whose copy a region is). Multicast copies (bulk_copy.hpp) land
// in, and complete on, each named CTA's copy the same way.
#pragma once

#include <gpueq/exec/engine.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// Checks the launch's cluster shape (against the kernel's .reqnctapercluster and .explicitcluster
// too: a kernel that declares a cluster needs a cluster launch) and sets the cluster state; returns the run's thread count
// (every thread of the cluster). Part of setup.
template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::cluster_setup() {
  clustered_ = l_.clustered();
  cta_threads_ = l_.threads();
  cluster_ctas_ = l_.cluster_ctas();
  if (clustered_) {
    auto shape = [](const dim3& d) {
      return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
    };
    for (std::size_t i = 0; i < 3; ++i) {
      if (l_.cluster[i] == 0) fail(error_kind::unsupported, 0, "cluster shape " + shape(l_.cluster) + " has an extent 0");
      if (l_.grid[i] % l_.cluster[i] != 0)
        fail(error_kind::unsupported, 0,
             "the grid " + shape(l_.grid) + " is not a whole number of clusters of " + shape(l_.cluster));
      if (l_.cta[i] % l_.cluster[i] != 0)
        fail(error_kind::unsupported, 0,
             "CTA " + shape(l_.cta) + " is not the first CTA of a cluster of " + shape(l_.cluster));
    }
    if (cluster_ctas_ > max_cluster_ctas)
      fail(error_kind::unsupported, 0,
           "a cluster of " + std::to_string(cluster_ctas_) + " CTAs: at most " + std::to_string(max_cluster_ctas) +
               " (8 portable, 16 with the non-portable size attribute)");
    if (cluster_ctas_ > 1 && cta_threads_ % warp_size != 0)
      fail(error_kind::unsupported, 0,
           "gpueq runs the CTAs of a cluster as one array of threads and needs each CTA's thread count to be a "
           "multiple of the warp size; the block " + shape(l_.block) + " has " + std::to_string(cta_threads_));
  }
  // The kernel's own cluster directives (`__cluster_dims__` gives both) must agree with the launch.
  // The shape is not taken from the PTX: the spec says how the kernel is launched.
  bool explicit_cluster = false;
  std::optional<dim3> required;
  for (const ptx::performance_directive& dir : p_.function->directives) {
    const std::string_view name = p_.str(dir.name);
    explicit_cluster = explicit_cluster || name == ".explicitcluster";
    if (name != ".reqnctapercluster") continue;
    required = dim3{1, 1, 1};
    for (std::size_t i = 0; i < dir.values.size() && i < 3; ++i) (*required)[i] = static_cast<std::uint32_t>(dir.values[i]);
  }
  const std::string declared =
      required ? ".reqnctapercluster " + std::to_string((*required)[0]) + ", " + std::to_string((*required)[1]) + ", " +
                     std::to_string((*required)[2])
               : std::string(".explicitcluster");
  if ((required || explicit_cluster) && !clustered_)
    fail(error_kind::unsupported, 0,
         "the kernel declares " + declared + " (__cluster_dims__ or a cluster launch) but the launch has no cluster " +
             "shape (a spec's \"cluster\"" +
             (required ? ": [" + std::to_string((*required)[0]) + ", " + std::to_string((*required)[1]) + ", " +
                             std::to_string((*required)[2]) + "]"
                       : std::string()) +
             ")");
  if (required && *required != l_.cluster)
    fail(error_kind::unsupported, 0,
         "the kernel declares " + declared + " but the launch's cluster shape is " + std::to_string(l_.cluster[0]) + "x" +
             std::to_string(l_.cluster[1]) + "x" + std::to_string(l_.cluster[2]));
  const std::uint32_t n = cta_threads_ * cluster_ctas_;
  cta_live_.assign(cluster_ctas_, cta_threads_);
  cluster_arrived_.assign(n, 0);  // (without a cluster, barrier.cluster orders the one CTA's threads)
  cluster_relaxed_.assign(n, false);
  rank_region_.clear();
  region_rank_.clear();
  return n;
}

// In a cluster run, every CTA past rank 0 gets its own copy of each shared array (rank 0's are the
// regions layout_memory made, renamed array@rank0); copies are not in the address search, locate
// reaches them through rank_region_. Part of layout_memory, before the regions are described.
template <value_domain D, observer O>
inline void engine<D, O>::cluster_layout() {
  first_copy_ = static_cast<std::uint32_t>(regions_.size());
  if (!clustered_) return;
  const std::uint32_t k = cluster_ctas_;
  rank_region_.assign(std::size_t{first_copy_} * k, ~0u);
  std::vector<std::uint32_t> shared;
  for (std::uint32_t i = 0; i < first_copy_; ++i)
    if (regions_[i].space == memory_space::shared) shared.push_back(i);
  for (std::uint32_t i : shared) {
    rank_region_[std::size_t{i} * k] = i;
    regions_[i].name += "@rank0";
  }
  for (std::uint32_t r = 1; r < k; ++r)
    for (std::uint32_t i : shared) {
      region<real> copy;
      copy.space = memory_space::shared;
      std::string name = regions_[i].name;
      copy.name = name.substr(0, name.size() - 1) + std::to_string(r);
      copy.base = regions_[i].base;
      copy.bytes = regions_[i].bytes;
      copy.element_bytes = regions_[i].element_bytes;
      copy.byte_indexed = regions_[i].byte_indexed;
      rank_region_[std::size_t{i} * k + r] = static_cast<std::uint32_t>(regions_.size());
      regions_.push_back(std::move(copy));
      region_rank_.resize(regions_.size(), 0);
      region_rank_.back() = r;
    }
}

template <value_domain D, observer O>
inline std::uint64_t engine<D, O>::cluster_special(std::uint32_t t, special_reg s) const {
  const std::uint32_t rank = rank_of(t);
  const dim3 c = clustered_ ? l_.cluster : dim3{1, 1, 1};
  const dim3 in{rank % c[0], rank / c[0] % c[1], rank / (c[0] * c[1])};
  switch (s) {
    case special_reg::cluster_ctaid_x: return in[0];
    case special_reg::cluster_ctaid_y: return in[1];
    case special_reg::cluster_ctaid_z: return in[2];
    case special_reg::cluster_nctaid_x: return c[0];
    case special_reg::cluster_nctaid_y: return c[1];
    case special_reg::cluster_nctaid_z: return c[2];
    case special_reg::clusterid_x: return l_.cta[0] / c[0];
    case special_reg::clusterid_y: return l_.cta[1] / c[1];
    case special_reg::clusterid_z: return l_.cta[2] / c[2];
    case special_reg::nclusterid_x: return l_.grid[0] / c[0];
    case special_reg::nclusterid_y: return l_.grid[1] / c[1];
    case special_reg::nclusterid_z: return l_.grid[2] / c[2];
    case special_reg::cluster_ctarank: return rank;
    case special_reg::cluster_nctarank: return cluster_ctas_;
    case special_reg::is_explicit_cluster: return clustered_ ? 1 : 0;
    default: return 0;  // %smid, %nsmid, %gridid read as 0
  }
}

// The CTA rank a shared-space address names (see the header comment), with the rank bits taken
// off addr. Only in cluster runs: without one, shared addresses are offsets as they always were.
template <value_domain D, observer O>
inline std::uint32_t engine<D, O>::cluster_rank_of(std::uint32_t t, std::uint64_t& addr) {
  const std::uint64_t field = addr >> rank_shift;
  if (field == 0) return rank_of(t);
  if (field > cluster_ctas_)
    fail_at(error_kind::out_of_bounds, t,
            "shared address 0x" + hex(addr) + " names CTA rank " + std::to_string(field - 1) + " of a cluster of " +
                std::to_string(cluster_ctas_) + " CTAs");
  addr &= (std::uint64_t{1} << rank_shift) - 1;
  return static_cast<std::uint32_t>(field - 1);
}

// A place in rank 0's copy of a shared array as the same place in CTA rank's copy.
template <value_domain D, observer O>
inline auto engine<D, O>::cluster_place(const place& p, std::uint32_t rank) -> place {
  if (!clustered_ || p.index >= first_copy_ || p.r->space != memory_space::shared) return p;
  const std::uint32_t i = rank_region_[std::size_t{p.index} * cluster_ctas_ + rank];
  return place{&regions_[i], i, p.offset};
}

// mapa{.shared::cluster}.type d, a, rank: a's shared-memory place in CTA `rank`'s copy;
// getctarank{.shared::cluster}.type d, a: the rank whose shared memory a is in. Without
// .shared::cluster the addresses are generic and must be in the shared window.
template <value_domain D, observer O>
inline void engine<D, O>::cluster_address(std::uint32_t t, const xinstr& x) {
  const bool mapa = x.op == ptx::opcode::mapa;
  const value a = read(t, x.ops[1]);
  std::uint64_t addr = to_bits(a, t);
  const bool generic = !x.has_space;
  if (x.has_space && x.space != ptx::state_space::shared)
    fail_at(error_kind::unsupported, t, "state space other than .shared::cluster");
  if (generic) {
    if (addr < address::shared_window || addr >= address::shared_window + address::window_size)
      fail_at(error_kind::out_of_bounds, t,
              "generic address 0x" + hex(addr) + " is not in shared memory (PTX: undefined for " +
                  std::string(mapa ? "mapa" : "getctarank") + ")");
    addr -= address::shared_window;
  }
  const std::uint64_t field = addr >> rank_shift;
  if (field > cluster_ctas_)
    fail_at(error_kind::out_of_bounds, t, "shared address 0x" + hex(addr) + " names no CTA of the cluster");
  const std::uint64_t offset = addr & ((std::uint64_t{1} << rank_shift) - 1);
  if (!mapa) {
    write(t, x.ops[0], value::of_bits(field ? field - 1 : rank_of(t)));
    return;
  }
  const std::uint64_t rank = to_bits(read(t, x.ops[2]), t) & 0xffffffffu;
  if (rank >= cluster_ctas_)
    fail_at(error_kind::out_of_bounds, t,
            "mapa names CTA rank " + std::to_string(rank) + " of a cluster of " + std::to_string(cluster_ctas_) +
                " CTA(s)" + (clustered_ ? "" : " (the launch has no cluster shape: the implicit cluster of one CTA)"));
  std::uint64_t d = offset + (clustered_ ? (rank + 1) << rank_shift : 0) + (generic ? address::shared_window : 0);
  if (bytes(x.type) == 4) d &= 0xffffffffu;
  value v = value::of_bits(d);
  v.provenance = a.t == value::tag::bits ? a.provenance : 0;
  write(t, x.ops[0], v);
}

// barrier.cluster.arrive{.release,.relaxed}{.aligned} / barrier.cluster.wait{.acquire}{.aligned}.
template <value_domain D, observer O>
inline void engine<D, O>::cluster_barrier(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  for (std::uint32_t m : x.unknown_mods)
    if (p_.str(m) != ".wait") fail_at(error_kind::unsupported, t, "modifier " + std::string(p_.str(m)));
  const bool arrive = x.has(flag::arrive), wait = has_mod(x, ".wait");
  if (arrive == wait) fail_at(error_kind::unsupported, t, "barrier.cluster needs exactly one of .arrive and .wait");
  const barrier_key key{barrier_kind::cluster, 0};
  open_generation& g = sync_.at(key);
  if (arrive) {
    if (cluster_arrived_[t])
      fail_at(error_kind::barrier, t,
              "barrier.cluster.arrive again before barrier.cluster.wait (generation " +
                  std::to_string(cluster_arrived_[t]) + "; PTX: undefined)");
    const bool relaxed = this->relaxed(pc);
    if (!g.open()) {
      g.all = true;
      g.started_by = pc;
    }
    const barrier_registration r{t, false, pc};
    g.regs.push_back(r);
    cluster_arrived_[t] = g.generation;
    cluster_relaxed_[t] = relaxed;
    if (!relaxed) o_.on_barrier_register(r, key, g.generation, 0);
    pc_[t] = pc + 1;
    cluster_try_complete();
    return;
  }
  const std::uint32_t arrived = cluster_arrived_[t];
  if (!arrived)
    fail_at(error_kind::barrier, t, "barrier.cluster.wait without a barrier.cluster.arrive before it (PTX: undefined)");
  if (g.generation > arrived) {  // completed: acquire it and go on
    o_.on_barrier_acquire(barrier_registration{t, true, pc}, key, arrived);
    cluster_arrived_[t] = 0;
    pc_[t] = pc + 1;
    return;
  }
  status_[t] = status::at_barrier;  // cluster_try_complete resumes it
  barrier_of_[t] = key;
}

// Completes the cluster barrier's open generation once every live thread of the cluster has
// arrived, and resumes its waiters.
template <value_domain D, observer O>
inline void engine<D, O>::cluster_try_complete() {
  const barrier_key key{barrier_kind::cluster, 0};
  open_generation& g = sync_.at(key);
  if (!g.open()) return;
  std::uint32_t live_arrived = 0;
  for (const barrier_registration& r : g.regs) live_arrived += status_[r.thread] != status::exited;
  if (live_arrived < live_) return;
  std::vector<barrier_registration> regs = std::move(g.regs), released;
  g.regs.clear();
  for (const barrier_registration& r : regs)
    if (!cluster_relaxed_[r.thread]) released.push_back(r);
  const std::uint32_t generation = g.generation++;
  ++stats_.barrier_instances;
  o_.on_barrier_complete(barrier_instance{key, generation, static_cast<std::uint32_t>(regs.size()), released});
  for (std::uint32_t u = 0; u < n_; ++u)
    if (status_[u] == status::at_barrier && barrier_of_[u] == key && cluster_arrived_[u] == generation) {
      o_.on_barrier_acquire(barrier_registration{u, true, pc_[u]}, key, generation);
      cluster_arrived_[u] = 0;
      status_[u] = status::runnable;
      ++pc_[u];
    }
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
