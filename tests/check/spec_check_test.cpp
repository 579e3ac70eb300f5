// Kernels against DSL specifications (check/spec_check.hpp, examples/specs/corpus.hpp): every
// kernel of the corpus's softmax, reduction, GEMM, attention, convolution, layernorm and rmsnorm
// pairs, checked against the specification of its family at the pair's shapes. What a kernel
// must get comes from its pair file: a reference kernel equals the specification; a candidate
// gets the pair's "expect" (equivalent, different, race). The default test case takes one or two
// kernels per family and the wrong ones; the whole sweep is the ctest `spec_sweep`.
#include <gpueq/check/spec_check.hpp>
#include <gpueq/check/spec_json.hpp>

#include "../../examples/specs/corpus.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

using namespace gpueq;

namespace {

struct family_pair {
  const char* file;  // under examples/kernels
  const char* spec;  // registered specification
};

// Every pair of the families, with the specification at its shapes.
const family_pair corpus_pairs[] = {
    {"softmax/naive_vs_online.pair.json", "softmax_256"},
    {"softmax/naive_vs_online_fast.pair.json", "softmax_256"},
    {"softmax/naive_vs_safe.pair.json", "softmax_256"},
    {"softmax/naive_vs_vec4.pair.json", "softmax_256"},
    {"softmax/naive_vs_warp.pair.json", "softmax_256"},
    {"softmax/online_vs_no_rescale.pair.json", "softmax_256"},
    {"reduction/v1_vs_v2.pair.json", "sum_128"},
    {"reduction/v1_vs_v3.pair.json", "sum_128"},
    {"reduction/v1_vs_v4.pair.json", "sum_128"},
    {"reduction/v1_vs_v5.pair.json", "sum_128"},
    {"reduction/v1_vs_v5_syncwarp.pair.json", "sum_128"},
    {"reduction/v1_vs_v6.pair.json", "sum_128"},
    {"reduction/v1_vs_v6_shfl.pair.json", "sum_128"},
    {"reduction/v1_vs_v7.pair.json", "sum_128"},
    {"reduction/v1_vs_v7_shfl.pair.json", "sum_128"},
    {"reduction/v1_int_vs_v7_shfl_int.pair.json", "sum_128"},
    {"bugs/sum_serial_vs_tree_pow2_n128.pair.json", "sum_128"},
    {"bugs/sum_serial_vs_tree_pow2_n96.pair.json", "sum_96"},
    {"sgemm/naive_vs_1d_blocktile.pair.json", "gemm_64x64x128"},
    {"sgemm/naive_vs_2d_blocktile.pair.json", "gemm_64x64x128"},
    {"sgemm/naive_vs_bankfix.pair.json", "gemm_64x64x128"},
    {"sgemm/naive_vs_coalesced.pair.json", "gemm_64x64x128"},
    {"sgemm/naive_vs_smem.pair.json", "gemm_64x64x128"},
    {"sgemm/naive_vs_smem_no_sync.pair.json", "gemm_64x64x128"},
    {"sgemm/naive_vs_vectorized.pair.json", "gemm_64x64x128"},
    {"sgemm/naive_vs_warptile.pair.json", "gemm_64x64x128"},
    {"sgemm/naive_vs_2d_blocktile_128.pair.json", "gemm_128x128x128"},
    {"sgemm/hgemm_naive_vs_mma.pair.json", "gemm_64x64x128"},
    {"sgemm/hgemm_naive_vs_mma_no_trans.pair.json", "gemm_64x64x128"},
    {"sgemm/hgemm_naive_vs_wmma.pair.json", "gemm_64x64x128"},
    {"attention/ref_vs_flash1.pair.json", "attention_16x512x64"},
    {"attention/ref_vs_flash2.pair.json", "attention_16x512x64"},
    {"attention/flash2_vs_no_rescale.pair.json", "attention_16x512x64"},
    {"attention/ref_half_vs_wmma.pair.json", "attention_16x512x64"},
    {"attention/ref_vs_flash2_kv64.pair.json", "attention_16x64x64"},
    {"bugs/scores_ref_vs_tiled.pair.json", "scores_16x32x64"},
    {"bugs/scores_ref_vs_wrong_scale.pair.json", "scores_16x32x64"},
    {"conv/direct_vs_implicit_gemm.pair.json", "conv_10x10x16_32x3x3"},
    {"conv/direct_vs_implicit_gemm_no_barrier.pair.json", "conv_10x10x16_32x3x3"},
    {"layernorm/two_pass_vs_one_pass.pair.json", "layernorm_256"},
    {"layernorm/two_pass_vs_warp.pair.json", "layernorm_256"},
    {"layernorm/two_pass_vs_welford.pair.json", "layernorm_256"},
    {"layernorm/warp_vs_unbiased.pair.json", "layernorm_256"},
    {"layernorm/rmsnorm_block_vs_warp.pair.json", "rmsnorm_256"},
};

// The default selection (kernel|specification): an optimized kernel per family, cheap sizes where
// the corpus has two, and wrong ones (about 30 s in Release on a busy 2-core machine).
const std::set<std::string> quick = {
    "softmax/softmax_online.ptx|softmax_256",          "softmax/softmax_no_rescale.ptx|softmax_256",
    "reduction/reduce7_shfl.ptx|sum_128",              "reduction/reduce5_unroll_last_warp.ptx|sum_128",
    "reduction/reduce7_shfl_int.ptx|sum_128",          "bugs/sum_tree_pow2.ptx|sum_96",
    "sgemm/sgemm_2d_blocktile.ptx|gemm_64x64x128",     "sgemm/hgemm_mma_no_trans.ptx|gemm_64x64x128",
    "attention/attention_flash2.ptx|attention_16x64x64", "bugs/scores_tiled.ptx|scores_16x32x64",
    "bugs/scores_wrong_scale.ptx|scores_16x32x64",     "conv/conv_implicit_gemm.ptx|conv_10x10x16_32x3x3",
    "layernorm/layernorm_welford.ptx|layernorm_256",   "layernorm/layernorm_unbiased.ptx|layernorm_256",
    "layernorm/rmsnorm_warp.ptx|rmsnorm_256",
};

void sweep(bool all) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels";
  std::set<std::string> done;
  std::size_t checked = 0, equal = 0, wrong = 0;
  for (const family_pair& fp : corpus_pairs) {
    check::pair_spec pair = check::load_spec((root / fp.file).string());
    REQUIRE(pair.expect);
    for (bool candidate : {false, true}) {
      if (!check::has_kernel(pair, candidate)) continue;
      const check::kernel_spec& k = candidate ? pair.candidate : pair.reference;
      std::string rel = fs::path(k.path).lexically_relative(root).generic_string();
      std::string key = rel + "|" + k.entry + "|" + fp.spec + "|" + std::to_string(k.block[0]);
      if (!done.insert(key).second || (!all && !quick.contains(rel + "|" + fp.spec))) continue;
      // The kernel against the specification: a pair spec whose reference is the specification.
      check::pair_spec against = pair;
      against.reference_spec = fp.spec;
      against.candidate = k;
      against.reference = k;
      check::verdict want = candidate ? *pair.expect : check::verdict::equivalent;
      auto t0 = std::chrono::steady_clock::now();
      check::check_options o;
      o.threads = 2;  // the sweep runs mostly alone at the end of ctest: both cores
      check::check_result r = check::check_against_spec(against, check::resolve(against), o);
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      MESSAGE(rel << " (" << k.entry << ") vs " << std::string(fp.spec) << ": " << check::name(r.v) << " in " << seconds << " s");
      INFO(rel << " vs " << std::string(fp.spec) << ": " << r.summary);
      CHECK(r.v == want);
      ++checked;
      if (r.v == check::verdict::equivalent) {
        ++equal;
        REQUIRE(r.compared);
        CHECK(r.compared->all_equal());
        CHECK(r.compared->equal == r.compared->elements);  // the kernel writes every element
      }
      if (r.v == check::verdict::different) {
        ++wrong;
        // A counterexample: the specification (double) and the kernel (float32) at the witness.
        REQUIRE(r.counterexample);
        CHECK(r.counterexample->float_reference.has_value());
        CHECK(r.counterexample->float_candidate.has_value());
      }
    }
  }
  CHECK(equal >= (all ? 45u : 9u));
  CHECK(wrong >= (all ? 6u : 5u));
  MESSAGE(checked << " kernels checked against their specifications");
}

}  // namespace

