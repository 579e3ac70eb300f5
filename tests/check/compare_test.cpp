#include <gpueq/check/compare.hpp>

#include "../common/term_families.hpp"

#include <doctest/doctest.h>

using namespace gpueq;

namespace {
check::output_values as_outputs(const std::vector<term::term_id>& v) {
  return check::output_values(v.begin(), v.end());
}
}  // namespace

TEST_CASE("softmax outputs: equal, different with a witness, written by one kernel") {
  term::store s;
  check::outputs naive{{"y", as_outputs(families::softmax_naive(s, 32))}};
  check::outputs online{{"y", as_outputs(families::softmax_online(s, 32))}};
  check::outputs broken{{"y", as_outputs(families::softmax_online(s, 32, false))}};

  std::uint64_t progress_calls = 0;
  check::compare_options o;
  o.progress = [&](std::uint64_t done, std::uint64_t total) {
    CHECK(done <= total);
    ++progress_calls;
  };
  o.progress_every = 8;
  check::comparison same = check::compare(s, naive, online, o);
  CHECK(same.elements == 32);
  CHECK(same.equal == 32);
  CHECK(same.all_equal());
  CHECK(same.problems.empty());
  CHECK(progress_calls == 4);

  check::comparison bad = check::compare(s, naive, broken);
  CHECK(bad.different > 0);
  CHECK_FALSE(bad.all_equal());
  REQUIRE_FALSE(bad.problems.empty());
  CHECK(bad.problems[0].status == check::element_status::different);
  CHECK(bad.problems[0].witness.has_value());

  check::outputs partial = online;
  partial["y"][5].reset();
  partial["y"][6].reset();
  check::outputs reference_partial = naive;
  reference_partial["y"][6].reset();
  check::comparison holes = check::compare(s, reference_partial, partial);
  CHECK(holes.written_by_one == 1);
  CHECK(holes.unwritten == 1);
  CHECK(holes.equal == 30);
  REQUIRE(holes.problems.size() == 1);
  CHECK(holes.problems[0].index == 5);
  CHECK(holes.problems[0].reason == "only the reference writes it");

  check::outputs short_output{{"y", check::output_values(3)}};
  CHECK_THROWS_AS(check::compare(s, naive, short_output), std::invalid_argument);
}
