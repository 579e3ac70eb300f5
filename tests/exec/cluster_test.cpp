// Thread-block clusters (exec/semantics/cluster.hpp): the cluster special registers, barrier.cluster,
// mapa and getctarank, loads and stores of another CTA's shared memory, CTA barriers that stay per
// CTA, and the errors for launches and instructions gpueq refuses. The PTX passes
// `ptxas -arch=sm_90a`; expected values are worked out by hand in the comments.
#include "cluster_kernels.hpp"
#include "harness.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace exec_test;
using cluster_kernels::exchange;
using cluster_kernels::remote_arrive;
using cluster_kernels::exchange_with;
using cluster_kernels::multicast;

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

namespace {

// Every thread writes ten special registers to y[(rank * ntid + tid) * 10 + k].
constexpr const char* specials = R"(
.visible .entry specials(.param .u64 y)
.explicitcluster
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  mul.lo.s32 %r4, %r4, 10;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r5, %ctaid.x;
  st.global.u32 [%rd3], %r5;
  mov.u32 %r5, %ctaid.y;
  st.global.u32 [%rd3+4], %r5;
  mov.u32 %r5, %cluster_ctaid.x;
  st.global.u32 [%rd3+8], %r5;
  mov.u32 %r5, %cluster_ctaid.y;
  st.global.u32 [%rd3+12], %r5;
  st.global.u32 [%rd3+16], %r1;
  mov.u32 %r5, %cluster_nctarank;
  st.global.u32 [%rd3+20], %r5;
  mov.u32 %r5, %clusterid.x;
  st.global.u32 [%rd3+24], %r5;
  mov.u32 %r5, %nclusterid.y;
  st.global.u32 [%rd3+28], %r5;
  mov.u32 %r5, %cluster_nctaid.y;
  st.global.u32 [%rd3+32], %r5;
  mov.pred %p1, %is_explicit_cluster;
  selp.u32 %r5, 1, 0, %p1;
  st.global.u32 [%rd3+36], %r5;
  ret;
}
)";

// Rank 0 alone runs bar.sync 0 between two stores; rank 1 goes straight to the cluster barrier.
// CTA barriers count per CTA: rank 0's bar.sync completes with its own 32 threads. (Were it one
// barrier over the cluster, rank 0 would wait for rank 1, which waits at the cluster barrier for
// rank 0: a deadlock.) Each thread of rank 1 then reads rank 0's s[31 - i]: y[i] = 2 (31 - i).
constexpr const char* per_cta_bar = R"(
.visible .entry per_cta_bar(.param .u64 y)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 s[128];
  ld.param.u64 %rd1, [y];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, s;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  setp.ne.s32 %p1, %r2, 0;
  @%p1 bra WAIT;
  st.shared.u32 [%r5], %r1;
  bar.sync 0;
  ld.shared.u32 %r6, [%r5];
  shl.b32 %r6, %r6, 1;
  st.shared.u32 [%r5], %r6;
WAIT:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 bra DONE;
  sub.s32 %r7, 31, %r1;
  shl.b32 %r8, %r7, 2;
  add.s32 %r9, %r3, %r8;
  mapa.shared::cluster.u32 %r10, %r9, 0;
  ld.shared::cluster.u32 %r11, [%r10];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
DONE:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

exec::launch cluster_launch(exec::dim3 grid, exec::dim3 block, exec::dim3 cluster, exec::dim3 first,
                            std::vector<exec::tensor_binding> tensors) {
  exec::launch l = one_cta(1, std::move(tensors));
  l.grid = grid;
  l.block = block;
  l.cluster = cluster;
  l.cta = first;
  return l;
}

values iota_plus_one_cluster() {
  return [](std::string_view, std::uint64_t e) { return rat(static_cast<long long>(e) + 1); };
}

}  // namespace