TEST_CASE("corpus kernels against their DSL specifications: one or two per family, and wrong ones") { sweep(false); }

TEST_CASE("corpus kernels against their DSL specifications: every kernel of the families" * doctest::skip()) {
  sweep(true);
}

// Regression (issue 19): check_pair on a pair whose reference is a registered specification used
// to compare the candidate with itself (resolve() mirrors the candidate into the reference slot)
// and answer `equivalent` whatever the candidate computes. Through the library, check_pair must
// give what `gpueq check` gives: the candidate against the specification.
TEST_CASE("check_pair with a specification as the reference compares the candidate with the specification") {
  namespace fs = std::filesystem;
  fs::path root = fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels";
  check::check_options o;
  o.float32_report = false;
  // Scores divided by d instead of sqrt(d): every element is wrong.
  check::pair_spec wrong = check::load_spec((root / "bugs/scores_spec_vs_wrong_scale.pair.json").string());
  REQUIRE(wrong.reference_spec);
  check::check_result r = check::check_pair(wrong, check::resolve(wrong), o);
  INFO(r.summary);
  CHECK(r.v == check::verdict::different);
  CHECK(r.reference.name == "specification");
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->float_reference.has_value());
  // A correct kernel against the same kind of reference is still proved equal.
  check::pair_spec right = check::load_spec((root / "softmax/spec_vs_online.pair.json").string());
  REQUIRE(right.reference_spec);
  check::check_result ok = check::check_pair(right, check::resolve(right), o);
  INFO(ok.summary);
  CHECK(ok.v == check::verdict::equivalent);
  CHECK(ok.reference.name == "specification");
}
