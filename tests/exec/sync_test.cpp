// Synchronization as the observer sees it (exec/observer.hpp): a recording observer checks the
// accesses of a small kernel in schedule order (region, offset, width, kind; a float4 load is one
// 16-byte access), CTA barrier and warp-collective instances with their generations, WEFT's
// asymmetric named barriers (bar.arrive registers without waiting; one instance per generation
// with every participant), and cp.async, whose shared writes land at wait_group / wait_all.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

// Every event, in the order the engine reports it.
struct recorder {
  enum class what { access, registration, completion, acquisition, exit };
  struct event {
    what w = what::access;
    exec::access a{};
    exec::barrier_registration r{};
    exec::barrier_key key{};
    std::uint32_t generation = 0, expected = 0, thread = 0;
    std::vector<exec::barrier_registration> participants;
  };
  exec::run_info info;
  bool started = false;
  std::vector<event> events;

  void on_start(const exec::run_info& i) {
    info = i;
    started = true;
  }
  void on_access(const exec::access& a) {
    event e;
    e.w = what::access;
    e.a = a;
    events.push_back(e);
  }
  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key key, std::uint32_t generation,
                           std::uint32_t expected) {
    event e;
    e.w = what::registration;
    e.r = r;
    e.key = key;
    e.generation = generation;
    e.expected = expected;
    events.push_back(e);
  }
  void on_barrier_complete(const exec::barrier_instance& b) {
    event e;
    e.w = what::completion;
    e.key = b.key;
    e.generation = b.generation;
    e.expected = b.expected;
    e.participants.assign(b.participants.begin(), b.participants.end());
    events.push_back(e);
  }
  void on_barrier_acquire(const exec::barrier_registration& r, exec::barrier_key key, std::uint32_t generation) {
    event e;
    e.w = what::acquisition;
    e.r = r;
    e.key = key;
    e.generation = generation;
    events.push_back(e);
  }
  void on_exit(std::uint32_t t, std::uint32_t) {
    event e;
    e.w = what::exit;
    e.thread = t;
    events.push_back(e);
  }

  std::vector<exec::access> accesses() const {
    std::vector<exec::access> v;
    for (auto& e : events)
      if (e.w == what::access) v.push_back(e.a);
    return v;
  }
  std::vector<const event*> of(what w, std::optional<exec::barrier_key> key = std::nullopt) const {
    std::vector<const event*> v;
    for (auto& e : events)
      if (e.w == w && (!key || e.key == *key)) v.push_back(&e);
    return v;
  }
};
static_assert(exec::observer<recorder>);

exec::barrier_key cta_barrier(std::uint32_t id) { return {exec::barrier_kind::cta, id}; }
exec::barrier_key warp_barrier(std::uint32_t warp) { return {exec::barrier_kind::warp, warp}; }

