// The async proxy in the race context (race/async_proxy.hpp): a TMA or bulk copy's accesses are
// those of its issuing thread's agent, ordered after the thread at the issue, and before a waiter
// through the mbarrier phase its complete_tx finishes; a copy that reads shared memory sees only
// what proxy fences made visible. The correct kernels are race-free; reading a TMA destination
// before the wait is a RAW race naming the copy and the read; a TMA store of shared memory
// written without fence.proxy.async is a race reported as a missing proxy fence.
// Kernels: tests/exec/tma_kernels.hpp.
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"
#include "../exec/tma_kernels.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace exec_test;
namespace race = gpueq::race;
namespace tma = exec::tma;

namespace {

tma::tensor_map proxy_map2d(std::uint64_t rows, std::uint64_t cols, std::uint32_t box_cols, std::uint32_t box_rows) {
  tma::tensor_map m;
  m.rank = 2;
  m.global_dim = {cols, rows, 1, 1, 1};
  m.global_stride = {cols * 4, 0, 0, 0};
  m.box_dim = {box_cols, box_rows, 1, 1, 1};
  return m;
}

struct proxy_run {
  std::unique_ptr<kernel> k;
  std::string text;
  race::report report;
  exec::run_info info;
  std::optional<exec::run_error> error;
  std::uint32_t line(std::uint32_t instruction) const { return k->program.function->instructions[instruction].line; }
};

// Runs a loaded kernel under the race context, in the exact domain with inputs `v`.
proxy_run run_raced(std::unique_ptr<kernel> k, const exec::launch& l, values v) {
  proxy_run c;
  c.k = std::move(k);
  fixture<exec::exact_domain> f(std::move(v));
  race::context ctx;
  auto o = run(*c.k, l, f.d, &ctx);
  c.error = o.error;
  c.report = ctx.result();
  c.info = ctx.info();
  return c;
}

proxy_run run_proxy(std::string text, const exec::launch& l) {
  auto k = load(text, "proxy.ptx");
  proxy_run c = run_raced(std::move(k), l, [](std::string_view, std::uint64_t e) { return rat(static_cast<long long>(e)); });
  c.text = std::move(text);
  return c;
}

exec::launch proxy_load_launch() {
  exec::launch l;
  l.block = {32, 1, 1};
  l.tensors = {out_f32("y", 32), tensor("a", exec::rkind::f32, {8, 32}, true, false)};
  exec::param_binding m{false, 0};
  m.map = true;
  l.params = {{true, 0}, m};
  l.tensor_maps.push_back({"a_map", 1, proxy_map2d(8, 32, 8, 4)});
  return l;
}

exec::launch proxy_store_launch() {
  exec::launch l;
  l.block = {64, 1, 1};
  l.tensors = {tensor("y", exec::rkind::f32, {16, 32}, true, true)};
  exec::param_binding m{false, 0};
  m.map = true;
  l.params = {m};
  l.tensor_maps.push_back({"y_map", 0, proxy_map2d(16, 32, 8, 8)});
  return l;
}

std::string proxy_listing(const proxy_run& c) {
  std::string s;
  for (const auto& g : c.report.races) s += race::format(g.example, c.info) + "; ";
  return s;
}

}  // namespace

TEST_CASE("a TMA load waited for through its mbarrier is race-free") {
  auto c = run_proxy(tma_kernels::load_box(".shared .align 128 .b8 tile[128];", 0, 0, 128), proxy_load_launch());
  REQUIRE_MESSAGE(!c.error, c.error->message);
  CHECK_MESSAGE(c.report.races.empty(), proxy_listing(c));
  CHECK(c.info.agents == 32);
}