TEST_CASE("the cluster special registers, CTA by CTA") {
  auto k = load(specials, "specials.ptx");
  // Grid 4x4, clusters of 2x2: the run of the cluster whose first CTA is (2, 2) has ranks
  // 0 = (2,2), 1 = (3,2), 2 = (2,3), 3 = (3,3) (x fastest); cluster id (1, 1), 2x2 clusters.
  exec::launch l = cluster_launch({4, 4, 1}, {32, 1, 1}, {2, 2, 1}, {2, 2, 0}, {out_int("y", 4 * 32 * 10)});
  fixture<exec::exact_domain> f(iota_plus_one_cluster());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (long long rank = 0; rank < 4; ++rank)
    for (long long t = 0; t < 32; ++t) {
      CAPTURE(rank);
      CAPTURE(t);
      const long long want[10] = {2 + rank % 2, 2 + rank / 2, rank % 2, rank / 2, rank, 4, 1, 2, 2, 1};
      for (int i = 0; i < 10; ++i) CHECK(f.at(*r.out["y"][static_cast<std::size_t>((rank * 32 + t) * 10 + i)], l) == rat(want[i]));
    }

  // Without a cluster shape: the implicit cluster of one CTA. CTA (3, 1) of a 4x4 grid is rank 0
  // of a 1x1 cluster whose id is its own CTA id; %is_explicit_cluster is false. (The kernel
  // without its .explicitcluster, which asks for a cluster launch.)
  std::string plain = specials;
  plain.erase(plain.find(".explicitcluster\n"), std::string(".explicitcluster\n").size());
  auto pk = load(plain, "plain.ptx");
  exec::launch one = one_cta(32, {out_int("y", 32 * 10)});
  one.grid = {4, 4, 1};
  one.cta = {3, 1, 0};
  auto s = run(*pk, one, f.d);
  REQUIRE_MESSAGE(!s.error, s.error->message);
  for (long long t = 0; t < 32; ++t) {
    const long long want[10] = {3, 1, 0, 0, 0, 1, 3, 4, 1, 0};
    for (int i = 0; i < 10; ++i) CHECK(f.at(*s.out["y"][static_cast<std::size_t>(t * 10 + i)], one) == rat(want[i]));
  }
}

TEST_CASE_TEMPLATE("two CTAs of a cluster read each other's shared memory through mapa", D, DOMAINS) {
  auto k = load(exchange, "exchange.ptx");
  // Grid 4 in clusters of 2: the run of the second cluster holds CTAs 2 and 3.
  exec::launch l = cluster_launch({4, 1, 1}, {64, 1, 1}, {2, 1, 1}, {2, 0, 0},
                                  {out_f32("y", 256), in_f32("x", 256), out_int("r", 512)});
  fixture<D> f(iota_plus_one_cluster());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // x[j] = j + 1. CTA c (2 or 3), thread i: own = 64c + i + 1, other = 64(c ^ 1) + i + 1;
  // y = own + 2 other + 4 other = own + 6 other. Rank of the mapped address: the other CTA's
  // (c - 2) ^ 1; of the thread's own generic address: its own, c - 2.
  for (long long c = 2; c < 4; ++c)
    for (long long i = 0; i < 64; ++i) {
      CAPTURE(c);
      CAPTURE(i);
      const auto e = static_cast<std::size_t>(64 * c + i);
      CHECK(f.at(*r.out["y"][e], l) == rat(64 * c + i + 1 + 6 * (64 * (c ^ 1) + i + 1)));
      CHECK(f.at(*r.out["r"][2 * e], l) == rat((c - 2) ^ 1));
      CHECK(f.at(*r.out["r"][2 * e + 1], l) == rat(c - 2));
    }
  // The CTAs of the first cluster are another run: nothing of theirs is written here.
  CHECK(!r.out["y"][0].has_value());
  // Two cluster barrier generations and one bar.sync per CTA.
  CHECK(r.stats.barrier_instances == 4);
}

TEST_CASE_TEMPLATE("a CTA arrives on another CTA's mbarrier through mapa", D, DOMAINS) {
  auto k = load(remote_arrive, "remote_arrive.ptx");
  exec::launch l = cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {0, 0, 0}, {out_int("y", 32)});
  fixture<D> f(iota_plus_one_cluster());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (long long i = 0; i < 32; ++i) CHECK(f.at(*r.out["y"][static_cast<std::size_t>(i)], l) == rat(100 + i));
  // Two cluster barrier generations and the mbarrier's one phase.
  CHECK(r.stats.barrier_instances == 3);
}

TEST_CASE("only arrivals reach another CTA's mbarrier, and a remote arrive returns no state") {
  // remote_arrive with rank 1's threads doing what only the owning CTA may do on rank 0's bar
  // (reached through mapa, %r9): wait on it, initialize it, or arrive taking a state back.
  const std::string arrive = "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r9];\n";
  struct variant {
    std::string to, at, what;  // the replacement, the instruction that fails, the message
  } variants[] = {
      {arrive + "  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r9], 0;\n", "%p4, [%r9]",
       "mbarrier bar@rank0[0] (shared byte 0) is CTA rank 0's: mbarrier.try_wait reaches only the executing "
       "CTA's own mbarriers (.shared::cta), and this thread is in rank 1"},
      {"  mbarrier.init.shared::cta.b64 [%r9], 32;\n" + arrive, "[%r9], 32", "is CTA rank 0's: mbarrier.init reaches only"},
      {"  mbarrier.arrive.release.cluster.shared::cluster.b64 %rd4, [%r9];\n", "%rd4, [%r9]",
       "an arrive on mbarrier bar@rank0[0] (shared byte 0), CTA rank 0's mbarrier, returns no state: its "
       "destination must be the sink `_`"},
  };
  exec::launch l = cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {0, 0, 0}, {out_int("y", 32)});
  fixture<exec::exact_domain> f(iota_plus_one_cluster());
  for (const auto& v : variants) {
    CAPTURE(v.to);
    std::string text = exchange_with(arrive, v.to, remote_arrive);
    REQUIRE(!text.empty());
    auto k = load(text, "remote.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "remote.ptx:" + std::to_string(line_of(text, v.at)) + ": thread"), e.message);
    CHECK_MESSAGE(contains(e.message, v.what), e.message);
  }
}