// Two threads: each loads a float4 of x, stores its sum to s[tid], syncs, and writes the other
// thread's sum to y[tid].
constexpr std::string_view stage = R"(
.visible .entry stage(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<10>;
  .reg .b64 %rd<8>;
  .shared .align 4 .f32 s[2];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];
  add.f32 %f5, %f1, %f2;
  add.f32 %f6, %f3, %f4;
  add.f32 %f7, %f5, %f6;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  st.shared.f32 [%r4], %f7;
  bar.sync 0;
  xor.b32 %r5, %r2, 4;
  add.s32 %r6, %r3, %r5;
  ld.shared.f32 %f8, [%r6];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.f32 [%rd6], %f8;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("the observer sees every access in schedule order; a float4 load is one access", D, DOMAINS) {
  auto k = load(stage, "stage.ptx");
  exec::launch l = one_cta(2, {out_f32("y", 2), in_f32("x", 8)});
  fixture<D> f([](std::string_view, std::uint64_t) { return rat(1); });
  recorder rec;
  exec::engine_options round_robin;
  round_robin.warp_wide = false;
  auto r = run(*k, l, f.d, &rec, round_robin);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(f.at(*r.out["y"][0], l) == 4);
  CHECK(f.at(*r.out["y"][1], l) == 4);

  REQUIRE(rec.started);
  CHECK(rec.info.threads == 2);
  CHECK(rec.info.warp_size == 32);
  REQUIRE(rec.info.regions.size() == 3);  // the tensors first, in launch order, then shared
  CHECK(rec.info.regions[0].name == "y");
  CHECK(rec.info.regions[0].space == exec::memory_space::global);
  CHECK(rec.info.regions[1].name == "x");
  CHECK(rec.info.regions[1].bytes == 32);
  CHECK(rec.info.regions[2].name == "s");
  CHECK(rec.info.regions[2].space == exec::memory_space::shared);
  CHECK(rec.info.regions[2].bytes == 8);

  // Round robin: thread 0 runs to the barrier, thread 1 to the barrier (completing it) and on
  // to its exit, then thread 0 resumes.
  struct expected_access {
    std::uint32_t thread, region;
    std::uint64_t offset;
    std::uint32_t width;
    exec::access_kind kind;
    std::string_view instruction;  // a unique piece of the instruction's line
  };
  using exec::access_kind;
  const expected_access want[] = {
      {0, 1, 0, 16, access_kind::read, "ld.global.v4.f32"},  {0, 2, 0, 4, access_kind::write, "st.shared.f32"},
      {1, 1, 16, 16, access_kind::read, "ld.global.v4.f32"}, {1, 2, 4, 4, access_kind::write, "st.shared.f32"},
      {1, 2, 0, 4, access_kind::read, "ld.shared.f32"},      {1, 0, 4, 4, access_kind::write, "st.global.f32"},
      {0, 2, 4, 4, access_kind::read, "ld.shared.f32"},      {0, 0, 0, 4, access_kind::write, "st.global.f32"},
  };
  auto got = rec.accesses();
  REQUIRE(got.size() == std::size(want));
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].thread == want[i].thread);
    CHECK(got[i].region == want[i].region);
    CHECK(got[i].offset == want[i].offset);
    CHECK(got[i].width == want[i].width);
    CHECK(got[i].kind == want[i].kind);
    CHECK(k->module.functions[0].instructions[got[i].instruction].line == line_of(stage, want[i].instruction));
    if (got[i].kind == access_kind::write) CHECK(got[i].value.known());
  }
  // Both threads store 1+1+1+1 to s: in the concrete domains equal values, equal identities (a
  // benign write-write); symbolically x0+x1+x2+x3 and x4+x5+x6+x7 are different values.
  if constexpr (D::symbolic) CHECK_FALSE(same_value(got[1].value, got[3].value));
  else CHECK(same_value(got[1].value, got[3].value));

  // One CTA barrier instance with both threads, then the exits (thread 1 first).
  auto regs = rec.of(recorder::what::registration, cta_barrier(0));
  REQUIRE(regs.size() == 2);
  CHECK(regs[0]->r.thread == 0);
  CHECK(regs[1]->r.thread == 1);
  CHECK(regs[0]->r.waits);
  CHECK(regs[0]->generation == 1);
  CHECK(regs[0]->expected == 0);  // bar.sync 0 names no count: all threads
  auto done = rec.of(recorder::what::completion, cta_barrier(0));
  REQUIRE(done.size() == 1);
  CHECK(done[0]->generation == 1);
  CHECK(done[0]->expected == 2);
  CHECK(done[0]->participants.size() == 2);
  auto exits = rec.of(recorder::what::exit);
  REQUIRE(exits.size() == 2);
  CHECK(exits[0]->thread == 1);
  CHECK(exits[1]->thread == 0);
  CHECK(r.stats.barrier_instances == 1);
}

