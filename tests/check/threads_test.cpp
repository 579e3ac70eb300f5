// The thread pool does not change what gpueq check reports: for pairs of every verdict (multi-CTA
// grids, a first difference, races within and across CTAs, deadlock, out of bounds), checking
// with several threads gives the verdict, summary, differing elements, race reports and
// counterexample element that one thread gives.
#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_json.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace gpueq;

namespace {

check::check_result check_with(const check::pair_spec& spec, unsigned threads) {
  check::resolved_pair pair = check::resolve(spec);
  check::check_options o;
  o.threads = threads;
  o.float32_report = false;
  return check::check_pair(spec, pair, o);
}

void same_report(const check::pair_spec& spec, const std::string& name) {
  check::check_result one = check_with(spec, 1);
  for (unsigned threads : {2u, 3u}) {
    INFO(name << " with " << threads << " threads");
    check::check_result many = check_with(spec, threads);
    CHECK(check::name(many.v) == check::name(one.v));
    CHECK(many.summary == one.summary);
    CHECK(many.examples == one.examples);
    for (auto [a, b] : {std::pair{&one.reference, &many.reference}, std::pair{&one.candidate, &many.candidate}}) {
      CHECK(b->race_text == a->race_text);
      CHECK(b->conflicts == a->conflicts);
      CHECK(b->steps == a->steps);
      CHECK(b->ctas == a->ctas);
      CHECK(b->error.has_value() == a->error.has_value());
    }
    REQUIRE(many.counterexample.has_value() == one.counterexample.has_value());
    if (one.counterexample) {
      CHECK(many.counterexample->tensor == one.counterexample->tensor);
      CHECK(many.counterexample->index == one.counterexample->index);
    }
    if (one.compared) {
      REQUIRE(many.compared.has_value());
      CHECK(many.compared->elements == one.compared->elements);
      CHECK(many.compared->equal == one.compared->equal);
      CHECK(many.compared->different == one.compared->different);
    }
  }
}

}  // namespace

TEST_CASE("checking with several threads reports what one thread reports") {
  namespace fs = std::filesystem;
  fs::path k = fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels";
  for (const char* pair : {"softmax/naive_vs_online", "softmax/online_vs_no_rescale", "sgemm/naive_vs_smem",
                           "sgemm/naive_vs_smem_no_sync", "bugs/axpy2d_ref_vs_square_only_32x8",
                           "bugs/sum_serial_vs_tree_pow2_n96", "bugs/stencil_ref_vs_oob", "reduction/v1_vs_v7",
                           "named_barriers/ref_vs_producer_short", "conv/direct_vs_implicit_gemm"}) {
    check::pair_spec spec = check::load_spec((k / (std::string(pair) + ".pair.json")).string());
    same_report(spec, pair);
  }
  // Every CTA of a grid writes every element: the inter-CTA race is found between CTAs that ran
  // on different threads, and reported as the grid order gives it.
  check::pair_spec spec = check::load_spec((k / "softmax/naive_vs_online.pair.json").string());
  spec.candidate.grid = {3, 1, 1};
  spec.candidate.ctas.clear();
  CHECK(check::name(check_with(spec, 1).v) == "race");
  same_report(spec, "online softmax on three CTAs");
}
