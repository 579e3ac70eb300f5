// Synthetic event sequences fed straight into the race context: each test plays the engine's
// part (a tiny barrier matcher below), so the context is tested without the executor.
#include <gpueq/race.hpp>

#include <doctest/doctest.h>

#include <map>
#include <utility>
#include <vector>

namespace {

using namespace gpueq;
using exec::access_kind;
using exec::barrier_key;
using exec::barrier_kind;
using exec::memory_space;
using race::barrier_problem;
using race::race_kind;

// Plays the engine: reports accesses and matches barrier generations the way WEFT's semantics
// do (the first registrant configures the count; the generation completes when that many have
// registered).
struct harness {
  exec::run_info info;
  race::context ctx;
  struct barrier_state {
    std::uint32_t generation = 1;
    std::uint32_t expected = 0;
    std::vector<exec::barrier_registration> registrants;
  };
  std::map<std::pair<int, std::uint32_t>, barrier_state> barriers;

  explicit harness(std::uint32_t threads, race::options o = {}, std::uint32_t warp_size = 32) : ctx(o) {
    info.threads = threads;
    info.warp_size = warp_size;
    info.regions = {{memory_space::shared, "smem", 4, 1 << 20},
                    {memory_space::global, "out", 4, 1 << 24},
                    {memory_space::local, "depot", 4, 64},
                    {memory_space::param, "params", 8, 64}};
    ctx.on_start(info);
  }

  // value: the bits written (0: an unknown value).
  void touch(access_kind k, std::uint32_t t, std::uint64_t offset, std::uint32_t instr, std::uint32_t region = 0,
             std::uint32_t width = 4, std::uint64_t value = 0) {
    touch_as(k, t, offset, instr, region, width,
             value ? exec::value_identity{exec::value_identity::kind::bits, value} : exec::value_identity{});
  }
  void touch_as(access_kind k, std::uint32_t t, std::uint64_t offset, std::uint32_t instr, std::uint32_t region,
                std::uint32_t width, exec::value_identity value) {
    ctx.on_access({t, region, offset, width, k, instr, value});
  }
  void read(std::uint32_t t, std::uint64_t offset, std::uint32_t instr = 0, std::uint32_t region = 0,
            std::uint32_t width = 4) {
    touch(access_kind::read, t, offset, instr, region, width);
  }
  void write(std::uint32_t t, std::uint64_t offset, std::uint32_t instr = 0, std::uint32_t region = 0,
             std::uint32_t width = 4, std::uint64_t value = 0) {
    touch(access_kind::write, t, offset, instr, region, width, value);
  }
  void atomic(std::uint32_t t, std::uint64_t offset, std::uint32_t instr = 0) {
    touch(access_kind::atomic, t, offset, instr);
  }

  void reg(barrier_key key, std::uint32_t t, bool waits, std::uint32_t count, std::uint32_t instr) {
    auto& b = barriers[{static_cast<int>(key.kind), key.id}];
    if (b.registrants.empty()) b.expected = count == 0 ? info.threads : count;
    exec::barrier_registration r{t, waits, instr};
    ctx.on_barrier_register(r, key, b.generation, count);
    b.registrants.push_back(r);
    if (b.registrants.size() == b.expected) {
      ctx.on_barrier_complete({key, b.generation, b.expected, b.registrants});
      b.registrants.clear();
      ++b.generation;
    }
  }
  void sync(std::uint32_t t, std::uint32_t id, std::uint32_t count = 0, std::uint32_t instr = 100) {
    reg({barrier_kind::cta, id}, t, true, count, instr);
  }
  void arrive(std::uint32_t t, std::uint32_t id, std::uint32_t count, std::uint32_t instr = 101) {
    reg({barrier_kind::cta, id}, t, false, count, instr);
  }
  void syncthreads(std::uint32_t instr = 100) {
    for (std::uint32_t t = 0; t < info.threads; ++t) sync(t, 0, 0, instr);
  }
  // A warp collective over the given lanes of warp w (all wait).
  void warp_sync(std::uint32_t w, const std::vector<std::uint32_t>& threads, std::uint32_t instr = 102) {
    for (auto t : threads) reg({barrier_kind::warp, w}, t, true, static_cast<std::uint32_t>(threads.size()), instr);
  }

