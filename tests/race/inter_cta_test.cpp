// Inter-CTA footprints (issue 21 item 4): per byte, with atomics as a kind of their own. Expected
// verdicts follow from the rule, not from a run: a byte written by one CTA and touched by another
// races; read by one and updated atomically by another races; atomics of one commuting operation
// from different CTAs do not race with each other, atomics that do not commute do.
#include <gpueq/race/inter_cta.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace gpueq;
using exec::access_kind;
using exec::atomic_op;

const exec::run_info info{32, 32, {{exec::memory_space::global, "y", 2, 64}, {exec::memory_space::shared, "s", 4, 64}}};

struct one_access {
  access_kind kind;
  std::uint64_t offset;
  std::uint32_t width;
  atomic_op op = atomic_op::none;
};

race::cta_footprint footprint(std::vector<one_access> accesses) {
  race::cta_footprint f;
  for (auto& a : accesses) f.access({0, 0, a.offset, a.width, a.kind, 0, {}, a.op}, info);
  return f;
}

// The conflict of CTAs 0, 1, ... in grid order, each with its accesses.
std::optional<std::string> conflict(std::vector<std::vector<one_access>> ctas) {
  race::grid_footprint g;
  for (std::size_t c = 0; c < ctas.size(); ++c)
    g.add(static_cast<std::int32_t>(c), {static_cast<std::uint32_t>(c), 0, 0}, footprint(ctas[c]), info);
  return g.conflict();
}

const one_access add4{access_kind::atomic, 0, 4, atomic_op::add};

}  // namespace

TEST_CASE("atomics of one commuting operation from different CTAs do not race") {
  CHECK_FALSE(conflict({{add4}, {add4}, {add4}}));
  CHECK_FALSE(conflict({{{access_kind::atomic, 0, 4, atomic_op::max}}, {{access_kind::atomic, 0, 4, atomic_op::max}}}));
  CHECK_FALSE(conflict({{{access_kind::atomic, 0, 4, atomic_op::or_}}, {{access_kind::atomic, 0, 4, atomic_op::or_}}}));
}

TEST_CASE("atomics that do not commute race across CTAs") {
  auto c = conflict({{add4}, {{access_kind::atomic, 0, 4, atomic_op::max}}});
  REQUIRE(c);
  CHECK(*c == "y[0] is updated atomically (max) by CTA (1,0,0) and updated atomically (add) by CTA (0,0,0) "
              "(the result depends on the order of the CTAs)");
  CHECK(conflict({{{access_kind::atomic, 0, 4, atomic_op::other}}, {{access_kind::atomic, 0, 4, atomic_op::other}}}));
  // A CTA that mixes operations on one word mixes them against the other CTA too.
  CHECK(conflict({{add4, {access_kind::atomic, 0, 4, atomic_op::min}}, {add4}}));
}

TEST_CASE("a plain access against another CTA's atomic is still a race, in either order") {
  const one_access write{access_kind::write, 0, 4}, read{access_kind::read, 0, 4};
  auto c = conflict({{write}, {add4}});
  REQUIRE(c);
  CHECK(*c == "y[0] is updated atomically (add) by CTA (1,0,0) and written by CTA (0,0,0) "
              "(the result depends on the order of the CTAs)");
  c = conflict({{add4}, {write}});
  REQUIRE(c);
  CHECK(*c == "y[0] is written by CTA (1,0,0) and updated atomically (add) by CTA (0,0,0) "
              "(the result depends on the order of the CTAs)");
  CHECK(conflict({{read}, {add4}}));
  CHECK(conflict({{add4}, {read}}));
  // Reads by two CTAs do not race.
  CHECK_FALSE(conflict({{read}, {read}}));
}

TEST_CASE("footprints are per byte: the two f16 halves of one word are not shared") {
  const one_access low{access_kind::write, 0, 2}, high{access_kind::write, 2, 2};
  CHECK_FALSE(conflict({{low}, {high}}));
  // One shared byte is enough: bytes 1..2 overlap both halves.
  auto c = conflict({{low}, {{access_kind::write, 1, 2}}});
  REQUIRE(c);
  CHECK(*c == "y[0] is written by CTA (1,0,0) and written by CTA (0,0,0) (the result depends on the order of the CTAs)");
  c = conflict({{high}, {{access_kind::read, 1, 2}}});
  REQUIRE(c);
  CHECK(*c == "y[1] is read by CTA (1,0,0) and written by CTA (0,0,0) (the result depends on the order of the CTAs)");
  // A 16-byte vector write and a 2-byte write at its end meet; one just past it does not.
  CHECK(conflict({{{access_kind::write, 0, 16}}, {{access_kind::write, 14, 2}}}));
  CHECK_FALSE(conflict({{{access_kind::write, 0, 16}}, {{access_kind::write, 16, 2}}}));
}

TEST_CASE("shared memory is no part of the inter-CTA footprint") {
  race::cta_footprint f;
  f.access({0, 1, 0, 4, access_kind::write, 0, {}, atomic_op::none}, info);
  CHECK(f.words.empty());
}

TEST_CASE("atomic_only: the operation of bytes a CTA touched only by atomics of one operation") {
  CHECK(footprint({add4}).atomic_only(0, 0, 4) == atomic_op::add);
  CHECK(footprint({add4}).atomic_only(0, 0, 2) == atomic_op::add);
  CHECK(footprint({add4}).atomic_only(0, 4, 2) == atomic_op::none);  // untouched
  CHECK(footprint({{access_kind::atomic, 0, 2, atomic_op::add}}).atomic_only(0, 0, 4) == atomic_op::none);  // half
  CHECK(footprint({add4, {access_kind::read, 0, 4}}).atomic_only(0, 0, 4) == atomic_op::none);
  CHECK(footprint({add4, {access_kind::write, 2, 2}}).atomic_only(0, 0, 2) == atomic_op::add);
  CHECK(footprint({add4, {access_kind::atomic, 0, 4, atomic_op::max}}).atomic_only(0, 0, 4) == atomic_op::none);
}