TEST_CASE("reading a TMA destination before waiting on the mbarrier races with the copy") {
  std::string text = tma_kernels::load_box(".shared .align 128 .b8 tile[128];", 0, 0, 128);
  const std::string wait = "WAIT:\n  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;\n  @!%p2 bra WAIT;\n";
  REQUIRE(text.find(wait) != std::string::npos);
  text.replace(text.find(wait), wait.size(), "READ:\n");
  text.replace(text.find("@%p1 bra WAIT;"), 14, "@%p1 bra READ;");
  text.replace(text.find("  ret;\n}"), 8, wait + "  ret;\n}");
  auto c = run_proxy(text, proxy_load_launch());
  REQUIRE_MESSAGE(!c.error, c.error->message);
  REQUIRE_MESSAGE(!c.report.races.empty(), "no race found");
  bool found = false;
  for (const auto& g : c.report.races) {
    const race::race& r = g.example;
    if (r.kind == race::race_kind::raw && r.first.async_proxy && r.first.thread == 0 &&
        c.line(r.first.instruction) == line_of(text, "cp.async.bulk.tensor") &&
        c.line(r.second.instruction) == line_of(text, "ld.shared.f32") && !r.second.async_proxy) {
      found = true;
      CHECK_FALSE(r.missing_proxy_fence);
      // The copy completes on the first phase (generation 1) of the .b64 mbarrier `bar`; the
      // report says so instead of naming the agent's segment.
      CHECK(r.first.completion.key.kind == exec::barrier_kind::mbarrier);
      CHECK(r.first.completion.generation == 1);
      std::string f = race::format(r, c.info);
      CHECK_MESSAGE(contains(f, "write by the async proxy: thread 0's TMA/bulk copy at instruction " +
                                    std::to_string(r.first.instruction) +
                                    ", completed on mbarrier bar[0] (shared byte 0) generation 1 vs read by thread"),
                    f);
      CHECK_MESSAGE(contains(f, "shared tile[byte "), f);
      auto lines = race::source_lines(c.k->module, c.k->module.functions[0]);
      std::string named = race::format(r, c.info, race::source_lookup([&](std::uint32_t i) { return lines.at(i); }));
      CHECK_MESSAGE(contains(named, "write by the async proxy: thread 0's TMA load at PTX line " +
                                        std::to_string(line_of(text, "cp.async.bulk.tensor")) + ", completed on mbarrier"),
                    named);
    }
  }
  CHECK_MESSAGE(found, proxy_listing(c));
}

TEST_CASE("a TMA store of shared memory fenced by its writers, or by the issuer after the barrier, is race-free") {
  for (bool by_issuer : {false, true}) {
    CAPTURE(by_issuer);
    auto c = run_proxy(tma_kernels::store_box(false, true, by_issuer), proxy_store_launch());
    REQUIRE_MESSAGE(!c.error, c.error->message);
    CHECK_MESSAGE(c.report.races.empty(), proxy_listing(c));
    auto red = run_proxy(tma_kernels::store_box(true, true, by_issuer), proxy_store_launch());
    REQUIRE_MESSAGE(!red.error, red.error->message);
    CHECK_MESSAGE(red.report.races.empty(), proxy_listing(red));
  }
}