  const race::report& result() const { return ctx.result(); }
};

const race::race_group* group(const race::report& r, race_kind k, std::uint32_t first, std::uint32_t second) {
  for (auto& g : r.races)
    if (g.example.kind == k && g.example.first.instruction == first && g.example.second.instruction == second)
      return &g;
  return nullptr;
}

std::size_t count(const race::report& r, barrier_problem p) {
  std::size_t n = 0;
  for (auto& d : r.barriers) n += d.problem == p;
  return n;
}

}  // namespace

TEST_CASE("a write and a read by two threads without a barrier race (RAW)") {
  harness h(2);
  h.write(0, 8, 1);
  h.read(1, 8, 2);
  auto& r = h.result();
  REQUIRE(r.race_count == 1);
  REQUIRE(r.races.size() == 1);
  auto& x = r.races[0].example;
  CHECK(x.kind == race_kind::raw);
  CHECK(x.region == 0);
  CHECK(x.offset == 8);
  CHECK(x.element == 2);
  CHECK(x.first.thread == 0);
  CHECK(x.first.instruction == 1);
  CHECK(x.first.kind == access_kind::write);
  CHECK(x.second.thread == 1);
  CHECK(x.second.instruction == 2);
  CHECK(x.second.kind == access_kind::read);
  CHECK_FALSE(x.benign);
  CHECK(x.first.after.generation == 0);
  CHECK(r.well_synchronized());
}

TEST_CASE("a CTA barrier between the write and the read orders them") {
  harness h(4);
  h.write(0, 8, 1);
  h.syncthreads();
  h.read(1, 8, 2);
  h.read(3, 8, 2);
  CHECK(h.result().clean());
  // and the next interval is checked afresh: a write after the barrier races with those reads
  h.write(2, 8, 3);
  auto& r = h.result();
  CHECK(r.race_count == 2);  // against the reads of threads 1 and 3
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].example.kind == race_kind::war);
  CHECK(r.races[0].count == 2);
  CHECK(r.races[0].example.first.after == race::barrier_mark{{barrier_kind::cta, 0}, 1});
  CHECK(r.races[0].example.first.segment == 1);
}

TEST_CASE("a read then an unordered write race (WAR); program order is no race") {
  harness h(2);
  h.read(0, 0, 1);
  h.write(0, 0, 2);  // same thread: ordered
  CHECK(h.result().race_free());
  h.read(1, 4, 3);
  h.write(0, 4, 4);
  auto& r = h.result();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].example.kind == race_kind::war);
  CHECK(r.races[0].example.first.thread == 1);
  CHECK(r.races[0].example.second.thread == 0);
}

TEST_CASE("WAW of equal nonzero values is reported and flagged benign") {
  harness h(2);
  h.write(0, 0, 1, 0, 4, 7);
  h.write(1, 0, 2, 0, 4, 7);
  h.write(0, 16, 3, 0, 4, 7);
  h.write(1, 16, 4, 0, 4, 8);  // different values
  h.write(0, 32, 5, 0, 4, 0);
  h.write(1, 32, 6, 0, 4, 0);  // unknown values
  auto& r = h.result();
  CHECK(r.race_count == 3);
  auto* same = group(r, race_kind::waw, 1, 2);
  REQUIRE(same);
  CHECK(same->example.benign);
  CHECK(same->all_benign);
  REQUIRE(group(r, race_kind::waw, 3, 4));
  CHECK_FALSE(group(r, race_kind::waw, 3, 4)->example.benign);
  REQUIRE(group(r, race_kind::waw, 5, 6));
  CHECK_FALSE(group(r, race_kind::waw, 5, 6)->example.benign);
}

TEST_CASE("bar.arrive orders producer to consumer only") {
  // thread 0 produces (write x; arrive 1), thread 1 consumes (sync 1; read x)
  harness h(2);
  const std::uint64_t x = 0, y = 4, z = 8;
  h.write(0, x, 1);
  h.arrive(0, 1, 2);
  h.read(0, y, 2);   // after its arrive: the consumer does not know of it
  h.write(0, z, 5);  // likewise
  h.sync(1, 1, 2);
  h.read(1, x, 3);   // ordered by arrive -> sync
  CHECK(h.result().race_free());
  h.write(1, y, 4);  // races with the producer's read after its arrive
  h.read(1, z, 6);   // races with the producer's write after its arrive
  auto& r = h.result();
  CHECK(r.race_count == 2);
  REQUIRE(group(r, race_kind::war, 2, 4));
  REQUIRE(group(r, race_kind::raw, 5, 6));
  CHECK(r.well_synchronized());
}

