// mbarrier semantics (exec/semantics/mbarrier.hpp): phases, parity and state waits, pending counts,
// transaction bytes, and the errors a user gets (deadlock naming the object and what is pending,
// use before init, over-arrival). Expected values are worked out by hand in the comments.
#include "harness.hpp"
#include "mbarrier_kernels.hpp"

#include <doctest/doctest.h>

#include <cstdint>

using namespace exec_test;
using namespace mbarrier_kernels;

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

namespace {
values iota_plus_one() {
  return [](std::string_view, std::uint64_t e) { return rat(static_cast<long long>(e) + 1); };
}
}  // namespace

TEST_CASE_TEMPLATE("a two-stage mbarrier ring delivers every round to the consumer", D, DOMAINS) {
  auto k = load(ring, "ring.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 32), in_f32("x", 128)});
  fixture<D> f(iota_plus_one());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // x[j] = j + 1: y[i] = (i + 1) + (33 + i) + (65 + i) + (97 + i) = 196 + 4 i.
  for (std::uint32_t i = 0; i < 32; ++i) CHECK(f.at(*r.out["y"][i], l) == rat(196 + 4 * static_cast<long long>(i)));
  // Each of the four mbarriers serves two of the four rounds (two phases each), plus the bar.sync.
  CHECK(r.stats.barrier_instances == 9);
}

TEST_CASE_TEMPLATE("state waits and pending_count", D, DOMAINS) {
  auto k = load(state_wait, "state.ptx");
  exec::launch l = one_cta(64, {out_int("y", 64), out_int("p", 64)});
  fixture<D> f(iota_plus_one());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // Round robin: the bar.sync completes when thread 63 registers, and thread 63 runs on first;
  // then threads 0, 1, ... each run until their test_wait parks them. So thread 63's arrival
  // leaves 63 pending and thread t's (t < 63) 62 - t. Every thread copies its neighbour's id.
  for (std::uint32_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    CHECK(f.at(*r.out["p"][t], l) == rat(t == 63 ? 63 : 62 - static_cast<long long>(t)));
    CHECK(f.at(*r.out["y"][t], l) == rat((t + 1) % 64));
  }
}

TEST_CASE("transaction bytes: a phase completes when arrivals and bytes are both done") {
  auto ok = load(transaction(128), "tx.ptx");
  exec::launch l = one_cta(32, {out_int("y", 32)});
  fixture<exec::exact_domain> f(iota_plus_one());
  auto r = run(*ok, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t t = 0; t < 32; ++t) CHECK(f.at(*r.out["y"][t], l) == rat(t));

  // 64 of the 128 expected bytes: nobody can move. The report names the object, its phase and
  // what is still pending.
  std::string text = transaction(64);
  auto short_tx = load(text, "tx.ptx");
  auto e = expect_error(*short_tx, l, f.d);
  CHECK(e.kind == exec::error_kind::deadlock);
  CHECK_MESSAGE(contains(e.message, "mbarrier tma_bar[0] (shared byte 0) phase 0: 0 of 1 arrivals pending, "
                                    "64 transaction bytes pending"),
                e.message);
  CHECK_MESSAGE(contains(e.message, "tx.ptx:" + std::to_string(line_of(text, "mbarrier.try_wait"))), e.message);
}

TEST_CASE("a producer that waits on empty without the initial parity flip: deadlock naming both mbarriers") {
  // The producer asks empty[0] for parity (k / 2) & 1 = 0 in round 0: phase 0, which only the
  // consumers complete, after reading a stage the producer has not filled. Round robin runs
  // thread 63 first after the bar.sync (it completed it): a consumer, it parks on full[0]; then
  // the producers park on empty[0], the other consumers on full[0].
  std::string text = ring_with("  xor.b32 %r10, %r9, 1;\n", "  mov.b32 %r10, %r9;\n");
  REQUIRE(!text.empty());
  auto k = load(text, "parity.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 32), in_f32("x", 128)});
  fixture<exec::exact_domain> f(iota_plus_one());
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::deadlock);
  CHECK_MESSAGE(contains(e.message, "32 thread(s) (first (0,0,0)) wait at mbarrier.try_wait parity.ptx:" +
                                        std::to_string(line_of(text, "[%r12], %r10"))),
                e.message);
  CHECK_MESSAGE(contains(e.message, "[mbarrier empty[0] (shared byte 0) phase 0: 32 of 32 arrivals pending, 0 "
                                    "transaction bytes pending]"),
                e.message);
  CHECK_MESSAGE(contains(e.message, "32 thread(s) (first (32,0,0)) wait at mbarrier.try_wait parity.ptx:" +
                                        std::to_string(line_of(text, "[%r16], %r9"))),
                e.message);
  CHECK_MESSAGE(contains(e.message, "[mbarrier full[0] (shared byte 0) phase 0: 32 of 32 arrivals pending"), e.message);
}

TEST_CASE("use before init, over-arrival and counts out of range stop the run with the object's name") {
  fixture<exec::exact_domain> f(iota_plus_one());
  exec::launch l = one_cta(64, {out_f32("y", 32), in_f32("x", 128)});
  {  // nobody initializes full[1]
    std::string text = ring_with("  mbarrier.init.shared::cta.b64 [%r4+8], 32;\n", "");
    REQUIRE(!text.empty());
    auto k = load(text, "noinit.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "mbarrier full[1] (shared byte 8) is used before mbarrier.init"), e.message);
  }
  {  // Every producer lane arrives with a count of 3 on full[stage] (32 expected): lanes 0..9 take
     // 30 of phase 0, and lane 10's 3 is more than the 2 left.
    std::string text = ring_with("  mbarrier.arrive.shared::cta.b64 %rd5, [%r16];",
                                 "  mbarrier.arrive.shared::cta.b64 %rd5, [%r16], 3;");
    REQUIRE(!text.empty());
    auto k = load(text, "over.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "mbarrier full[0] (shared byte 0) phase 0: 2 of 32 arrivals pending"), e.message);
    CHECK_MESSAGE(contains(e.message, "an arrival of 3 is more than is pending (over-arrival)"), e.message);
  }
  {
    std::string text = ring_with("mbarrier.init.shared::cta.b64 [%r4], 32;", "mbarrier.init.shared::cta.b64 [%r4], 0;");
    REQUIRE(!text.empty());
    auto k = load(text, "zero.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "mbarrier.init count 0 is not in 1..1048575"), e.message);
  }
}

TEST_CASE("an mbarrier must be in shared memory") {
  constexpr std::string_view global_bar = R"(
.visible .entry g(.param .u64 y_param)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mbarrier.init.b64 [%rd1], 1;
  ret;
}
)";
  auto k = load(global_bar, "global.ptx");
  exec::launch l = one_cta(1, {out_int("y", 2)});
  fixture<exec::exact_domain> f(iota_plus_one());
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::barrier);
  CHECK_MESSAGE(contains(e.message, "an mbarrier object must be in shared memory, not in global"), e.message);
}

namespace {
// 64 threads, one mbarrier for 64. Threads 32..63 leave with arrive_drop, so phase 0 completes with
// 32 arrivals of warp 0 and 32 drops, and later phases expect 32. Warp 0 then arrives again:
// y[t] = the pending count its arrival left. Thread 0 then expects and completes 16 transaction
// bytes (phase 2 stays open: no arrivals), and after warp 0's named barrier invalidates the
// object; with `reuse` it arrives once more after that (the text holds that arrival; without
// `reuse` it is cut).
constexpr std::string_view drop_kernel_text = R"(
.visible .entry drop(.param .u64 y_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 mb;
  ld.param.u64 %rd5, [y_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, mb;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra READY;
  mbarrier.init.shared.b64 [%r2], 64;
READY:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra STAY;
  mbarrier.arrive_drop.shared.b64 %rd1, [%r2];
  ret;
STAY:
  mbarrier.arrive.shared.b64 %rd1, [%r2];
W0:
  mbarrier.test_wait.shared.b64 %p3, [%r2], %rd1;
  @!%p3 bra W0;
  mbarrier.arrive.shared.b64 %rd2, [%r2];
  mbarrier.pending_count.b64 %r3, %rd2;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd5, %rd3;
  st.global.u32 [%rd4], %r3;
W1:
  mbarrier.test_wait.shared.b64 %p3, [%r2], %rd2;
  @!%p3 bra W1;
  bar.sync 1, 32;
  @%p1 bra DONE;
  mbarrier.expect_tx.shared.b64 [%r2], 16;
  mbarrier.complete_tx.shared.b64 [%r2], 16;
  mbarrier.inval.shared.b64 [%r2];
  mbarrier.arrive.shared.b64 %rd6, [%r2];
DONE:
  ret;
}
)";
std::string drop_kernel(bool reuse) {
  std::string s(drop_kernel_text);
  if (!reuse) {
    const std::string again = "  mbarrier.arrive.shared.b64 %rd6, [%r2];\n";
    s.erase(s.find(again), again.size());
  }
  return s;
}
}  // namespace

TEST_CASE_TEMPLATE("arrive_drop lowers later phases' count; expect_tx, complete_tx, inval", D, DOMAINS) {
  auto k = load(drop_kernel(false), "drop.ptx");
  exec::launch l = one_cta(64, {out_int("y", 32)});
  fixture<D> f(iota_plus_one());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // Warp 0 resumes in order after phase 0: thread t's second arrival leaves 31 - t pending.
  for (std::uint32_t t = 0; t < 32; ++t) CHECK(f.at(*r.out["y"][t], l) == rat(31 - static_cast<long long>(t)));

  std::string text = drop_kernel(true);
  auto again = load(text, "drop.ptx");
  auto e = expect_error(*again, l, f.d);
  CHECK(e.kind == exec::error_kind::barrier);
  CHECK_MESSAGE(contains(e.message, "drop.ptx:" + std::to_string(line_of(text, "mbarrier.arrive.shared.b64 %rd6")) +
                                        ": thread (0,0,0)"),
                e.message);
  CHECK_MESSAGE(contains(e.message, "mbarrier mb[0] (shared byte 0) was invalidated"), e.message);
}

TEST_CASE_TEMPLATE("cp.async.mbarrier.arrive: the copies land before the asynchronous arrive, with and without .noinc", D,
                   DOMAINS) {
  const exec::launch l = one_cta(64, {out_f32("y", 64), in_f32("x", 64)});
  for (auto v : {tracked_variant::noinc, tracked_variant::inc}) {
    CAPTURE(static_cast<int>(v));
    auto k = load(cp_async_tracked(v), "tracked.ptx");
    fixture<D> f(iota_plus_one());
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    // x[j] = j + 1, so y[t] = x[63 - t] = 64 - t.
    for (std::uint32_t t = 0; t < 64; ++t) CHECK(f.at(*r.out["y"][t], l) == rat(64 - static_cast<long long>(t)));
  }
}

TEST_CASE("cp.async.mbarrier.arrive without .noinc is no arrival: without the threads' own arrives, a deadlock") {
  const exec::launch l = one_cta(64, {out_f32("y", 64), in_f32("x", 64)});
  std::string text = cp_async_tracked(tracked_variant::inc_no_arrive);
  auto k = load(text, "tracked.ptx");
  fixture<exec::exact_domain> f(iota_plus_one());
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::deadlock);
  CHECK_MESSAGE(contains(e.message, "mbarrier bar[0] (shared byte 0) phase 0: 64 of 64 arrivals pending"), e.message);
}

