// "benign: same value" is exact (issue 21 item 2): two writes are a benign race only when they
// store the same term (symbolic) or the same bits (concrete) at the same place. The identities
// used to be hashes with a bit or-ed in, so consecutive term ids and some bit patterns merged and
// real races were called benign. These tests build exactly the values that used to collide.
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace gpueq;
using exec::access_kind;
using exec::value_identity;
using race::race_kind;

// Two plain 4-byte writes of `a` and `b` to one shared word by threads 0 and 1, nothing between.
race::report two_writes(value_identity a, value_identity b, std::uint32_t width = 4, std::uint64_t second_offset = 0) {
  exec::run_info info{2, 32, {{exec::memory_space::shared, "s", 4, 64}}};
  race::context ctx;
  ctx.on_start(info);
  ctx.on_access({0, 0, 0, width, access_kind::write, 1, a});
  ctx.on_access({1, 0, second_offset, width, access_kind::write, 2, b});
  return ctx.result();
}

bool benign(const race::report& r) {
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].example.kind == race_kind::waw);
  return r.races[0].example.benign && r.races[0].all_benign;
}

}  // namespace

TEST_CASE("consecutive term ids are different values: their writes race harmfully") {
  term::store s;
  exec::symbolic_domain d(s);
  // Input terms get consecutive ids; take an odd id k and k + 1, the pair whose old identities
  // ((k + 1) | 1 and (k + 2) | 1) were equal.
  std::vector<term::term_id> xs;
  for (std::uint32_t i = 0; i < 4; ++i) xs.push_back(s.input("x", {i}));
  std::size_t i = 0;
  while (i + 1 < xs.size() && !(xs[i] % 2 == 1 && xs[i + 1] == xs[i] + 1)) ++i;
  REQUIRE(i + 1 < xs.size());
  auto id = [&](term::term_id t) {
    auto v = d.identity(exec::symbolic_domain::of(t));
    REQUIRE(v.has_value());
    return value_identity{value_identity::kind::real, *v};
  };
  value_identity a = id(xs[i]), b = id(xs[i + 1]);
  CHECK_FALSE(same_value(a, b));
  CHECK_FALSE(benign(two_writes(a, b)));
  // The same term twice is the same value.
  CHECK(same_value(a, id(xs[i])));
  CHECK(benign(two_writes(a, id(xs[i]))));
}

TEST_CASE("bit patterns whose old hashes merged are different values") {
  // The engine hashed bits as (v * 0x9e3779b97f4a7c15) | 1: 0 and the multiplicative inverse
  // 0xf1de83e19937733d both became 1.
  value_identity zero{value_identity::kind::bits, 0}, inverse{value_identity::kind::bits, 0xf1de83e19937733dull};
  CHECK_FALSE(same_value(zero, inverse));
  CHECK_FALSE(benign(two_writes(zero, inverse, 8)));
  CHECK(benign(two_writes(inverse, inverse, 8)));
  // Bits and a term with the same number are different kinds of value.
  CHECK_FALSE(same_value(value_identity{value_identity::kind::bits, 5}, value_identity{value_identity::kind::real, 5}));
  // An unknown value is the same as nothing, itself included.
  CHECK_FALSE(benign(two_writes({}, {})));
}

TEST_CASE("the same value at a different place in the write is not the same bytes") {
  // Two 8-byte writes of one value, at offsets 0 and 4: bytes 4..7 get its high half from the
  // first and its low half from the second.
  value_identity v{value_identity::kind::bits, 0x0000000100000002ull};
  race::report r = two_writes(v, v, 8, 4);
  CHECK_FALSE(benign(r));
}

TEST_CASE("vector stores are the same value exactly when every element is") {
  exec::identity_sequences seq;
  value_identity x{value_identity::kind::real, 7}, y{value_identity::kind::real, 8};
  value_identity xy[2] = {x, y}, yx[2] = {y, x}, xy2[2] = {x, y}, xu[2] = {x, {}};
  CHECK(same_value(seq.of(xy), seq.of(xy2)));
  CHECK_FALSE(same_value(seq.of(xy), seq.of(yx)));
  CHECK_FALSE(seq.of(xu).known());
  value_identity one[1] = {x};
  CHECK(same_value(seq.of(one), x));
}

namespace {

// y[0] = a * x[tid] (or a * x[0]), every thread.
constexpr std::string_view scale_store = R"(
.visible .entry scale_store(.param .u64 px, .param .u64 py, .param .f32 pa, .param .u32 pshared)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<7>;
	.reg .f32 %f<4>;
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [py];
	ld.param.f32 %f1, [pa];
	ld.param.u32 %r2, [pshared];
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 mov.u32 %r1, 0;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd3, %rd5;
	ld.global.f32 %f2, [%rd6];
	mul.f32 %f3, %f1, %f2;
	st.global.f32 [%rd4], %f3;
	ret;
}
)";

// y[0] = tid == 0 ? v0 : v1 as 64-bit bits.
std::string bits_store(const std::string& v0, const std::string& v1) {
  return R"(
.visible .entry bits_store(.param .u64 py)
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [py];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	selp.b64 %rd3, )" + v0 + ", " + v1 + R"(, %p1;
	st.global.u64 [%rd2], %rd3;
	ret;
}
)";
}

template <class D>
race::report race_of(const exec_test::kernel& k, const exec::launch& l, D& d) {
  race::context ctx;
  auto r = exec_test::run(k, l, d, &ctx);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  return ctx.result();
}

}  // namespace

TEST_CASE("two threads storing a * x[tid] to y[0] race; storing a * x[0] is benign") {
  auto k = exec_test::load(scale_store);
  for (bool shared : {false, true}) {
    CAPTURE(shared);
    exec::launch l = exec_test::one_cta(2, {exec_test::in_f32("x", 2), exec_test::out_f32("y", 1)},
                                        {{"a", true, 0}, {"shared", false, shared ? 1.0 : 0.0}});
    exec_test::fixture<exec::symbolic_domain> f(exec_test::random_rationals(3));
    race::report r = race_of(*k, l, f.d);
    CHECK(benign(r) == shared);
  }
}

TEST_CASE("concrete bits: 0 and the hash's inverse race harmfully, equal bits benignly") {
  exec::launch l = exec_test::one_cta(2, {exec_test::out_int("y", 1, 8)});
  exec_test::fixture<exec::float32_domain> f(exec_test::small_integers(1));
  auto differ = exec_test::load(bits_store("0", "0xf1de83e19937733d"));
  CHECK_FALSE(benign(race_of(*differ, l, f.d)));
  auto same = exec_test::load(bits_store("0xf1de83e19937733d", "0xf1de83e19937733d"));
  CHECK(benign(race_of(*same, l, f.d)));
}