TEST_CASE("the arriver learns nothing from the consumer") {
  harness h(2);
  h.write(1, 0, 1);  // consumer writes before syncing
  h.arrive(0, 1, 2);
  h.sync(1, 1, 2);
  h.read(0, 0, 2);  // producer, after arriving: no order from the consumer's side
  auto& r = h.result();
  REQUIRE(r.race_count == 1);
  CHECK(r.races[0].example.kind == race_kind::raw);
  CHECK(r.races[0].example.second.after == race::barrier_mark{{barrier_kind::cta, 1}, 1});
}

TEST_CASE("syncs of one generation are mutually ordered; its arrivers are ordered before them") {
  harness h(3);
  const std::uint64_t a = 0, b = 4, c = 8, d = 12;
  h.write(0, a, 1);
  h.write(1, b, 2);
  h.write(2, c, 3);
  h.sync(0, 1, 3);
  h.arrive(2, 1, 3);
  h.sync(1, 1, 3);
  h.read(1, a, 4);
  h.read(0, b, 5);
  h.read(0, c, 6);
  h.read(1, c, 7);
  CHECK(h.result().race_free());
  h.write(0, d, 8);
  h.read(2, d, 9);  // thread 2 only arrived
  CHECK(h.result().race_count == 1);
  CHECK(group(h.result(), race_kind::raw, 8, 9));
}

TEST_CASE("WEFT Listing 2: a reused producer-consumer barrier is well-synchronized and race-free") {
  harness h(2);  // P = thread 0, Q = thread 1, every barrier counts 2
  const std::uint32_t P = 0, Q = 1;
  h.sync(P, 0, 2);
  h.sync(Q, 0, 2);
  h.write(P, 0, 1);
  h.sync(Q, 1, 2);
  h.arrive(P, 1, 2);
  h.read(Q, 0, 2);
  h.sync(P, 0, 2);
  h.sync(Q, 0, 2);
  h.sync(P, 1, 2);
  h.write(Q, 0, 3);
  h.arrive(Q, 1, 2);
  h.read(P, 0, 4);
  CHECK(h.result().clean());
  CHECK(h.result().barriers.empty());
}

TEST_CASE("unsafe recycling: registering for generation 2 without knowing generation 1 completed") {
  harness h(2);
  h.arrive(0, 1, 2);
  h.sync(1, 1, 2);    // generation 1 completes; thread 0 only arrived
  h.arrive(0, 1, 2);  // generation 2: in another schedule this arrive could join generation 1
  h.sync(1, 1, 2);
  auto& r = h.result();
  REQUIRE(r.barriers.size() == 1);
  auto& d = r.barriers[0];
  CHECK(d.problem == barrier_problem::unsafe_recycling);
  CHECK(d.is_error());
  CHECK(d.where == race::barrier_mark{{barrier_kind::cta, 1}, 2});
  CHECK(d.thread == 0);
  CHECK(d.known_generation == 0);
  CHECK_FALSE(r.well_synchronized());
}

TEST_CASE("Heptane-style recycling: barrier 2 reused safely through barriers 1 and 3") {
  // Four warps (one thread each). Generation 1 of barrier 2: warp 0 arrives, warp 3 syncs. Warp 3
  // then hands on to warps 1 and 2 through barriers 1 and 3, so both know generation 1 is done
  // when they register for generation 2.
  auto play = [](bool path_to_2, bool warp0_reuses) {
    harness h(4);
    h.arrive(0, 2, 2);
    h.sync(3, 2, 2);
    h.arrive(3, 1, 2);
    h.sync(1, 1, 2);
    if (path_to_2) {
      h.arrive(3, 3, 2);
      h.sync(2, 3, 2);
    }
    h.arrive(warp0_reuses ? 0 : 1, 2, 2, 7);
    h.sync(2, 2, 2, 8);
    return h.ctx.take_result();
  };
  CHECK(play(true, false).clean());
  auto no_path = play(false, false);
  REQUIRE(count(no_path, barrier_problem::unsafe_recycling) == 1);
  CHECK(no_path.barriers[0].thread == 2);
  CHECK(no_path.barriers[0].instruction == 8);
  auto arriver = play(true, true);  // warp 0 only arrived on generation 1: it cannot know
  REQUIRE(count(arriver, barrier_problem::unsafe_recycling) == 1);
  CHECK(arriver.barriers[0].thread == 0);
}