namespace {
// Threads 0 and 32 of a 64-thread block on one mbarrier of count `count`, initialized by thread 0
// before a bar.sync; the text between READY and DONE is each test's.
std::string two_threads(unsigned count, std::string_view body) {
  return R"(
.visible .entry two(.param .u64 y_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 mb;
  ld.param.u64 %rd5, [y_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, mb;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra READY;
  mbarrier.init.shared.b64 [%r2], )" +
         std::to_string(count) + R"(;
READY:
  bar.sync 0;
)" + std::string(body) +
         R"(DONE:
  ret;
}
)";
}
}  // namespace

TEST_CASE("a phase that completes before a woken waiter has tested again is a lap, not a pass") {
  // Thread 0 waits for parity 0 and parks; thread 32 (the producer, count 1) arrives twice in a
  // row: the first arrival completes phase 0 and wakes thread 0, the second completes phase 1
  // before thread 0 has run its wait again. (Without the check thread 0 would wait for parity 0
  // at phase 2 and the run would end as a deadlock, naming nothing of the cause.)
  std::string text = two_threads(1, R"(  setp.eq.u32 %p2, %r1, 32;
  @%p2 bra PRODUCE;
  @%p1 bra DONE;
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  @!%p3 bra W;
  bra DONE;
PRODUCE:
  mbarrier.arrive.shared.b64 %rd1, [%r2];
  mbarrier.arrive.shared.b64 %rd2, [%r2];
)");
  auto k = load(text, "lap.ptx");
  exec::launch l = one_cta(64, {out_int("y", 1)});
  fixture<exec::exact_domain> f(iota_plus_one());
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::barrier);
  CHECK_MESSAGE(contains(e.message, "lap.ptx:" + std::to_string(line_of(text, "%rd2, [%r2]")) + ": thread (32,0,0)"),
                e.message);
  CHECK_MESSAGE(contains(e.message, "this completes phase 1 of mbarrier mb[0] (shared byte 0) while thread 0"),
                e.message);
  CHECK_MESSAGE(contains(e.message, "waiting at lap.ptx:" + std::to_string(line_of(text, "mbarrier.try_wait"))),
                e.message);
}

