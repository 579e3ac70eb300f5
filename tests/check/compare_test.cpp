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

TEST_CASE("element_values: pages allocated on write, next() skips the others, dense() and == see every element") {
  check::element_values<std::uint32_t> v(5000);  // pages of 1024: 0..1023, ..., 4096..4999
  const auto& cv = v;
  CHECK(v.size() == 5000);
  CHECK(v.next(0) == 5000);  // nothing written: no page
  CHECK_FALSE(cv[4321].has_value());
  CHECK(v.next(0) == 5000);  // a const read allocates nothing
  v[2100] = 7;               // page 2: 2048..3071
  v[4999] = 9;               // page 4: 4096..4999
  CHECK(v.next(0) == 2048);
  CHECK(v.next(2101) == 2101);
  CHECK(v.next(3072) == 4096);
  CHECK(v.next(5000) == 5000);
  CHECK(v.written() == 2);
  std::vector<std::uint64_t> seen;
  for (std::uint64_t i = v.next(0); i < v.size(); i = v.next(i + 1))
    if (cv[i]) seen.push_back(i);
  CHECK(seen == std::vector<std::uint64_t>{2100, 4999});
  auto d = v.dense();
  REQUIRE(d.size() == 5000);
  CHECK(d[2100] == 7u);
  CHECK(d[4999] == 9u);
  CHECK_FALSE(d[0].has_value());
  check::element_values<std::uint32_t> same_values(d.begin(), d.end());
  CHECK(same_values == v);
  same_values[10] = 1;  // one more page and one more element
  CHECK_FALSE(same_values == v);
  check::element_values<std::uint32_t> copy = v;
  copy[2100].reset();  // an allocated page holding nothing equals an unallocated one
  check::element_values<std::uint32_t> only_last(5000);
  only_last[4999] = 9;
  CHECK(copy == only_last);
  check::element_values<std::uint32_t> grown;  // appended to, as a vector
  grown.push_back(3u);
  grown.push_back(std::nullopt);
  grown.push_back(5u);
  const auto& cgrown = grown;
  CHECK(grown.size() == 3);
  CHECK(grown.written() == 2);
  CHECK_FALSE(cgrown[1].has_value());
  CHECK(cgrown[2] == 5u);
}

TEST_CASE("compare counts the elements on pages neither side wrote as unwritten, in every tensor") {
  term::store s;
  // A tensor of 10000 elements of which both sides write elements 3000..3009 (page 2) and the
  // candidate alone writes 9000 (page 8), and a second tensor neither side writes.
  check::output_values ref(10000), cand(10000);
  for (std::uint64_t i = 3000; i < 3010; ++i) {
    term::term_id x = s.input("x", {static_cast<std::uint32_t>(i)});
    ref[i] = s.add(x, s.one());
    cand[i] = s.add(s.one(), x);
  }
  cand[9000] = s.zero();
  check::outputs a{{"y", ref}, {"z", check::output_values(4096)}}, b{{"y", cand}, {"z", check::output_values(4096)}};
  check::comparison c = check::compare(s, a, b);
  CHECK(c.elements == 10000 + 4096);
  CHECK(c.equal == 10);
  CHECK(c.written_by_one == 1);
  CHECK(c.unwritten == 10000 + 4096 - 11);
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].index == 9000);
  CHECK(c.problems[0].reason == "only the candidate writes it");
}