TEST_CASE("__syncthreads reused many times is never unsafe recycling") {
  harness h(64);
  for (int i = 0; i < 5; ++i) h.syncthreads();
  CHECK(h.result().barriers.empty());
}

TEST_CASE("count mismatch within a generation") {
  harness h(4);
  h.sync(0, 0, 4, 1);
  h.sync(1, 0, 2, 2);
  h.sync(2, 0, 2, 3);
  h.sync(3, 0, 4, 4);
  auto& r = h.result();
  REQUIRE(r.barriers.size() == 1);
  auto& d = r.barriers[0];
  CHECK(d.problem == barrier_problem::count_mismatch);
  CHECK(d.thread == 1);
  CHECK(d.instruction == 2);
  CHECK(d.expected == 4);
  CHECK(d.found == 2);
  CHECK(d.count == 2);
  CHECK_FALSE(r.well_synchronized());
  // a missing count means all threads of the CTA
  harness all(4);
  all.sync(0, 0, 0);
  all.sync(1, 0, 4);
  all.sync(2, 0, 0);
  all.sync(3, 0, 4);
  CHECK(all.result().barriers.empty());
}

TEST_CASE("a generation completed by arrivals only is an error naming its arrives, and no recycling error follows") {
  harness h(2);
  h.write(0, 0, 1);
  h.arrive(0, 1, 2, 7);
  h.arrive(1, 1, 2, 8);
  h.read(1, 0, 2);  // nothing was ordered
  h.arrive(0, 1, 2, 7);
  h.arrive(1, 1, 2, 7);
  auto& r = h.result();
  CHECK(r.race_count == 1);
  CHECK(count(r, barrier_problem::all_arrive) == 2);
  CHECK(count(r, barrier_problem::unsafe_recycling) == 0);
  REQUIRE(r.barriers.size() == 2);
  const auto& d = r.barriers[0];
  CHECK(d.is_error());
  CHECK(d.where == race::barrier_mark{{barrier_kind::cta, 1}, 1});
  CHECK(d.thread == 0);
  CHECK(d.instruction == 7);
  CHECK(d.count == 2);
  // each arrive instruction with its threads, in order of first arrival
  REQUIRE(d.arrived.size() == 2);
  CHECK(d.arrived[0].instruction == 7);
  CHECK(d.arrived[0].ranges == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 0}});
  CHECK(d.arrived[1].instruction == 8);
  CHECK(d.arrived[1].ranges == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}});
  REQUIRE(r.barriers[1].arrived.size() == 1);
  CHECK(r.barriers[1].arrived[0].threads == 2);
  CHECK_FALSE(r.well_synchronized());
  std::vector<race::source_line> lines(9);
  lines[7] = {30, "k.cu", 5};
  lines[8] = {41, "k.cu", 9};
  auto text = race::format(d, race::source_lookup([&](std::uint32_t i) { return lines[i]; }));
  CHECK(text == "error: all-arrive generation on barrier 1 generation 1: completed by arrivals only (thread 0 at PTX "
                "line 30 (k.cu:5), thread 1 at PTX line 41 (k.cu:9)): no thread waited (bar.sync) on it, so it orders "
                "nothing");
}

