// Races across the CTAs of a cluster (issue 20 item 7): the race context sees every CTA's copy of a
// shared array as an array of its own, so a thread of CTA 0 reading CTA 1's array through a
// .shared::cluster address races with CTA 1's own store unless barrier.cluster orders them;
// bar.sync orders one CTA only, and a relaxed arrive releases nothing. Kernel:
// tests/exec/cluster_kernels.hpp.
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>

#include "../exec/cluster_kernels.hpp"
#include "../exec/harness.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace exec_test;
using namespace cluster_kernels;
namespace race = gpueq::race;

namespace {

struct cluster_run {
  std::unique_ptr<kernel> k;
  std::string text;
  race::report report;
  std::optional<exec::run_error> error;
  std::vector<std::string> regions;
};

// Records the region names the engine describes, to check which CTA's array a race is on.
struct recording_context : race::context {
  recording_context() : race::context(race::options{}) {}
  std::vector<std::string>* names = nullptr;
  void on_start(const exec::run_info& info) {
    if (names)
      for (const auto& r : info.regions) names->push_back(r.name);
    race::context::on_start(info);
  }
};

// remote: 32 threads per CTA (else 64); `tensors` replaces the exchange kernels' bindings.
cluster_run run_cluster(std::string text, bool remote = false, std::vector<exec::tensor_binding> tensors = {}) {
  cluster_run r;
  REQUIRE(!text.empty());
  r.text = std::move(text);
  r.k = load(r.text, "exchange.ptx");
  exec::launch l = !tensors.empty() ? one_cta(1, std::move(tensors))
                   : remote         ? one_cta(1, {out_int("y", 32)})
                                    : one_cta(1, {out_f32("y", 128), in_f32("x", 128), out_int("r", 256)});
  l.grid = {2, 1, 1};
  l.block = {remote ? 32u : 64u, 1, 1};
  l.cluster = {2, 1, 1};
  fixture<exec::exact_domain> f([](std::string_view, std::uint64_t e) { return rat(static_cast<long long>(e)); });
  recording_context ctx;
  ctx.names = &r.regions;
  auto o = run(*r.k, l, f.d, &ctx);
  r.error = o.error;
  r.report = ctx.result();
  return r;
}

std::uint32_t line(const cluster_run& r, std::uint32_t instruction) {
  return r.k->module.functions[0].instructions[instruction].line;
}

// A race group of `kind` between the lines holding `first` and `second`.
const race::race_group* find(const cluster_run& r, race::race_kind kind, std::string_view first, std::string_view second) {
  for (const auto& g : r.report.races)
    if (g.example.kind == kind && line(r, g.example.first.instruction) == line_of(r.text, first) &&
        line(r, g.example.second.instruction) == line_of(r.text, second))
      return &g;
  return nullptr;
}

std::string listing(const cluster_run& r) {
  std::string s;
  for (const auto& g : r.report.races)
    s += std::string(race::name(g.example.kind)) + " on " + r.regions.at(g.example.region) + " lines " +
         std::to_string(line(r, g.example.first.instruction)) + " / " + std::to_string(line(r, g.example.second.instruction)) +
         "; ";
  return s;
}

constexpr const char* first_barrier = "  barrier.cluster.arrive.release.aligned;\n  barrier.cluster.wait.acquire.aligned;\n";

}  // namespace

TEST_CASE("the cluster exchange is race-free: barrier.cluster orders each CTA's stores before the other's reads") {
  auto r = run_cluster(exchange);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK_MESSAGE(r.report.races.empty(), listing(r));
  CHECK(r.report.race_count == 0);
  // Each CTA's copy of s is an array of its own.
  CHECK(std::find(r.regions.begin(), r.regions.end(), "s@rank0") != r.regions.end());
  CHECK(std::find(r.regions.begin(), r.regions.end(), "s@rank1") != r.regions.end());
}