TEST_CASE("CTA barriers stay per CTA in a cluster run") {
  auto k = load(per_cta_bar, "per_cta_bar.ptx");
  exec::launch l = cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {0, 0, 0}, {out_int("y", 32)});
  fixture<exec::exact_domain> f(iota_plus_one_cluster());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (long long i = 0; i < 32; ++i) CHECK(f.at(*r.out["y"][static_cast<std::size_t>(i)], l) == rat(2 * (31 - i)));
}

TEST_CASE("without a cluster shape, mapa to rank 0 is the address itself and barrier.cluster orders the CTA") {
  auto k = load(per_cta_bar, "per_cta_bar.ptx");
  // One CTA: rank 0 runs the stores and bar.sync, nobody reads back (the rank-1 branch is never
  // taken): no error, nothing written.
  exec::launch l = one_cta(32, {out_int("y", 32)});
  fixture<exec::exact_domain> f(iota_plus_one_cluster());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(!r.out["y"][0].has_value());
  CHECK(r.stats.barrier_instances == 3);  // bar.sync 0 and the two cluster barrier generations

  // mapa of rank 1 in the implicit one-CTA cluster is out of bounds.
  auto x = load(exchange, "exchange.ptx");
  exec::launch e = one_cta(64, {out_f32("y", 64), in_f32("x", 64), out_int("r", 128)});
  auto err = expect_error(*x, e, f.d);
  CHECK(err.kind == exec::error_kind::out_of_bounds);
  CHECK_MESSAGE(contains(err.message, "mapa names CTA rank 1 of a cluster of 1 CTA(s)"), err.message);
  CHECK(contains(err.message, "exchange.ptx:" + std::to_string(line_of(exchange, "mapa.shared::cluster"))));
}