TEST_CASE("strict barriers: a whole-CTA generation that exited threads never reached is a divergence") {
  race::options strict;
  strict.strict_barriers = true;
  for (bool on : {false, true}) {
    CAPTURE(on);
    harness h(4, on ? strict : race::options{});
    h.ctx.on_exit(3, 5);  // thread 3 returns early at instruction 5
    h.ctx.on_exit(2, exec::no_instruction);
    for (std::uint32_t t = 0; t < 2; ++t) h.reg({barrier_kind::cta, 0}, t, true, 0, 9);
    h.ctx.on_barrier_complete({{barrier_kind::cta, 0}, 1, 2, std::vector<exec::barrier_registration>{{0, true, 9}, {1, true, 9}}});
    auto& r = h.result();
    if (!on) {
      CHECK(r.clean());
      continue;
    }
    REQUIRE(count(r, barrier_problem::divergence) == 1);
    const auto& d = r.barriers[0];
    CHECK(d.thread == 2);
    CHECK(d.instruction == 9);
    REQUIRE(d.missing.size() == 2);
    CHECK(d.missing[0].instruction == exec::no_instruction);
    CHECK(d.missing[0].ranges == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2, 2}});
    CHECK(d.missing[1].instruction == 5);
    CHECK_FALSE(r.well_synchronized());
    CHECK(race::format(d) ==
          "error: barrier divergence on barrier 0 generation 1: 2 threads waited: threads 0..1 at instruction 9; thread 2 "
          "exited at the end of the kernel, thread 3 exited at instruction 5 without reaching it (strict mode: every "
          "thread of the block must reach each __syncthreads that any thread reaches)");
  }
}

TEST_CASE("overlapping accesses of different widths meet") {
  harness h(4);
  h.write(0, 16, 1, 0, 16);  // st.shared.v4.f32 over elements 4..7
  h.read(1, 24, 2);          // element 6
  auto& r = h.result();
  REQUIRE(r.race_count == 1);
  CHECK(r.races[0].example.offset == 24);
  CHECK(r.races[0].example.element == 6);
  // bytes: two byte writes to different bytes of one word do not race; a word read races with both
  h.write(0, 65, 3, 0, 1);
  h.write(1, 66, 4, 0, 1);
  CHECK(h.result().race_count == 1);
  h.read(2, 64, 5);
  CHECK(h.result().race_count == 3);
  CHECK(group(h.result(), race_kind::raw, 3, 5));
  CHECK(group(h.result(), race_kind::raw, 4, 5));
  // a 2-byte write at the end of a 16-byte read
  h.read(0, 128, 6, 0, 16);
  h.write(3, 142, 7, 0, 2);
  REQUIRE(group(h.result(), race_kind::war, 6, 7));
  CHECK(group(h.result(), race_kind::war, 6, 7)->example.offset == 142);
  // a vector access racing over four words counts once
  h.write(1, 256, 8, 0, 16);
  h.write(2, 256, 9, 0, 16);
  CHECK(group(h.result(), race_kind::waw, 8, 9)->count == 1);
}

TEST_CASE("atomics do not race with atomics, but do with plain accesses") {
  harness h(4);
  h.atomic(0, 0, 1);
  h.atomic(1, 0, 1);
  h.atomic(2, 0, 1);
  CHECK(h.result().race_free());
  h.read(3, 0, 2);
  auto& r = h.result();
  CHECK(r.race_count == 3);
  REQUIRE(group(r, race_kind::raw, 1, 2));
  CHECK(group(r, race_kind::raw, 1, 2)->example.first.kind == access_kind::atomic);
  h.write(3, 4, 3);
  h.atomic(0, 4, 4);  // plain write then atomic
  CHECK(group(h.result(), race_kind::waw, 3, 4));
  h.syncthreads();
  h.read(0, 0, 5);  // after a barrier the atomics are done
  h.read(1, 0, 5);
  h.atomic(2, 8, 6);
  h.read(2, 8, 7);  // its own atomic
  CHECK(h.result().race_count == 4);
}

TEST_CASE("local and param memory are never race-checked") {
  harness h(2);
  h.write(0, 0, 1, 2);
  h.write(1, 0, 2, 2);
  h.read(0, 0, 3, 3);
  h.write(1, 0, 4, 3);
  CHECK(h.result().race_free());
  CHECK(h.ctx.shadow_words() == 0);
  // global is
  h.write(0, 0, 5, 1);
  h.read(1, 0, 6, 1);
  CHECK(h.result().race_count == 1);
  CHECK(h.result().races[0].example.region == 1);
}

