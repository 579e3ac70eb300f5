// Race reports name instructions by their PTX line and CUDA file:line, read off a parsed kernel.
#include <gpueq/ptx/parser.hpp>
#include <gpueq/race.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace gpueq;

TEST_CASE("source lines of a parsed PTX kernel feed the report printer") {
  ptx::module m = ptx::parse(R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<3>;
	mov.u32 %r1, 1;
	.loc	1 10 3
	st.shared.u32 [%r1], %r1;
	.loc	1 12 3
	ld.shared.u32 %r2, [%r1];
	ret;
}
	.file	1 "/home/me/kern.cu"
)");
  auto lines = race::source_lines(m, m.functions[0]);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].cuda_line == 0);  // before any .loc
  CHECK(lines[0].cuda_file.empty());
  CHECK(lines[1].ptx_line == 9);
  CHECK(lines[1].cuda_file == "/home/me/kern.cu");
  CHECK(lines[1].cuda_line == 10);
  CHECK(lines[2].cuda_line == 12);

  exec::run_info info{2, 32, {{exec::memory_space::shared, "tile", 4, 64}}};
  race::context ctx;
  ctx.on_start(info);
  ctx.on_access({0, 0, 4, 4, exec::access_kind::write, 1, {}});
  ctx.on_access({1, 0, 4, 4, exec::access_kind::read, 2, {}});
  auto text = race::format(ctx.result(), info, std::span<const race::source_line>(lines));
  CAPTURE(text);
  CHECK(text.find("RAW race on shared tile[1]: write by thread 0 at PTX line 9 (/home/me/kern.cu:10)") !=
        std::string::npos);
  CHECK(text.find("read by thread 1 at PTX line 11 (/home/me/kern.cu:12)") != std::string::npos);
}