TEST_CASE("a TMA store of shared memory written without fence.proxy.async: a race, reported as a missing proxy fence") {
  std::string text = tma_kernels::store_box(false, false);
  auto c = run_proxy(text, proxy_store_launch());
  REQUIRE_MESSAGE(!c.error, c.error->message);
  REQUIRE_MESSAGE(!c.report.races.empty(), "no race found");
  const race::race& r = c.report.races.front().example;
  CHECK(r.kind == race::race_kind::raw);
  CHECK(c.line(r.first.instruction) == line_of(text, "st.shared.f32"));
  CHECK_FALSE(r.first.async_proxy);
  CHECK(r.second.async_proxy);
  CHECK(r.second.thread == 0);
  CHECK(c.line(r.second.instruction) == line_of(text, "cp.async.bulk.tensor"));
  CHECK(r.missing_proxy_fence);
  // Every one of the 64 writes is unfenced.
  CHECK(c.report.races.front().count == 64);
  std::string f = race::format(r, c.info);
  CHECK_MESSAGE(contains(f, "missing proxy fence"), f);
  // The store is a bulk-group copy: thread 0's cp.async.bulk.wait_group retires it. The report
  // names the copy and that, not a segment of the async proxy.
  CHECK(r.second.completion.key.kind == exec::barrier_kind::async_done);
  CHECK(r.second.completion.key.id == 0);
  CHECK(r.second.completion.generation == 1);
  auto lines = race::source_lines(c.k->module, c.k->module.functions[0]);
  std::string g = race::format(r, c.info, race::source_lookup([&](std::uint32_t i) { return lines.at(i); }));
  CHECK_MESSAGE(contains(g, " vs read by the async proxy: thread 0's TMA store at PTX line " +
                                std::to_string(line_of(text, "cp.async.bulk.tensor")) +
                                ", retired by the thread's cp.async.bulk.wait_group; missing proxy fence"),
                g);
  CHECK_MESSAGE(!contains(g.substr(g.find(" vs ")), "segment"), g);
}

TEST_CASE("a fence by one writer does not cover another writer's unordered write") {
  // Only thread 0 fences, before the bar.sync: the other threads' writes reach the store through
  // the barrier but no proxy fence (neither theirs nor the issuer's after the barrier).
  std::string text = tma_kernels::store_box(false, false);
  text.replace(text.find("  bar.sync 0;"), 13, "  setp.eq.u32 %p2, %r1, 0;\n  @%p2 fence.proxy.async.shared::cta;\n  bar.sync 0;");
  auto c = run_proxy(text, proxy_store_launch());
  REQUIRE_MESSAGE(!c.error, c.error->message);
  REQUIRE(!c.report.races.empty());
  CHECK(c.report.races.front().count == 63);  // thread 0's own write is fenced
  CHECK(c.report.races.front().example.first.thread != 0);
  CHECK(c.report.races.front().example.missing_proxy_fence);
}

TEST_CASE("bulk copies and a device-built map are race-free") {
  auto b = run_proxy(std::string(tma_kernels::bulk), one_cta(16, {out_f32("y", 16), in_f32("x", 32)}));
  REQUIRE_MESSAGE(!b.error, b.error->message);
  CHECK_MESSAGE(b.report.races.empty(), proxy_listing(b));
  auto d = run_proxy(std::string(tma_kernels::device_map),
                    one_cta(32, {out_f32("y", 32), tensor("x", exec::rkind::f32, {16, 16}, true, false), out_int("scratch", 16, 8)}));
  REQUIRE_MESSAGE(!d.error, d.error->message);
  CHECK_MESSAGE(d.report.races.empty(), proxy_listing(d));
}

// wgmma.mma_async reads its shared-memory operands in the async proxy: the corpus GEMM of
// examples/kernels/hopper/wgmma_gemm.cu with its operands written by st.shared needs each
// writer's fence.proxy.async before the barrier; filled by cp.async it needs none (gpueq's
// semantic choice, exec/semantics/async_copy.hpp).
namespace {

proxy_run run_wgmma(std::string_view entry) {
  exec::launch l = one_cta(128, {tensor("A", exec::rkind::f16, {64, 64}, true, false),
                                 tensor("B", exec::rkind::f16, {64, 64}, true, false),
                                 tensor("C", exec::rkind::f32, {64, 64}, false, true)});
  return run_raced(load_file(corpus_path("hopper/wgmma_gemm.ptx"), entry), l, small_integers(3));
}

// The PTX lines of kernel `entry` in the corpus wgmma GEMM that hold `needle`.
std::vector<std::uint32_t> wgmma_lines(std::string_view entry, std::string_view needle) {
  return entry_lines_of(corpus_path("hopper/wgmma_gemm.ptx"), entry, needle);
}

}  // namespace