TEST_CASE("cluster launches and instructions gpueq refuses, with the reason") {
  fixture<exec::exact_domain> f(iota_plus_one_cluster());
  auto k = load(exchange, "exchange.ptx");
  auto tensors = [] { return std::vector{out_f32("y", 256), in_f32("x", 256), out_int("r", 512)}; };
  SUBCASE("a grid that is not a whole number of clusters") {
    auto err = expect_error(*k, cluster_launch({3, 1, 1}, {64, 1, 1}, {2, 1, 1}, {0, 0, 0}, tensors()), f.d);
    CHECK_MESSAGE(contains(err.message, "the grid 3x1x1 is not a whole number of clusters of 2x1x1"), err.message);
  }
  SUBCASE("a run that does not start at a cluster's first CTA") {
    auto err = expect_error(*k, cluster_launch({4, 1, 1}, {64, 1, 1}, {2, 1, 1}, {1, 0, 0}, tensors()), f.d);
    CHECK_MESSAGE(contains(err.message, "CTA 1x0x0 is not the first CTA of a cluster of 2x1x1"), err.message);
  }
  SUBCASE("a CTA whose threads are not whole warps") {
    auto err = expect_error(*k, cluster_launch({2, 1, 1}, {48, 1, 1}, {2, 1, 1}, {0, 0, 0}, tensors()), f.d);
    CHECK_MESSAGE(contains(err.message, "multiple of the warp size; the block 48x1x1 has 48"), err.message);
  }
  SUBCASE("more than 16 CTAs") {
    auto err = expect_error(*k, cluster_launch({32, 1, 1}, {64, 1, 1}, {32, 1, 1}, {0, 0, 0}, tensors()), f.d);
    CHECK_MESSAGE(contains(err.message, "a cluster of 32 CTAs: at most 16"), err.message);
  }
  SUBCASE("a kernel that declares a cluster, launched without one or with another shape") {
    auto sp = load(specials, "specials.ptx");
    exec::launch one = one_cta(32, {out_int("y", 320)});
    auto err = expect_error(*sp, one, f.d);
    CHECK_MESSAGE(contains(err.message, "the kernel declares .explicitcluster (__cluster_dims__ or a cluster launch) but the "
                                        "launch has no cluster shape"),
                  err.message);
    std::string text = exchange;
    text.insert(text.find("{"), ".reqnctapercluster 2, 1, 1\n");
    auto rq = load(text, "req.ptx");
    auto e2 = expect_error(*rq, cluster_launch({4, 1, 1}, {64, 1, 1}, {4, 1, 1}, {0, 0, 0}, tensors()), f.d);
    CHECK_MESSAGE(contains(e2.message, "the kernel declares .reqnctapercluster 2, 1, 1 but the launch's cluster shape is 4x1x1"),
                  e2.message);
    auto ok = run(*rq, cluster_launch({4, 1, 1}, {64, 1, 1}, {2, 1, 1}, {0, 0, 0}, tensors()), f.d);
    CHECK_MESSAGE(!ok.error, ok.error->message);
  }
  SUBCASE("a wait without an arrive") {
    constexpr const char* body = R"(
.visible .entry w()
{
  barrier.cluster.wait;
  ret;
}
)";
    auto w = load(body, "w.ptx");
    auto err = expect_error(*w, cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {0, 0, 0}, {}), f.d);
    CHECK(err.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(err.message, "w.ptx:" + std::to_string(line_of(body, "barrier.cluster.wait"))), err.message);
    CHECK(contains(err.message, "barrier.cluster.wait without a barrier.cluster.arrive"));
  }
  SUBCASE("two arrives without a wait") {
    constexpr const char* body = R"(
.visible .entry a()
{
  barrier.cluster.arrive;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
    auto a = load(body, "a.ptx");
    auto err = expect_error(*a, cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {0, 0, 0}, {}), f.d);
    CHECK(err.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(err.message, "a.ptx:" + std::to_string(line_of(body, "barrier.cluster.arrive;\n  barrier.cluster.wait"))),
                  err.message);
    CHECK(contains(err.message, "barrier.cluster.arrive again before barrier.cluster.wait"));
  }
  SUBCASE("a cluster barrier some thread never arrives at is a deadlock naming it") {
    // Rank 1 waits at bar.sync 0 with a count of 64 threads, which its 32 never reach; rank 0
    // waits at the cluster barrier for rank 1.
    constexpr const char* body = R"(
.visible .entry d()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.s32 %p1, %r1, 1;
  @%p1 bar.sync 0, 64;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
    auto d = load(body, "d.ptx");
    auto err = expect_error(*d, cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {0, 0, 0}, {}), f.d);
    CHECK(err.kind == exec::error_kind::deadlock);
    CHECK_MESSAGE(contains(err.message, "wait at barrier.cluster d.ptx:" + std::to_string(line_of(body, "barrier.cluster.wait"))),
                  err.message);
    CHECK_MESSAGE(contains(err.message, "[cluster barrier 0 generation 1: 32 registered, all live threads expected]"), err.message);
    CHECK_MESSAGE(contains(err.message, "[barrier 0 of cluster CTA rank 1 generation 1"), err.message);
  }
}

TEST_CASE_TEMPLATE("a multicast bulk copy lands in every CTA of its ctaMask and completes on each one's mbarrier", D,
                   exec::float32_domain, exec::exact_domain, exec::symbolic_domain) {
  auto k = load(multicast, "multicast.ptx");
  exec::launch l = cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {0, 0, 0}, {out_f32("y", 64), in_f32("x", 32)});
  fixture<D> f(iota_plus_one_cluster());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // x[i] = i + 1: y[32 r + i] = (r + 1)(i + 1).
  for (std::uint32_t rank = 0; rank < 2; ++rank)
    for (std::uint32_t i = 0; i < 32; ++i) {
      CAPTURE(rank);
      CAPTURE(i);
      CHECK(f.at(*r.out["y"][32 * rank + i], l) == rat(static_cast<long long>((rank + 1) * (i + 1))));
    }
}

TEST_CASE("a multicast ctaMask naming a rank outside the cluster, or rank 1 left out, is an error") {
  exec::launch l = cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {0, 0, 0}, {out_f32("y", 64), in_f32("x", 32)});
  fixture<exec::exact_domain> f(iota_plus_one_cluster());
  {
    std::string text = exchange_with("  mov.u16 %rs1, 3;\n", "  mov.u16 %rs1, 5;\n", multicast);
    REQUIRE(!text.empty());
    auto k = load(text, "mask.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::out_of_bounds);
    CHECK_MESSAGE(contains(e.message, "the multicast ctaMask 0x5 names CTA rank 2, outside the cluster of 2"), e.message);
  }
  {  // Only rank 0 receives: rank 1's mbarrier waits for 128 bytes that never come.
    std::string text = exchange_with("  mov.u16 %rs1, 3;\n", "  mov.u16 %rs1, 1;\n", multicast);
    auto k = load(text, "mask.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::deadlock);
    CHECK_MESSAGE(contains(e.message, "128 transaction bytes pending"), e.message);
  }
}