TEST_CASE("warp-synchronous mode suppresses intra-warp races only") {
  auto play = [](bool warp_synchronous) {
    harness h(64, race::options{.warp_synchronous = warp_synchronous});
    h.write(0, 0, 1);
    h.read(1, 0, 2);   // same warp
    h.write(5, 64, 3);
    h.write(6, 64, 4);  // same warp
    h.write(0, 128, 5);
    h.read(32, 128, 6);  // another warp
    return h.ctx.take_result();
  };
  auto volta = play(false);
  CHECK(volta.race_count == 3);
  auto legacy = play(true);
  CHECK(legacy.race_count == 1);
  REQUIRE(legacy.races.size() == 1);
  CHECK(legacy.races[0].example.first.thread == 0);
  CHECK(legacy.races[0].example.second.thread == 32);
}

TEST_CASE("warp collectives order the threads of a warp and nobody else") {
  harness h(64);
  h.write(0, 0, 1);
  h.write(32, 4, 2);
  std::vector<std::uint32_t> warp0, warp1;
  for (std::uint32_t t = 0; t < 32; ++t) warp0.push_back(t), warp1.push_back(32 + t);
  h.warp_sync(0, warp0);
  h.warp_sync(1, warp1);
  h.read(5, 0, 3);   // ordered
  h.read(40, 4, 4);  // ordered
  CHECK(h.result().race_free());
  h.read(40, 0, 5);  // another warp
  CHECK(h.result().race_count == 1);
  // an engine may report a warp instance without its registrations
  harness g(64);
  g.write(0, 0, 1);
  std::vector<exec::barrier_registration> regs;
  for (std::uint32_t t = 0; t < 32; ++t) regs.push_back({t, true, 9});
  g.ctx.on_barrier_complete({{barrier_kind::warp, 0}, 1, 32, regs});
  g.read(7, 0, 2);
  CHECK(g.result().race_free());
  g.read(33, 0, 3);
  CHECK(g.result().race_count == 1);
}

TEST_CASE("races are grouped by instruction pair with counts; the group cap counts the rest") {
  auto play = [](std::size_t cap) {
    harness h(64, race::options{.max_race_groups = cap});
    for (std::uint32_t t = 0; t < 64; ++t) {
      h.write(t, 4 * t, 10);
      h.read(t, 4 * ((t + 1) % 64), 20);
    }
    return h.ctx.take_result();
  };
  auto r = play(256);
  CHECK(r.race_count == 64);
  REQUIRE(r.races.size() == 2);
  auto* war = group(r, race_kind::war, 20, 10);
  auto* raw = group(r, race_kind::raw, 10, 20);
  REQUIRE(war);
  REQUIRE(raw);
  CHECK(war->count == 63);
  CHECK(raw->count == 1);
  CHECK(raw->example.first.thread == 0);
  CHECK(raw->example.second.thread == 63);
  auto capped = play(1);
  CHECK(capped.race_count == 64);
  CHECK(capped.races.size() == 1);
  CHECK(capped.unlisted_groups == 1);
  CHECK(capped.unlisted_races == 1);
}

TEST_CASE("reports print with region names and source lines") {
  harness h(2);
  h.write(0, 8, 1);
  h.read(1, 8, 2);
  h.arrive(0, 1, 2, 3);
  h.sync(1, 1, 2);
  h.arrive(0, 1, 2, 3);
  std::vector<race::source_line> lines = {{10, "k.cu", 3}, {42, "k.cu", 7}, {43, "", 0}, {50, "k.cu", 9}};
  auto text = race::format(h.result(), h.info, std::span<const race::source_line>(lines));
  CAPTURE(text);
  CHECK(text.find("1 race in 1 instruction pair") != std::string::npos);
  CHECK(text.find("RAW race on shared smem[2]") != std::string::npos);
  CHECK(text.find("write by thread 0 at PTX line 42 (k.cu:7), segment 0 (before any CTA barrier)") !=
        std::string::npos);
  CHECK(text.find("read by thread 1 at PTX line 43") != std::string::npos);
  CHECK(text.find("error: unsafe recycling on barrier 1 generation 2: thread 0 registers at PTX line 50 (k.cu:9)") !=
        std::string::npos);
  auto bare = race::format(h.result(), h.info);
  CHECK(bare.find("write by thread 0 at instruction 1") != std::string::npos);
  harness clean(2);
  CHECK(race::format(clean.result(), clean.info) == "race-free\n");
}