TEST_CASE("without the cluster barrier, reading the other CTA's shared memory races with its store") {
  // bar.sync 0 stays: it orders each CTA's own threads, not the other CTA's.
  auto r = run_cluster(exchange_with(first_barrier, ""));
  REQUIRE_MESSAGE(!r.error, r.error->message);
  const race::race_group* g =
      find(r, race::race_kind::raw, "st.shared.f32 [%r6], %f1;", "ld.shared::cluster.f32 %f2, [%r9];");
  REQUIRE_MESSAGE(g != nullptr, listing(r));
  // The two accesses are by threads of different CTAs (64 threads per CTA).
  CHECK(g->example.first.thread / 64 != g->example.second.thread / 64);
  CHECK(r.regions.at(g->example.region).starts_with("s@rank"));
  // The generic load through mapa.u64 races the same way.
  CHECK_MESSAGE(find(r, race::race_kind::raw, "st.shared.f32 [%r6], %f1;", "ld.f32 %f3, [%rd8];") != nullptr, listing(r));
}

TEST_CASE("a relaxed arrive releases nothing: the reads race with the other CTA's stores") {
  auto r = run_cluster(exchange_with("barrier.cluster.arrive.release.aligned;", "barrier.cluster.arrive.relaxed.aligned;"));
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK_MESSAGE(find(r, race::race_kind::raw, "st.shared.f32 [%r6], %f1;", "ld.shared::cluster.f32 %f2, [%r9];") != nullptr,
                listing(r));
}

TEST_CASE("a store to the other CTA's shared memory races with that CTA's own read unless a cluster barrier follows") {
  // Each thread also writes the other CTA's s[i] after reading it, with nothing ordering the
  // write after the owner's `ld.shared.f32 %f4, [%r6]`: a race across CTAs.
  auto r = run_cluster(exchange_with("  ld.shared.f32 %f4, [%r6];\n",
                                     "  ld.shared.f32 %f4, [%r6];\n  st.shared::cluster.f32 [%r9], %f4;\n"));
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // Which comes first depends on the schedule: either order is the race, naming both lines.
  const bool war = find(r, race::race_kind::war, "ld.shared.f32 %f4, [%r6];", "st.shared::cluster.f32 [%r9], %f4;");
  const bool raw = find(r, race::race_kind::raw, "st.shared::cluster.f32 [%r9], %f4;", "ld.shared.f32 %f4, [%r6];");
  CHECK_MESSAGE((war || raw), listing(r));
}

TEST_CASE("a remote mbarrier arrive releases the arriving CTA's store to the waiting CTA") {
  auto r = run_cluster(remote_arrive, true);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK_MESSAGE(r.report.races.empty(), listing(r));
  CHECK(r.report.barriers.empty());
}

TEST_CASE("a store to another CTA's shared memory after the remote arrive races with the owner's read") {
  auto r = run_cluster(exchange_with("  st.shared::cluster.u32 [%r8], %r7;\n  mapa.shared::cluster.u32 %r9, %r3, 0;\n"
                                     "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r9];\n",
                                     "  mapa.shared::cluster.u32 %r9, %r3, 0;\n"
                                     "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r9];\n"
                                     "  st.shared::cluster.u32 [%r8], %r7;\n",
                                     remote_arrive),
                       true);
  // The owner may read s[i] before or after the store: either order is the race, naming both lines.
  const bool raw = find(r, race::race_kind::raw, "st.shared::cluster.u32 [%r8], %r7;", "ld.shared.u32 %r10, [%r6];");
  const bool war = find(r, race::race_kind::war, "ld.shared.u32 %r10, [%r6];", "st.shared::cluster.u32 [%r8], %r7;");
  CHECK_MESSAGE((raw || war), listing(r));
}

TEST_CASE("a multicast copy is ordered before each CTA's reads by that CTA's mbarrier; without the wait, a race") {
  auto ok = run_cluster(multicast, true, {out_f32("y", 64), in_f32("x", 32)});
  REQUIRE_MESSAGE(!ok.error, ok.error->message);
  CHECK_MESSAGE(ok.report.races.empty(), listing(ok));
  // Nobody waits: the reads of buf race with the copy's writes (one group for the line pair).
  auto r = run_cluster(exchange_with("WAIT:\n  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r3], 0;\n  @!%p4 bra WAIT;\n",
                                     "WAIT:\n", multicast),
                       true, {out_f32("y", 64), in_f32("x", 32)});
  REQUIRE_MESSAGE(!r.error, r.error->message);
  const char* copy =
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r4], [%rd2], 128, [%r3], %rs1;";
  const race::race_group* g = find(r, race::race_kind::raw, copy, "ld.shared.f32 %f1, [%r6];");
  REQUIRE_MESSAGE(g != nullptr, listing(r));
  CHECK(r.regions.at(g->example.region).starts_with("buf@rank"));
}