TEST_CASE("a state-based wait for a phase two phases old stops the run") {
  // Count 2. Thread 0 arrives (its state: phase 0) and meets the others at bar.sync 1 before it
  // waits; meanwhile thread 32 arrives once (phase 0 completes) and then with a count of 2
  // (phase 1 completes). Thread 0's state is then two phases old: undefined in the PTX ISA.
  std::string text = two_threads(2, R"(  @!%p1 bra FIRST;
  setp.ne.u32 %p2, %r1, 32;
  @%p2 bra MEET;
  mbarrier.arrive.shared::cta.b64 %rd1, [%r2];
  mbarrier.arrive.shared::cta.b64 %rd1, [%r2], 2;
  bra MEET;
FIRST:
  mbarrier.arrive.shared.b64 %rd1, [%r2];
MEET:
  bar.sync 1;
  @%p1 bra DONE;
W:
  mbarrier.test_wait.shared.b64 %p3, [%r2], %rd1;
  @!%p3 bra W;
)");
  auto k = load(text, "stale.ptx");
  exec::launch l = one_cta(64, {out_int("y", 1)});
  fixture<exec::exact_domain> f(iota_plus_one());
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::barrier);
  CHECK_MESSAGE(contains(e.message, "stale.ptx:" + std::to_string(line_of(text, "mbarrier.test_wait")) + ": thread (0,0,0)"),
                e.message);
  CHECK_MESSAGE(contains(e.message, "the state names mbarrier mb[0] (shared byte 0) phase 0, two or more phases before "
                                    "the current one (phase 2: 2 of 2 arrivals pending"),
                e.message);
}