TEST_CASE("wgmma operands: cp.async, or st.shared with fence.proxy.async, are race-free") {
  for (std::string_view entry : {"gemm_wgmma_plain", "gemm_wgmma_stores"}) {
    CAPTURE(entry);
    auto c = run_wgmma(entry);
    REQUIRE_MESSAGE(!c.error, c.error->message);
    CHECK_MESSAGE(c.report.races.empty(), proxy_listing(c));
    CHECK(c.info.agents == 128);  // wgmma.mma_async gives each thread its async agent
  }
}

TEST_CASE("wgmma operands written by st.shared without fence.proxy.async: a missing proxy fence") {
  const std::string_view entry = "gemm_wgmma_stores_no_fence";
  auto c = run_wgmma(entry);
  REQUIRE_MESSAGE(!c.error, c.error->message);
  REQUIRE_MESSAGE(!c.report.races.empty(), "no race found");
  const auto stores = wgmma_lines(entry, "st.shared.v4.u32"), mmas = wgmma_lines(entry, "wgmma.mma_async");
  REQUIRE(stores.size() == 2);
  REQUIRE(mmas.size() == 4);
  std::uint64_t pairs = 0;
  for (const auto& g : c.report.races) {
    const race::race& r = g.example;
    CAPTURE(race::format(r, c.info));
    CHECK(r.kind == race::race_kind::raw);
    CHECK(r.missing_proxy_fence);
    CHECK_FALSE(r.first.async_proxy);
    CHECK(std::find(stores.begin(), stores.end(), c.line(r.first.instruction)) != stores.end());
    CHECK(r.second.async_proxy);
    CHECK(r.second.thread % 32 == 0);  // a warp's first lane issues for the warp
    CHECK(std::find(mmas.begin(), mmas.end(), c.line(r.second.instruction)) != mmas.end());
    CHECK(r.second.completion.key.kind == exec::barrier_kind::async_done);
    pairs += g.count;
  }
  // Counted by hand: each k16 step reads 2 KiB of A (64 rows x 32 bytes) and 2 KiB of B (16 k-rows
  // x 128 bytes), 128 chunks of 16 bytes each, every chunk written by one 16-byte st.shared; a
  // pair is one store against one chunk read. A's chunk is read by the one warp whose 16 rows hold
  // it (128 pairs), B's by all four warps' agents (512 pairs); four steps.
  CHECK(pairs == 4 * (128 + 4 * 128));
  auto lines = race::source_lines(c.k->module, *c.k->program.function);
  std::string f = race::format(c.report.races.front().example, c.info,
                               race::source_lookup([&](std::uint32_t i) { return lines.at(i); }));
  CHECK_MESSAGE(contains(f, "wgmma.mma_async at PTX line"), f);
  CHECK_MESSAGE(contains(f, "retired by its warp's wgmma.wait_group; missing proxy fence: the write is ordered "
                            "before the operation's issue"),
                f);
}

TEST_CASE("wgmma operands overwritten after the issue, before the retiring wait: a WAR race with the async proxy") {
  const std::string_view entry = "gemm_wgmma_early_reuse";
  auto c = run_wgmma(entry);
  REQUIRE(c.error);  // the retiring wait also finds the operand changed
  CHECK(contains(c.error->message, "is overwritten before this wgmma.wait_group retires the operation"));
  const auto clear = wgmma_lines(entry, "st.shared.u16"), mmas = wgmma_lines(entry, "wgmma.mma_async");
  REQUIRE(clear.size() == 1);
  bool found = false;
  for (const auto& g : c.report.races) {
    const race::race& r = g.example;
    if (r.kind == race::race_kind::war && r.first.async_proxy && !r.second.async_proxy &&
        std::find(mmas.begin(), mmas.end(), c.line(r.first.instruction)) != mmas.end() &&
        c.line(r.second.instruction) == clear.front()) {
      found = true;
      CHECK_FALSE(r.missing_proxy_fence);
    }
  }
  CHECK_MESSAGE(found, proxy_listing(c));
}