TEST_CASE_TEMPLATE("warp-wide execution: a warp's lanes take each instruction in turn up to the barrier", D, DOMAINS) {
  // engine_options::warp_wide (the default): the two threads are lanes of one warp, converged, so
  // each runs the load, then each the shared store; the barrier is no warp-wide instruction: each
  // thread runs it in its turn, and thread 1, which completes it, stops there, so the warp goes
  // on warp-wide after it (round robin would run thread 1 on to its exit first). Same values,
  // same steps.
  auto k = load(stage, "stage.ptx");
  exec::launch l = one_cta(2, {out_f32("y", 2), in_f32("x", 8)});
  fixture<D> f([](std::string_view, std::uint64_t) { return rat(1); });
  recorder rec;
  auto r = run(*k, l, f.d, &rec);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(f.at(*r.out["y"][0], l) == 4);
  CHECK(f.at(*r.out["y"][1], l) == 4);
  fixture<D> g([](std::string_view, std::uint64_t) { return rat(1); });
  exec::engine_options round_robin;
  round_robin.warp_wide = false;
  auto rr = run(*k, l, g.d, static_cast<recorder*>(nullptr), round_robin);
  REQUIRE(!rr.error);
  CHECK(r.stats.steps == rr.stats.steps);
  using exec::access_kind;
  const std::pair<std::uint32_t, std::string_view> want[] = {
      {0, "ld.global.v4.f32"}, {1, "ld.global.v4.f32"}, {0, "st.shared.f32"}, {1, "st.shared.f32"},
      {0, "ld.shared.f32"},    {1, "ld.shared.f32"},    {0, "st.global.f32"}, {1, "st.global.f32"},
  };
  auto got = rec.accesses();
  REQUIRE(got.size() == std::size(want));
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].thread == want[i].first);
    CHECK(k->module.functions[0].instructions[got[i].instruction].line == line_of(stage, want[i].second));
  }
}

// Three lanes of a warp get past a bounds check; the other 29 exit. After the barrier the three
// go on warp-wide: lanes that exited stay out of the warp.
namespace {

constexpr std::string_view exited_lanes_ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry tail(.param .u64 y_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 3;
  @%p1 bra DONE;
  bar.sync 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  add.s32 %r2, %r1, 10;
  st.global.u32 [%rd3+12], %r2;
DONE:
  ret;
}
)";

// Two warps: a store, a loop of 1200 instructions, a store. Warp-wide, the warps take turns of
// warp_round (1024) instructions, so warp 1 stores its first value before warp 0 its second.
constexpr std::string_view warp_turns_ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry turns(.param .u64 y_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  mov.u32 %r2, 0;
LOOP:
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 400;
  @%p1 bra LOOP;
  st.global.u32 [%rd3+256], %r2;
  ret;
}
)";

// A barrier between two stores: the thread that arrives last (63) completes it.
constexpr std::string_view barrier_release_ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry released(.param .u64 y_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  bar.sync 0;
  add.s32 %r2, %r1, 100;
  st.global.u32 [%rd3+256], %r2;
  ret;
}
)";

// Runs k warp-wide (the default) in f's domain with rec attached, and again under round robin:
// both without error and with the same step count. Returns the warp-wide run.
template <class D>
outcome<D> warp_wide_and_round_robin(const kernel& k, const exec::launch& l, fixture<D>& f, recorder& rec) {
  auto r = run(k, l, f.d, &rec);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  fixture<D> g(small_integers(0));
  exec::engine_options round_robin;
  round_robin.warp_wide = false;
  auto rr = run(k, l, g.d, static_cast<recorder*>(nullptr), round_robin);
  REQUIRE(!rr.error);
  CHECK(r.stats.steps == rr.stats.steps);
  return r;
}