namespace {
// Thread 0 alone tests parity 0 of an mbarrier of count 1 that only its own fallback arrives on,
// after `failures` failed tests; y = the failures counted.
std::string fallback(unsigned failures) {
  return two_threads(1, R"(  @%p1 bra DONE;
  mov.u32 %r3, 0;
W:
  mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  @%p3 bra OK;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, )" + std::to_string(failures) + R"(;
  @%p2 bra W;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
  bra W;
OK:
  st.global.u32 [%rd5], %r3;
)");
}
}  // namespace

TEST_CASE_TEMPLATE("a wait that finds no way forward but its false answer gets it: the fallback runs", D, DOMAINS) {
  // Parked, nobody could move; the tests answer false (r3 = 1, 2, 3), the fallback arrives,
  // phase 0 completes and the fourth test passes: y = 3.
  auto k = load(fallback(3), "fallback.ptx");
  exec::launch l = one_cta(64, {out_int("y", 1)});
  fixture<D> f(iota_plus_one());
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(f.at(*r.out["y"][0], l) == rat(3));
}

TEST_CASE("false answers: 64 rounds without the phase completing, then the deadlock") {
  exec::launch l = one_cta(64, {out_int("y", 1)});
  fixture<exec::exact_domain> f(iota_plus_one());
  {  // 64 failed tests are answered; the fallback then completes the phase
    auto k = load(fallback(64), "fallback.ptx");
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(f.at(*r.out["y"][0], l) == rat(64));
  }
  {  // the 65th is not: a deadlock naming the wait and the object
    std::string text = fallback(65);
    auto k = load(text, "fallback.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::deadlock);
    CHECK_MESSAGE(contains(e.message, "wait at mbarrier.test_wait fallback.ptx:" +
                                          std::to_string(line_of(text, "mbarrier.test_wait"))),
                  e.message);
    CHECK_MESSAGE(contains(e.message, "[mbarrier mb[0] (shared byte 0) phase 0: 1 of 1 arrivals pending"), e.message);
  }
  {  // A retry loop around a bar.sync completes that barrier every round, which is no progress
     // for the mbarrier nobody arrives on: still the deadlock (a step limit would stop a spin).
    std::string text = two_threads(1, R"(  setp.ge.u32 %p2, %r1, 32;
  @%p2 bra DONE;
W:
  bar.sync 1, 32;
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  @!%p3 bra W;
)");
    auto k = load(text, "retry.ptx");
    exec::engine_options o;
    o.max_steps = 1'000'000;
    auto e = expect_error(*k, l, f.d, o);
    CHECK_MESSAGE(e.kind == exec::error_kind::deadlock, e.message);
    CHECK_MESSAGE(contains(e.message, "32 thread(s) (first (0,0,0)) wait at mbarrier.try_wait retry.ptx:" +
                                          std::to_string(line_of(text, "mbarrier.try_wait"))),
                  e.message);
  }
}

TEST_CASE("an init over an object that threads wait on, and a transaction count out of range, stop the run") {
  exec::launch l = one_cta(64, {out_int("y", 1)});
  fixture<exec::exact_domain> f(iota_plus_one());
  {  // thread 0 parks on phase 0; thread 32 initializes the object again
    std::string text = two_threads(1, R"(  setp.eq.u32 %p2, %r1, 32;
  @%p2 bra AGAIN;
  @%p1 bra DONE;
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  @!%p3 bra W;
  bra DONE;
AGAIN:
  mbarrier.init.shared.b64 [%r2], 1;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
)");
    auto k = load(text, "reinit.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "reinit.ptx:" + std::to_string(line_of(text, "AGAIN:") + 1) + ": thread (32,0,0)"),
                  e.message);
    CHECK_MESSAGE(contains(e.message, "mbarrier mb[0] (shared byte 0) is initialized again while thread 0 wait on its "
                                      "phase 0: 1 of 1 arrivals pending"),
                  e.message);
  }
  {  // phase 0 has its one arrival and waits for 16 bytes: a .noinc cp.async arrive is one too many
    std::string text = two_threads(1, R"(  @%p1 bra DONE;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 16;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
  cp.async.mbarrier.arrive.noinc.shared.b64 [%r2];
)");
    auto k = load(text, "noinc.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "noinc.ptx:" + std::to_string(line_of(text, "cp.async.mbarrier")) + ": thread (0,0,0)"),
                  e.message);
    CHECK_MESSAGE(contains(e.message, "phase 0: 0 of 1 arrivals pending, 16 transaction bytes pending: "
                                      "cp.async.mbarrier.arrive.noinc is one arrival more than is pending"),
                  e.message);
  }
  for (std::string op : {"expect_tx", "complete_tx"}) {
    CAPTURE(op);
    // 2^20 - 1 bytes and one more: past the range on either side.
    std::string body = "  @%p1 bra DONE;\n  mbarrier." + op +
                       ".relaxed.cta.shared::cta.b64 [%r2], 1048575;\n  mbarrier." + op +
                       ".relaxed.cta.shared::cta.b64 [%r2], 1;\n";
    std::string text = two_threads(1, body);
    auto k = load(text, "tx.ptx");
    auto e = expect_error(*k, l, f.d);
    CHECK(e.kind == exec::error_kind::barrier);
    CHECK_MESSAGE(contains(e.message, "tx.ptx:" + std::to_string(line_of(text, "[%r2], 1048575;") + 1) + ": thread (0,0,0)"),
                  e.message);
    CHECK_MESSAGE(contains(e.message, std::string("transaction bytes pending: the transaction count leaves its range "
                                                  "-1048575..1048575")),
                  e.message);
    CHECK_MESSAGE(contains(e.message, op == "expect_tx" ? "pending, 1048576 transaction bytes" : "pending, -1048576 transaction bytes"),
                  e.message);
  }
}