TEST_CASE("a context is reusable: on_start forgets the previous run") {
  harness h(2);
  h.write(0, 0, 1);
  h.read(1, 0, 2);
  CHECK(h.result().race_count == 1);
  h.ctx.on_start(h.info);
  h.barriers.clear();
  CHECK(h.result().race_count == 0);
  h.read(1, 0, 2);
  CHECK(h.result().race_free());
}

TEST_CASE("a reused context forgets split shared words too, and runs with another layout") {
  harness h(2);
  h.write(0, 1, 1, 0, 1);  // a byte of shared word 0: the word is split
  h.write(0, 8, 2);        // shared word 2, whole
  h.write(0, 64, 3, 1);    // a global word
  CHECK(h.ctx.shadow_words() == 3);
  // The next run has a smaller shared array first and the old one second.
  exec::run_info other = h.info;
  other.regions.insert(other.regions.begin(), {memory_space::shared, "tile", 4, 64});
  h.ctx.on_start(other);
  CHECK(h.ctx.shadow_words() == 0);
  h.read(1, 0, 4);           // the new tile's word 0
  h.read(1, 8, 5, 1);        // the old shared array, now region 1: nothing written there this run
  h.read(1, 1, 6, 1, 1);     // its split byte of the last run
  h.read(1, 68, 7, 0);       // past the 64-byte tile: a word the array does not hold
  CHECK(h.result().race_free());
  h.write(0, 8, 8, 1);
  CHECK(h.result().race_count == 1);  // WAR with thread 1's read of this run, nothing older
  CHECK(group(h.result(), race_kind::war, 5, 8));
}

TEST_CASE("out-of-range threads are rejected") {
  harness h(2);
  CHECK_THROWS_AS(h.read(2, 0), std::out_of_range);
  CHECK_THROWS_AS(h.sync(5, 0), std::out_of_range);
}

TEST_CASE("scale: 1024 threads, 200 CTA barrier instances, warp collectives and accesses") {
  // Each round: every thread writes its shared slot and a global element, the warps run a
  // collective, a CTA barrier, every thread reads its neighbour's slot and a broadcast slot, a
  // second barrier: 200 CTA instances, 3200 warp instances, 0.4 M accesses and 0.3 M barrier
  // registrations. About 0.05 s in Release on one core of the 2-core dev machine: a barrier costs
  // in its participants and their distinct clocks, never in the memory touched.
  const std::uint32_t n = 1024;
  harness h(n);
  std::vector<std::vector<std::uint32_t>> warps(n / 32);
  for (std::uint32_t t = 0; t < n; ++t) warps[t / 32].push_back(t);
  for (std::uint32_t round = 0; round < 100; ++round) {
    for (std::uint32_t t = 0; t < n; ++t) {
      h.write(t, 4 * t, 1);
      h.write(t, 4 * (static_cast<std::uint64_t>(round) * n + t), 2, 1);
    }
    for (std::uint32_t w = 0; w < n / 32; ++w) h.warp_sync(w, warps[w]);
    h.syncthreads(3);
    for (std::uint32_t t = 0; t < n; ++t) {
      h.read(t, 4 * ((t + 1) % n), 4);
      h.read(t, 0, 5);  // a broadcast read
    }
    h.syncthreads(6);
  }
  CHECK(h.result().clean());
  CHECK(h.ctx.live_clocks() <= 2);
  CHECK(h.ctx.shadow_words() == n + 100 * n);
}

TEST_CASE("scale: a CTA barrier over 1024 distinct clocks") {
  // Every thread first syncs alone (a one-lane __syncwarp), so the CTA barrier joins 1024
  // distinct clocks: O(threads^2) once, still fast.
  const std::uint32_t n = 1024;
  harness h(n);
  for (std::uint32_t t = 0; t < n; ++t) {
    h.write(t, 4 * t, 1);
    h.warp_sync(t / 32, {t});
  }
  CHECK(h.ctx.live_clocks() == n);  // the initial clock is let go with its last holder
  h.syncthreads();
  for (std::uint32_t t = 0; t < n; ++t) h.read(t, 4 * ((t + 7) % n), 2);
  CHECK(h.result().clean());
  CHECK(h.ctx.live_clocks() == 1);
}