// Runs a kernel of 64 threads that stores y[t] = t, then y[64 + t] = second(t), warp-wide (and
// under round robin: warp_wide_and_round_robin), and checks the values and that the stores came
// in thread order, every first store before any second one: the i-th is thread i % 64's, to
// element i; except that the second stores begin with warp `second_from` (then the warps after
// it, in turn).
template <class D, class Second>
void stores_in_thread_order(std::string_view ptx, std::string file, Second second, std::uint32_t second_from = 0) {
  auto k = load(ptx, std::move(file));
  exec::launch l = one_cta(64, {out_int("y", 128)});
  fixture<D> f(small_integers(0));
  recorder rec;
  auto r = warp_wide_and_round_robin<D>(*k, l, f, rec);
  for (std::uint32_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    REQUIRE(r.out["y"][t].has_value());
    CHECK(f.at(*r.out["y"][t], l) == t);
    REQUIRE(r.out["y"][64 + t].has_value());
    CHECK(f.at(*r.out["y"][64 + t], l) == second(t));
  }
  auto got = rec.accesses();
  REQUIRE(got.size() == 128);
  for (std::uint32_t i = 0; i < 128; ++i) {
    CAPTURE(i);
    const std::uint32_t t = i < 64 ? i : (i + 32 * second_from) % 64;
    CHECK(got[i].thread == t);
    CHECK(got[i].offset == (i < 64 ? t : 64 + t) * 4);
  }
}

}  // namespace

TEST_CASE_TEMPLATE("warp-wide execution: lanes that exited stay out; the others go on warp-wide", D, DOMAINS) {
  auto k = load(exited_lanes_ptx, "tail.ptx");
  exec::launch l = one_cta(32, {out_int("y", 6)});
  fixture<D> f(small_integers(0));
  recorder rec;
  auto r = warp_wide_and_round_robin<D>(*k, l, f, rec);
  const std::uint64_t values[6] = {0, 1, 2, 10, 11, 12};
  for (std::uint32_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    REQUIRE(r.out["y"][i].has_value());
    CHECK(f.at(*r.out["y"][i], l) == values[i]);
  }
  // Each of the three live lanes stores, then each stores again (round robin: 0, 0, 1, 1, 2, 2).
  const std::pair<std::uint32_t, std::uint64_t> want[] = {{0, 0}, {1, 4}, {2, 8}, {0, 12}, {1, 16}, {2, 20}};
  auto got = rec.accesses();
  REQUIRE(got.size() == std::size(want));
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].thread == want[i].first);
    CHECK(got[i].offset == want[i].second);
  }
}

TEST_CASE_TEMPLATE("warp-wide execution: the warps take turns of warp_round instructions", D, DOMAINS) {
  // The first stores of warp 0 (lanes in order), then of warp 1, then the second stores of each.
  stores_in_thread_order<D>(warp_turns_ptx, "turns.ptx", [](std::uint32_t) { return 400; });
}

TEST_CASE_TEMPLATE("warp-wide execution: after a barrier's release the warps go on warp-wide", D, DOMAINS) {
  // The first interval in thread order; the second begins with warp 1, whose thread 63 completed
  // the barrier (round robin runs thread 63 on through its second store first: 63, 0, 1, ..., 62),
  // then warp 0: 32, ..., 63, 0, ..., 31.
  stores_in_thread_order<D>(barrier_release_ptx, "released.ptx", [](std::uint32_t t) { return 100 + t; }, 1);
}

TEST_CASE_TEMPLATE("shfl over a whole warp and over half warps: values by hand, warp-wide and round robin", D, DOMAINS) {
  // y[t] = t; a shfl.down over the whole warp; a shfl.idx over half warps (lanes 0-15 with
  // member mask 0xffff, lanes 16-31 with 0xffff0000, segments of 16: c = 0x101f), which
  // completes twice per warp; then y[64 + t] and y[128 + t].
  constexpr std::string_view shuffled = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry shuffled(.param .u64 y_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  mad.lo.u32 %r2, %r1, 3, 1;
  shfl.sync.down.b32 %r3|%p1, %r2, 1, 31, -1;
  and.b32 %r4, %r1, 16;
  setp.eq.u32 %p2, %r4, 0;
  selp.b32 %r5, 65535, -65536, %p2;
  shfl.sync.idx.b32 %r6, %r3, 5, 4127, %r5;
  st.global.u32 [%rd3+256], %r3;
  st.global.u32 [%rd3+512], %r6;
  ret;
}
)";
  auto k = load(shuffled, "shuffled.ptx");
  exec::launch l = one_cta(64, {out_int("y", 192)});
  fixture<D> f(small_integers(0));
  recorder rec;
  auto r = warp_wide_and_round_robin<D>(*k, l, f, rec);
  // By hand: shfl.down by 1 gives lane l the value 3t + 1 of lane l + 1, lane 31 keeps its own;
  // shfl.idx 5 in a segment of 16 reads lane 5 (or 21) of the same warp.
  auto down = [](std::uint32_t t) { return t % 32 == 31 ? 3 * t + 1 : 3 * (t + 1) + 1; };
  for (std::uint32_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    REQUIRE(r.out["y"][64 + t].has_value());
    CHECK(f.at(*r.out["y"][64 + t], l) == down(t));
    REQUIRE(r.out["y"][128 + t].has_value());
    CHECK(f.at(*r.out["y"][128 + t], l) == down(t / 32 * 32 + (t & 16) + 5));
  }
  CHECK(r.stats.warp_collectives == 6);  // per warp: the shfl.down, and the shfl.idx per half
}

