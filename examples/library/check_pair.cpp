// Checking two kernels from C++ without the CLI: a pair spec built in code (no JSON), resolved
// against its PTX, checked end to end (symbolic runs with race analysis, then the decision), and
// the verdict, the reports and the float32 side report inspected. This is what a verification
// tool embedding gpueq does.
#include <gpueq/gpueq.hpp>

#include <cstdio>
#include <string>

int main() {
  using namespace gpueq;
  const std::string dir = std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/softmax/";

  check::pair_spec spec;
  spec.file = "(built in code)";
  spec.tensors["x"] = {check::dtype::f32, {256}, check::role::input};
  spec.tensors["y"] = {check::dtype::f32, {256}, check::role::output};
  spec.scalars["n"] = {std::nullopt, 256, false};
  for (auto [side, file, entry] : {std::tuple{&spec.reference, "softmax_naive.ptx", "softmax_naive"},
                                   std::tuple{&spec.candidate, "softmax_online.ptx", "softmax_online"}}) {
    side->ptx = file;
    side->path = dir + file;
    side->entry = entry;
    side->params = {"x", "y", "n"};
    side->block = {128, 1, 1};
  }

  check::resolved_pair pair = check::resolve(spec);  // parses both PTX files, checks the bindings
  check::check_result r = check::check_pair(spec, pair);
  std::printf("verdict: %s\n%s\n", std::string(check::name(r.v)).c_str(), r.summary.c_str());
  if (r.float32)
    std::printf("float32 on random inputs: max relative difference %.3g\n", r.float32->max_rel);

  // The broken variant (no rescaling) against the online kernel: a counterexample, replayed.
  spec.reference = spec.candidate;
  pair.reference = pair.candidate;
  pair.reference_entry = pair.candidate_entry;
  spec.candidate.ptx = "softmax_no_rescale.ptx";
  spec.candidate.path = dir + "softmax_no_rescale.ptx";
  spec.candidate.entry = "softmax_no_rescale";
  pair.candidate = ptx::parse_file(spec.candidate.path);
  pair.candidate_entry = check::resolve_kernel(spec, "candidate", spec.candidate, pair.candidate);  // checks the parameters too
  check::check_result bad = check::check_pair(spec, pair);
  std::printf("broken variant: %s\n", std::string(check::name(bad.v)).c_str());
  if (bad.counterexample)
    std::printf("  at %s[%llu]: %s vs %s over the reals\n", bad.counterexample->tensor.c_str(),
                static_cast<unsigned long long>(bad.counterexample->index), bad.counterexample->real_reference.c_str(),
                bad.counterexample->real_candidate.c_str());
  return r.v == check::verdict::equivalent && bad.v == check::verdict::different && bad.counterexample ? 0 : 1;
}