TEST_CASE("warp collectives are warp-barrier instances, one generation per collective and warp") {
  constexpr std::string_view warp_sync = R"(
.visible .entry warp_sync(.param .u64 y_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
  bar.warp.sync -1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
  auto k = load(warp_sync, "warp_sync.ptx");
  exec::launch l = one_cta(64, {out_int("y", 64)});
  fixture<exec::exact_domain> f(small_integers(0));
  recorder rec;
  auto r = run(*k, l, f.d, &rec);
  REQUIRE(!r.error);
  for (std::uint32_t i = 0; i < 64; ++i) CHECK(*r.out["y"][i] == (i ^ 1));
  for (std::uint32_t w = 0; w < 2; ++w) {
    CAPTURE(w);
    auto done = rec.of(recorder::what::completion, warp_barrier(w));
    REQUIRE(done.size() == 2);
    CHECK(done[0]->generation == 1);
    CHECK(done[1]->generation == 2);
    CHECK(done[0]->participants.size() == 32);
    CHECK(done[0]->participants.front().thread == 32 * w);
    CHECK(done[0]->participants.back().thread == 32 * w + 31);
    auto regs = rec.of(recorder::what::registration, warp_barrier(w));
    CHECK(regs.size() == 64);
  }
  CHECK(r.stats.warp_collectives == 4);
  CHECK(rec.of(recorder::what::completion, cta_barrier(0)).empty());
}

// ---- named barriers (WEFT) ------------------------------------------------------------------------

namespace {

// Warp 0 produces, warp 1 consumes, two rounds through one shared buffer:
//   producer: buf[lane] = x[32 r + lane]; bar.arrive 1, 64; bar.sync 2, 64   (wait until read)
//   consumer: bar.sync 1, 64; y[32 r + lane] = 2 * buf[lane]; bar.arrive 2, 64
// and everyone meets at bar.sync 0 before exiting (the next test is the one where arrivers exit).
constexpr std::string_view pipeline = R"(
.visible .entry pipeline(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  .shared .align 4 .f32 buf[32];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, buf;
  add.s32 %r5, %r4, %r3;
  mov.u32 %r6, 0;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L_consumer;
$L_produce:
  shl.b32 %r7, %r6, 5;
  add.s32 %r8, %r7, %r2;
  mul.wide.u32 %rd3, %r8, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  st.shared.f32 [%r5], %f1;
  bar.arrive 1, 64;
  bar.sync 2, 64;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, 2;
  @%p2 bra $L_produce;
  bra.uni $L_end;
$L_consumer:
  bar.sync 1, 64;
  ld.shared.f32 %f2, [%r5];
  add.f32 %f3, %f2, %f2;
  shl.b32 %r9, %r6, 5;
  add.s32 %r10, %r9, %r2;
  mul.wide.u32 %rd5, %r10, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.f32 [%rd6], %f3;
  bar.arrive 2, 64;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p3, %r6, 2;
  @%p3 bra $L_consumer;
$L_end:
  bar.sync 0;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("named barriers: a producer warp arrives, a consumer warp syncs", D, DOMAINS) {
  auto k = load(pipeline, "pipeline.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 64), in_f32("x", 64)});
  values v = small_integers(4);
  fixture<D> f(v);
  recorder rec;
  auto r = run(*k, l, f.d, &rec);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint64_t i = 0; i < 64; ++i) {
    CAPTURE(i);
    REQUIRE(r.out["y"][i].has_value());
    CHECK(f.at(*r.out["y"][i], l) == 2 * v("x", i));
  }

  // Barrier 1: the producers register without waiting, the consumers wait; each round is one
  // completed generation of all 64 threads.
  const std::uint32_t arrive1 = line_of(pipeline, "bar.arrive 1, 64"), sync1 = line_of(pipeline, "bar.sync 1, 64");
  const auto& code = k->module.functions[0].instructions;
  auto regs1 = rec.of(recorder::what::registration, cta_barrier(1));
  REQUIRE(regs1.size() == 128);
  for (auto* e : regs1) {
    CAPTURE(e->r.thread);
    bool producer = e->r.thread < 32;
    CHECK(e->r.waits == !producer);
    CHECK(code[e->r.instruction].line == (producer ? arrive1 : sync1));
    CHECK(e->expected == 64);
  }
  auto done1 = rec.of(recorder::what::completion, cta_barrier(1));
  REQUIRE(done1.size() == 2);
  for (std::uint32_t g = 0; g < 2; ++g) {
    CAPTURE(g);
    CHECK(done1[g]->generation == g + 1);
    CHECK(done1[g]->expected == 64);
    REQUIRE(done1[g]->participants.size() == 64);
    std::uint32_t arrivers = 0;
    for (auto& p : done1[g]->participants) arrivers += !p.waits;
    CHECK(arrivers == 32);
  }
  // Registrations carry the generation they join: 64 on generation 1, then 64 on generation 2.
  CHECK(regs1.front()->generation == 1);
  CHECK(regs1.back()->generation == 2);

  // Barrier 2 the other way round: consumers arrive, producers wait.
  auto done2 = rec.of(recorder::what::completion, cta_barrier(2));
  REQUIRE(done2.size() == 2);
  CHECK(done2[1]->generation == 2);
  for (auto& p : done2[0]->participants) CHECK(p.waits == (p.thread < 32));
  CHECK(r.stats.barrier_instances == 5);  // and the final bar.sync 0
}

TEST_CASE("named barriers: arrivers that exit right after bar.arrive still count once each") {
  // Warp 0 waits at bar.sync 1, 64; warp 1 arrives and exits. One generation of 64 threads.
  constexpr std::string_view arrive_exit = R"(
.visible .entry arrive_exit()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L_arrive;
  bar.sync 1, 64;
  ret;
$L_arrive:
  bar.arrive 1, 64;
  ret;
}
)";
  auto k = load(arrive_exit, "arrive_exit.ptx");
  fixture<exec::exact_domain> f(small_integers(0));
  recorder rec;
  auto r = run(*k, one_cta(64, {}), f.d, &rec);
  CHECK_MESSAGE(!r.error, (r.error ? r.error->message : std::string()));
  auto done = rec.of(recorder::what::completion, cta_barrier(1));
  REQUIRE(done.size() >= 1);
  CHECK(done.size() == 1);
  CHECK(done[0]->participants.size() == 64);
}

TEST_CASE("named barriers: the corpus's warp-specialized double-buffered pipeline") {
  // examples/kernels/named_barriers/mirror_pipeline.cu: one DMA warp, two compute warps, 8 chunks
  // of 64 through buf[2][64]; FULL barriers 1-2 (producer arrives), EMPTY barriers 3-4
  // (consumers arrive), 96 threads each. y[64k + c] = x[64k + c] * x[64k + 63 - c].
  std::string path = std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/named_barriers/mirror_pipeline.ptx";
  auto k = load_file(path, "mirror_pipeline");
  exec::launch l = one_cta(96, {in_f32("x", 512), out_f32("y", 512)}, {{"n", false, 512}});
  fixture<exec::symbolic_domain> f(random_rationals(2));
  recorder rec;
  auto r = run(*k, l, f.d, &rec);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  term::store& s = f.s;
  for (std::uint32_t i = 0; i < 512; ++i) {
    CAPTURE(i);
    std::uint32_t b = i / 64 * 64, c = i % 64;
    REQUIRE(r.out["y"][i].has_value());
    CHECK(*r.out["y"][i] == s.mul(s.input("x", {b + c}), s.input("x", {b + 63 - c})));
  }
  for (std::uint32_t id = 1; id <= 4; ++id) {
    CAPTURE(id);
    auto done = rec.of(recorder::what::completion, cta_barrier(id));
    CHECK(done.size() == (id <= 2 ? 4u : 3u));  // FULL once per chunk of its buffer; EMPTY for k + 2 < 8
    for (std::size_t g = 0; g < done.size(); ++g) {
      CHECK(done[g]->generation == g + 1);
      CHECK(done[g]->participants.size() == 96);
      for (auto& p : done[g]->participants) CHECK(p.waits == (id <= 2 ? p.thread >= 32 : p.thread < 32));
    }
  }
  CHECK(r.stats.barrier_instances == 14);
}

TEST_CASE("named barriers: the corpus pipeline under random schedules") {
  // Race-free and deadlock-free under every schedule: the outputs must not depend on it.
  std::string path = std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/named_barriers/mirror_pipeline.ptx";
  auto k = load_file(path, "mirror_pipeline");
  exec::launch l = one_cta(96, {in_f32("x", 512), out_f32("y", 512)}, {{"n", false, 512}});
  values v = small_integers(5);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    fixture<exec::exact_domain> f(v);
    exec::engine_options o;
    o.schedule_seed = seed;
    auto r = run(*k, l, f.d, static_cast<recorder*>(nullptr), o);
    CHECK_MESSAGE(!r.error, (r.error ? r.error->message : std::string()));
    if (r.error) continue;
    for (std::uint64_t i = 0; i < 512; ++i) {
      std::uint64_t b = i / 64 * 64, c = i % 64;
      CHECK(*r.out["y"][i] == v("x", b + c) * v("x", b + 63 - c));
    }
  }
}

// ---- cp.async ----------------------------------------------------------------------------------------

namespace {

// One thread copies x[0..3] (group 0) and x[4..7] (group 1) into s, then reads s[3] after
// wait_group 1 (group 0 has landed) and s[4] after wait_all.
constexpr std::string_view async_copy = R"(
.visible .entry async_copy(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .f32 s[8];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  cvta.to.global.u64 %rd3, %rd2;
  mov.u32 %r1, s;
  cp.async.ca.shared.global [%r1], [%rd3], 16;
  cp.async.commit_group;
  cp.async.cg.shared.global [%r1+16], [%rd3+16], 16;
  cp.async.commit_group;
  cp.async.wait_group 1;
  ld.shared.f32 %f1, [%r1+12];
  st.global.f32 [%rd1], %f1;
  cp.async.wait_all;
  ld.shared.f32 %f2, [%r1+16];
  st.global.f32 [%rd1+4], %f2;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("cp.async: copies land in shared memory at wait_group / wait_all", D, DOMAINS) {
  auto k = load(async_copy, "async_copy.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 2), in_f32("x", 8)});
  values v = small_integers(6);
  fixture<D> f(v);
  recorder rec;
  auto r = run(*k, l, f.d, &rec);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(f.at(*r.out["y"][0], l) == v("x", 3));
  CHECK(f.at(*r.out["y"][1], l) == v("x", 4));

  // The global reads happen at issue; the shared writes at the wait, attributed to the cp.async.
  auto acc = rec.accesses();
  const auto& code = k->module.functions[0].instructions;
  std::vector<std::uint32_t> order;  // lines of the accesses in order
  for (auto& a : acc) order.push_back(code[a.instruction].line);
  const std::uint32_t copy0 = line_of(async_copy, "cp.async.ca"), copy1 = line_of(async_copy, "cp.async.cg"),
                      read3 = line_of(async_copy, "ld.shared.f32 %f1");
  REQUIRE(acc.size() >= 4);
  CHECK(acc[0].region == 1);  // x, read by the first copy at issue
  CHECK(acc[0].kind == exec::access_kind::read);
  CHECK(order[0] == copy0);
  CHECK(order[1] == copy1);
  // Then group 0 lands (writes to s, bytes 0..15), then the read of s[3].
  std::size_t i = 2;
  std::uint64_t landed = 0;
  for (; i < acc.size() && acc[i].kind == exec::access_kind::write; ++i) {
    CHECK(acc[i].region == 2);
    CHECK(order[i] == copy0);
    CHECK(acc[i].offset < 16);
    landed += acc[i].width;
  }
  CHECK(landed == 16);
  REQUIRE(i < acc.size());
  CHECK(order[i] == read3);

  // Reading the second group's destination before wait_all: it has not landed.
  std::string early(async_copy);
  early.replace(early.find("ld.shared.f32 %f1, [%r1+12]"), 27, "ld.shared.f32 %f1, [%r1+16]");
  auto k2 = load(early, "async_early.ptx");
  fixture<D> g(v);
  auto e = expect_error(*k2, l, g.d);
  CHECK(e.kind == exec::error_kind::uninitialized);
  CAPTURE(e.message);
  CHECK(contains(e.message, "async_early.ptx:" + std::to_string(read3)));
  CHECK(contains(e.message, "uninitialized shared memory s"));

  // And the first group's before any wait.
  std::string none(async_copy);
  none.replace(none.find("  cp.async.wait_group 1;\n"), 24, "");
  auto k3 = load(none, "async_none.ptx");
  fixture<D> h(v);
  auto e3 = expect_error(*k3, l, h.d);
  CHECK(e3.kind == exec::error_kind::uninitialized);
}

TEST_CASE_TEMPLATE("cp.async with a source size zero-fills the rest of the destination", D, DOMAINS) {
  // 16 bytes to s[0..3] with only 8 read from x: s[2], s[3] become 0.
  constexpr std::string_view zfill = R"(
.visible .entry zfill(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .f32 s[4];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, s;
  cp.async.ca.shared.global [%r1], [%rd2], 16, 8;
  cp.async.wait_all;
  ld.shared.v4.f32 {%f1, %f2, %f3, %f0}, [%r1];
  st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f0};
  ret;
}
)";
  auto k = load(zfill, "zfill.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 4), in_f32("x", 4)});
  values v = [](std::string_view, std::uint64_t i) { return rat(static_cast<long long>(i) + 5); };
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK(f.at(*r.out["y"][0], l) == 5);
  CHECK(f.at(*r.out["y"][1], l) == 6);
  CHECK(f.at(*r.out["y"][2], l) == 0);
  CHECK(f.at(*r.out["y"][3], l) == 0);
}

TEST_CASE("cp.async.wait_group 0 waits for committed groups only: an uncommitted copy has not landed") {
  // PTX ISA: wait_group N waits until at most N of the most recent *committed* groups are
  // pending. A copy never committed belongs to no group, so reading its destination is not
  // ordered after it (wait_all = commit_group + wait_group 0 would be).
  constexpr std::string_view uncommitted = R"(
.visible .entry uncommitted(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .f32 s[4];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, s;
  cp.async.ca.shared.global [%r1], [%rd2], 4;
  cp.async.wait_group 0;
  ld.shared.f32 %f1, [%r1];
  st.global.f32 [%rd1], %f1;
  ret;
}
)";
  auto k = load(uncommitted, "uncommitted.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 1), in_f32("x", 4)});
  fixture<exec::exact_domain> f(small_integers(0));
  auto r = run(*k, l, f.d);
  REQUIRE(r.error.has_value());
  CHECK(r.error->kind == exec::error_kind::uninitialized);
}
