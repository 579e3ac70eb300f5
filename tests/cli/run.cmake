# Tests of the `gpueq` command-line tool through the binary: exit codes, messages, JSON.
# Run by ctest as: cmake -DGPUEQ=<binary> -DSOURCE_DIR=<repo> -P run.cmake
# Each case states the expected exit code and a regular expression the output must match.
set(failures 0)
set(cases 0)

function(expect name expected_rc pattern)
  execute_process(COMMAND ${GPUEQ} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY "${SOURCE_DIR}")
  math(EXPR n "${cases} + 1")
  set(cases ${n} PARENT_SCOPE)
  set(all "${out}${err}")
  if(NOT rc EQUAL expected_rc)
    message(SEND_ERROR "[${name}] exit code ${rc}, expected ${expected_rc}\n${all}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  elseif(NOT all MATCHES "${pattern}")
    message(SEND_ERROR "[${name}] output does not match '${pattern}':\n${all}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  endif()
endfunction()

# Bad input, the strict form: the exit code, and the first line of the named stream (STDERR for
# diagnostics, STDOUT for a verdict) matched whole against `line` (anchored at both ends).
function(expect_first name expected_rc stream line)
  execute_process(COMMAND ${GPUEQ} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY "${SOURCE_DIR}")
  math(EXPR n "${cases} + 1")
  set(cases ${n} PARENT_SCOPE)
  if(stream STREQUAL "STDERR")
    set(text "${err}")
  else()
    set(text "${out}")
  endif()
  string(FIND "${text}" "\n" eol)
  if(eol GREATER -1)
    string(SUBSTRING "${text}" 0 ${eol} first)
  else()
    set(first "${text}")
  endif()
  if(NOT rc EQUAL expected_rc)
    message(SEND_ERROR "[${name}] exit code ${rc}, expected ${expected_rc}\n${out}${err}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  elseif(NOT first MATCHES "^${line}$")
    message(SEND_ERROR "[${name}] first line of ${stream} is '${first}', expected '${line}'")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  endif()
endfunction()

# Help documents every subcommand.
expect(help 0 "identity" --help)
expect(identity_help 0 "Exit: 0 equal, 1 different" identity --help)
expect(no_command 4 "." )
expect(unknown_command 4 "." frobnicate)

# identity: the exit code is the verdict.
expect(equal_exp 0 "^equal" identity "exp(x)*exp(y)" "exp(x + y)")
expect(equal_rational 0 "^equal" identity "x/2 + x/3" "5*x/6")
expect(different 1 "different.*the two sides differ at.*x = " identity "exp(x)" "exp(2*x)")
expect(different_json 1 "\"verdict\": \"different\".*\"counterexample\"" identity --json "x*x" "x")
expect(equal_json 0 "\"verdict\": \"equal\".*\"summary\"" identity --json "max(x, y)" "max(y, x)")
expect(quiet 1 "^$" identity -q "x" "y")
expect(fast 0 "^equal" identity --fast "(a+b)^2" "a^2 + 2*a*b + b^2")

# Bad input: exit 4 with the column and a caret.
expect(syntax_error 4 "rhs:6: .*\\^" identity "x" "x + +")
expect(unbalanced 4 "lhs:[0-9]+: " identity "exp(x" "x")
expect(missing_side 4 "give LHS and RHS" identity "x")
expect(missing_file 4 "cannot (open|read)" identity --file does/not/exist.txt)
expect(both_forms 4 "either" identity x y --file examples/identities/softmax_online.txt)

# Files: one verdict per line, the worst verdict decides the exit code.
expect(softmax_online 0 "softmax_online.txt:4: equal.*softmax_online.txt:7: equal.*4 equal, 0 different"
       identity --file examples/identities/softmax_online.txt)
expect(softmax_no_rescale 1 "different" identity --file examples/identities/softmax_no_rescale.txt)
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli_mixed.txt" "# mixed\nx + x == 2*x\n\nx == y\nexp(x) == exp(x +\n")
expect(file_mixed 4 "cli_mixed.txt:2: equal.*cli_mixed.txt:4: different.*cli_mixed.txt:5: error: 5:"
       identity --file "${CMAKE_CURRENT_BINARY_DIR}/cli_mixed.txt")
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli_lets.txt"
     "let D = exp(x[0]) + exp(x[1])\nexp(x[0])/D == 1/(1 + exp(x[1] - x[0]))\nlet D = 2\n")
expect(file_lets 4 "cli_lets.txt:2: equal.*cli_lets.txt:3: error: 3:5: 'D' is already bound"
       identity --file "${CMAKE_CURRENT_BINARY_DIR}/cli_lets.txt")
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli_empty.txt" "# nothing here\n")
expect(file_empty 4 "holds no identity" identity --file "${CMAKE_CURRENT_BINARY_DIR}/cli_empty.txt")

# parse: kernels, lifted idioms; a parse error names file, line and column.
expect(parse_ok 0 "kernel k_expf.*lifted: expf -> exp" parse tests/ptx/inputs/idioms.ptx)
expect(parse_json 0 "\"kernels\"" parse --json tests/ptx/inputs/idioms.ptx)
expect(parse_bad 4 "unsupported.ptx:3:31: error: unsupported instruction 'tex.2d.v4.f32'"
       parse tests/fuzz/corpus/ptx_parse/unsupported.ptx)
expect(parse_missing 4 "." parse does/not/exist.ptx)
expect(parse_many 4 "idioms.ptx: PTX.*unsupported.ptx:3:31"
       parse tests/ptx/inputs/idioms.ptx tests/fuzz/corpus/ptx_parse/unsupported.ptx)
expect(parse_many_json 4 "--json reports one file" parse --json tests/ptx/inputs/idioms.ptx tests/ptx/inputs/idioms.ptx)
# parse lists, per kernel, what gpueq cannot execute (the opcode table's messages), and nothing for
# a kernel without any.
expect(parse_unsupported 0
       "kernel waits .*cannot execute: stacksave \\(2 instructions, first at line 14\\): stacksave \\(dynamic stack allocation\\) is not modelled yet\n  cannot execute: alloca \\(1 instruction, first at line 15\\).*cannot execute: discard .*kernel plain \\(line 22\\)\n  params: x_param \\.u64\n  shared: none\n  instructions: 3\n$"
       parse tests/cli/inputs/unsupported.ptx)
expect(parse_unsupported_json 0
       "\"unsupported\": \\[\n *\\{\n *\"opcode\": \"stacksave\",\n *\"family\": \"memory\",\n *\"count\": 2,\n *\"line\": 14,"
       parse --json tests/cli/inputs/unsupported.ptx)

# check: the exit code is the verdict; problems name file, line and thread.
set(K examples/kernels)
expect(check_equivalent 0 "naive_vs_online.pair.json: equivalent.*equal over the reals"
       check ${K}/softmax/naive_vs_online.pair.json)
file(REMOVE "${CMAKE_CURRENT_BINARY_DIR}/cli_ce.json")
expect(check_different 1 "not-equivalent.*max\\(0, .*counterexample: at y\\[0\\].*in float32.*written to"
       check ${K}/bugs/dense_relu_ref_vs_noclip.pair.json --counterexample "${CMAKE_CURRENT_BINARY_DIR}/cli_ce.json")
if(NOT EXISTS "${CMAKE_CURRENT_BINARY_DIR}/cli_ce.json")
  message(SEND_ERROR "[check_different] --counterexample wrote no file")
  math(EXPR failures "${failures} + 1")
else()
  file(READ "${CMAKE_CURRENT_BINARY_DIR}/cli_ce.json" ce)
  if(NOT ce MATCHES "\"tensors\".*\"W\".*\"x\"")
    message(SEND_ERROR "[check_different] the counterexample file lacks the input tensors:\n${ce}")
    math(EXPR failures "${failures} + 1")
  endif()
endif()
expect(check_oob 2 "out-of-bounds.*stencil_oob.ptx:[0-9]+ \\(stencil_oob.cu:19\\): thread \\(127,0,0\\).*stencil_oob::tile\\[128\\]"
       check ${K}/bugs/stencil_ref_vs_oob.pair.json)
# Given contents: the verdict says what it holds for (text, JSON, and gpueq race).
expect(check_contents 0 "scatter_rows_permutation.pair.json: equivalent\n[^\n]*are equal over the reals\n  for the given contents of dst \\(a permutation of 0..15, seed 7\\)\n"
       check --no-float32 ${K}/realworld/scatter_rows_permutation.pair.json)
expect(check_contents_json 0 "\"given_contents\": {\n *\"dst\": \"a permutation of 0..15, seed 7\"\n *}"
       check --json --no-float32 ${K}/realworld/scatter_rows_permutation.pair.json)
expect(race_contents 2 "scatter.ptx \\(reference\\): racy\n.*WAW race on global y.*for the given contents of dst \\(random integers in \\[0, 15\\], seed 1\\)"
       race ${K}/realworld/scatter_rows_collide.pair.json)
expect(run_contents_scratch 0 "out\\[0\\] = table\\[5\\]\\[0\\]\nout\\[1\\] = table\\[5\\]\\[1\\]"
       run tests/cli/inputs/contents_scratch.kernel.json --domain symbolic)
expect(run_contents 0 "out\\[0\\] = table\\[19\\]\\[0\\]"
       run ${K}/realworld/embedding_vec4_padding_off_by_one.pair.json --side candidate --domain symbolic)
expect(check_race 2 "race.*WAR race on shared reduce5::s\\[byte 4\\]" check ${K}/reduction/v1_vs_v5.pair.json)
expect(check_warp_synchronous 0 "equivalent" check --warp-synchronous ${K}/reduction/v1_vs_v5.pair.json)
expect(check_deadlock 2 "deadlock" check ${K}/named_barriers/ref_vs_producer_short.pair.json)
expect(check_float32_report 0 "equal over the reals\n  float32 on random inputs: max \\|difference\\| [0-9.e+-]+ \\(at y\\["
       check ${K}/softmax/naive_vs_online.pair.json)
expect(check_no_float32 0 "equal over the reals\n[^\n]*naive_vs_online.pair.json: run " check --no-float32 ${K}/softmax/naive_vs_online.pair.json)
# --fast: elements whose terms differ but whose fingerprints agree are counted as such (the online
# softmax's outputs are not identical terms to the naive ones), and a difference is still a
# difference with a counterexample.
expect(check_fast 0 "equivalent\n  all 256 .* equal over the reals; 256 of them by equal fingerprints only"
       check --fast --no-float32 ${K}/softmax/naive_vs_online.pair.json)
expect(check_fast_json 0 "\"by_fingerprint\": 256" check --fast --json --no-float32 ${K}/softmax/naive_vs_online.pair.json)
expect(check_fast_different 1 "not-equivalent.*counterexample: at "
       check --fast --no-float32 ${K}/attention/flash2_vs_no_rescale.pair.json)
expect(check_expect 0 "3 passed, 0 failed" check --expect -q ${K}/softmax/naive_vs_online.pair.json
       ${K}/bugs/stencil_ref_vs_oob.pair.json ${K}/reduction/v1_vs_v5.pair.json)
# Several pairs: the worst status wins whatever the order (a not-equivalent pair before an
# equivalent one must not end in exit 0), and a summary line counts each verdict.
expect(check_worst_first 1 "dense_relu_ref_vs_noclip.pair.json: not-equivalent\n[^\n]*naive_vs_online.pair.json: equivalent\n2 pairs: 1 equivalent, 1 not-equivalent\n"
       check -q --no-float32 ${K}/bugs/dense_relu_ref_vs_noclip.pair.json ${K}/softmax/naive_vs_online.pair.json)
expect(check_worst_last 2 "3 pairs: 1 equivalent, 1 not-equivalent, 1 race"
       check -q --no-float32 ${K}/reduction/v1_vs_v5.pair.json ${K}/bugs/dense_relu_ref_vs_noclip.pair.json
       ${K}/softmax/naive_vs_online.pair.json)
expect(check_worst_bad_input 4 "2 pairs: 1 bad-input, 1 equivalent"
       check -q --no-float32 does/not/exist.pair.json ${K}/softmax/naive_vs_online.pair.json)
expect(check_missing 4 "cannot|No such|does/not" check does/not/exist.pair.json)
expect(check_help 0 "Exit status: 0 equivalent" check --help)
expect(check_grid_list 0 "reference: 2 CTA\\(s\\) of block \\(16,16,1\\); candidate: 2 CTA\\(s\\)"
       check -j 2 --grid "1,1:2,3" ${K}/sgemm/naive_vs_smem.pair.json)
expect(check_grid_all 1 "axpy2d_ref_vs_square_only_32x8.pair.json: not-equivalent"
       check -j 2 --grid all ${K}/bugs/axpy2d_ref_vs_square_only_32x8.pair.json)
expect(check_grid_bad 4 "--grid: expected 'all' or CTAs like" check --grid "1,x" ${K}/sgemm/naive_vs_smem.pair.json)
expect(check_grid_outside 4 "outside the grid" check --grid "9,0" ${K}/sgemm/naive_vs_smem.pair.json)

# run: one kernel, concrete or symbolic; .npy out and back in.
expect(run_float32 0 "y: 0\\.00" run ${K}/softmax/softmax_online.kernel.json)
expect(run_symbolic 0 "y\\[0\\] = exp\\(x\\[0\\] - max\\(" run ${K}/softmax/softmax_online.kernel.json --domain symbolic)
# A pair whose reference is a specification has one kernel: run runs the candidate by default,
# and --side reference is an error (the specification is no kernel), as is gpueq race's
# reference (only the candidate is checked).
expect(run_spec_pair 0 "y: " run ${K}/softmax/spec_vs_online.pair.json)
expect(run_spec_reference 4 "the reference is the specification 'softmax_256', not a kernel" run ${K}/softmax/spec_vs_online.pair.json --side reference)
expect(race_spec_pair 0 "^[^\n]*\\(candidate\\): race-free" race ${K}/softmax/spec_vs_online.pair.json)
expect(run_json 0 "\"outputs\".*\"thread_instructions\"" run ${K}/softmax/softmax_online.kernel.json --json)
file(REMOVE_RECURSE "${CMAKE_CURRENT_BINARY_DIR}/cli_run")
expect(run_out 0 "outputs written" run ${K}/reduction/v1_vs_v2.pair.json --out "${CMAKE_CURRENT_BINARY_DIR}/cli_run")
file(COPY_FILE "${CMAKE_CURRENT_BINARY_DIR}/cli_run/out.npy" "${CMAKE_CURRENT_BINARY_DIR}/cli_run/x.npy" RESULT copied)
expect(run_inputs_wrong_size 4 "x.npy: error: shape \\(1,\\) does not match the spec's tensor 'x': \\(128,\\)"
       run ${K}/reduction/v1_vs_v2.pair.json --inputs "${CMAKE_CURRENT_BINARY_DIR}/cli_run")
expect(run_inputs_missing 4 "cannot open" run ${K}/reduction/v1_vs_v2.pair.json --inputs does/not/exist)
expect(run_oob 2 "out-of-bounds.*tile\\[128\\]" run ${K}/bugs/stencil_ref_vs_oob.pair.json --side candidate)
expect(check_single 4 "no pair to check" check ${K}/softmax/softmax_online.kernel.json)
# --max-memory counts every heap allocation of the process (examples/gpueq/memory_budget.cpp), in
# every subcommand and phase: exit 5 with the budget named, never bad input and never a crash.
set(mem_limit_line "gpueq [a-z]+: error: resource limit: --max-memory [0-9]+ MiB reached: an allocation of [0-9]+ bytes would take the heap to [0-9]+ MiB")
expect_first(run_memory_limit 5 STDERR "${mem_limit_line}" run ${K}/sgemm/naive_vs_coalesced.pair.json --domain symbolic --max-memory 1)
# (4 MiB: at 8 the run's resident-memory check, exec::engine_options::max_resident_mib, may stop
# the run first, also with exit 5 but as the run's resource-limit verdict.)
expect_first(check_memory_limit 5 STDERR "${mem_limit_line}" check ${K}/sgemm/naive_vs_coalesced.pair.json --max-memory 4)
expect_first(race_memory_limit 5 STDERR "${mem_limit_line}" race ${K}/sgemm/naive_vs_coalesced.pair.json --max-memory 4)
expect_first(parse_memory_limit 5 STDERR "${mem_limit_line}" parse ${K}/triton/attention_fwd_sm80_w4.ptx --max-memory 1)
expect_first(identity_memory_limit 5 STDERR "${mem_limit_line}"
             identity --max-memory 64 --max-expansion 100000 "(a+b+c+d+e+f)^30"
             "(a+b+c+d+e+f)^29*a + (a+b+c+d+e+f)^29*b + (a+b+c+d+e+f)^29*c + (a+b+c+d+e+f)^29*d + (a+b+c+d+e+f)^29*e + (a+b+c+d+e+f)^29*f")
# A budget the job fits in changes nothing.
expect_first(identity_memory_enough 0 STDOUT "equal \\(normal form\\)" identity --max-memory 64 "(x+1)^2" "x^2 + 2*x + 1")
expect_first(check_memory_enough 0 STDOUT ".*: equivalent.*" check -q ${K}/sgemm/naive_vs_coalesced.pair.json --max-memory 512)
# race: both kernels of a pair, or the kernel of a single-kernel spec.
expect(race_clean 0 "race-free and well-synchronized" race ${K}/softmax/softmax_online.kernel.json)
expect(race_named 2 "mirror_early_release.ptx \\(candidate\\): racy.*WAR race on shared mirror_early_release::buf"
       race ${K}/named_barriers/ref_vs_early_release.pair.json)
expect(race_inter_cta 2 "inter-CTA race: y\\[[0-9]+\\] is written by CTA \\(1,0,0\\) and written by CTA \\(0,0,0\\)"
       race tests/cli/inputs/softmax_two_ctas.kernel.json)
expect(race_witness 2 "witness for threads 0 and 1: under round robin .* out\\[0\\] = [-0-9.e]+; under round robin with thread 1 moved ahead of thread 0 out\\[0\\] = "
       race --witness ${K}/reduction/v1_vs_v5.pair.json)
# Issue 21 item 7: a lost update (q[0] = q[0] + 1 by 64 threads) needs a schedule inside a
# read-modify-write; a race only named barriers order needs a warp held across generations.
expect(race_witness_lost_update 2 "lost_update.ptx \\(candidate\\): racy.*witness for threads 0 and 1: under round robin in thread order \\(thread 0 before thread 1\\) q\\[0\\] = -?[0-9]+; under round robin with warp 0 held right before thread 0's write until thread 1's read is done q\\[0\\] = -?[0-9]+ "
       race --witness ${K}/bugs/lost_update_atomic_vs_plain.pair.json)
expect(race_witness_named_barriers 2 "handoff.ptx \\(candidate\\): racy.*witness for threads 63 and 0: under round robin in thread order \\(thread 63 before thread 0\\) y\\[0\\] = [-0-9.e]+; under round robin with warp 1 held right before thread 63's read until thread 0's write is done y\\[0\\] = "
       race --witness ${K}/bugs/handoff_ref_vs_early.pair.json)
expect(race_witness_mirror 2 "witness for threads 95 and 0: under round robin .* y\\[32\\] = [-0-9.e]+; under round robin with warp 2 held right before thread 95's read until thread 0's write is done y\\[32\\] = "
       race --witness ${K}/named_barriers/ref_vs_early_release.pair.json)
expect(race_deadlock 2 "deadlock" race ${K}/named_barriers/ref_vs_producer_short.pair.json)
expect(race_not_structured 3 "not a structured CTA: a predicate compares symbolic values \\(x\\[0\\] vs 0\\)"
       race tests/cli/inputs/data_dependent_branch.ptx --block 32 --param x=f32[32])

# Benign same-value races (issue 21 items 2 and 3): exact, reported by default, tolerated with
# --allow-benign (exit 0, the races listed as a note); a race of different values stays a race.
set(RW "${K}/realworld")
expect(race_benign_reported 2 "flag_same_value.ptx \\(candidate\\): racy.*WAW race \\(benign: same value\\) on global y\\[8\\]"
       race ${RW}/flag_one_writer_vs_same_value.pair.json)
expect(race_benign_allowed 0 "flag_same_value.ptx \\(candidate\\): benign races only \\(same-value writes, tolerated by --allow-benign\\).*WAW race \\(benign: same value\\) on global y\\[8\\]"
       race --allow-benign ${RW}/flag_one_writer_vs_same_value.pair.json)
expect(race_benign_allowed_json 0 "\"verdict\": \"race-free\",.*\"benign_tolerated\": true,.*\"benign\": true"
       race --json --allow-benign ${RW}/flag_one_writer_vs_same_value.pair.json)
expect(race_different_values 2 "race_scale_store.ptx \\(candidate\\): racy.*WAW race on global y\\[0\\]"
       race ${RW}/scale_store_one_vs_race.pair.json)
expect(race_different_values_allowed 2 "race_scale_store.ptx \\(candidate\\): racy"
       race --allow-benign ${RW}/scale_store_one_vs_race.pair.json)
expect(check_benign_race 2 "flag_one_writer_vs_same_value.pair.json: race\n.*benign: same value"
       check ${RW}/flag_one_writer_vs_same_value.pair.json)
expect(check_benign_allowed 0 "flag_one_writer_vs_same_value.pair.json: equivalent\n.*note: candidate kernel has benign races only.*\n    WAW race \\(benign: same value\\) on global y\\[8\\]"
       check --allow-benign ${RW}/flag_one_writer_vs_same_value.pair.json)
expect(check_benign_allowed_json 0 "\"notes\": \\[\n *\"candidate kernel has benign races only.*\"verdict\": \"equivalent\""
       check --json --allow-benign ${RW}/flag_one_writer_vs_same_value.pair.json)
expect(check_different_values_allowed 2 "scale_store_one_vs_race.pair.json: race"
       check --allow-benign ${RW}/scale_store_one_vs_race.pair.json)

# Barrier diagnostics (issue 21 item 6). A named-barrier generation completed by bar.arrive alone is
# a barrier error (class deadlock, exit 2) naming the barrier, the generation and the line of each
# arrive. --strict-barriers (check and race) applies CUDA's rule that every thread of the block
# reaches each __syncthreads: threads that return before one are a barrier divergence naming the
# barrier's line, the threads and the line they exited at; PTX's semantics (the default) accept it.
set(NB ${K}/named_barriers)
expect(race_all_arrive 2 "mirror_drain_arrive.ptx \\(candidate\\): not well-synchronized\nCTA \\(0,0,0\\):\nrace-free\nerror: all-arrive generation on barrier 5 generation 1: completed by arrivals only \\(threads 0\\.\\.31 at PTX line 335 \\(mirror_drain_arrive.cu:19\\), threads 32\\.\\.95 at PTX line 241 \\(mirror_drain_arrive.cu:19\\)\\): no thread waited \\(bar.sync\\) on it, so it orders nothing"
       race ${NB}/ref_vs_drain_arrive.pair.json)
expect(check_all_arrive 2 "ref_vs_drain_arrive.pair.json: deadlock\n  candidate kernel is not well-synchronized:.*error: all-arrive generation on barrier 5 generation 1"
       check --no-float32 ${NB}/ref_vs_drain_arrive.pair.json)
expect(race_all_arrive_json 2 "\"verdict\": \"deadlock\",.*\"problem\": \"all-arrive\",\n *\"severity\": \"error\",\n *\"barrier\": \\{\n *\"kind\": \"cta\",\n *\"id\": 5\n *\\},\n *\"generation\": 1,.*\"registrations\": 96,\n *\"arrived\": \\[.*\"count\": 32,.*\"ptx_line\": 335,.*\"count\": 64,.*\"ptx_line\": 241,"
       race --json ${NB}/ref_vs_drain_arrive.pair.json)
expect(race_pipeline_clean 0 "mirror_pipeline.ptx \\(candidate\\): race-free and well-synchronized" race ${NB}/ref_vs_pipeline.pair.json)
set(EE ${K}/bugs/reverse_guarded_vs_early_exit.pair.json)
expect(check_early_exit 0 "reverse_guarded_vs_early_exit.pair.json: equivalent" check --no-float32 ${EE})
expect(race_early_exit 0 "reverse_early_exit.ptx \\(candidate\\): race-free and well-synchronized" race ${EE})
expect(check_early_exit_strict 2 "reverse_guarded_vs_early_exit.pair.json: deadlock\n  candidate kernel is not well-synchronized:\nCTA \\(0,0,0\\):\nrace-free\nerror: barrier divergence on barrier 0 generation 1: 100 threads waited: threads 0\\.\\.99 at PTX line 50 \\(reverse_early_exit.cu:15\\); threads 100\\.\\.127 exited at PTX line 65 \\(reverse_early_exit.cu:17\\) without reaching it \\(strict mode"
       check --no-float32 --strict-barriers ${EE})
expect(race_early_exit_strict 2 "reverse_guarded.ptx \\(reference\\): race-free and well-synchronized.*reverse_early_exit.ptx \\(candidate\\): not well-synchronized.*error: barrier divergence on barrier 0 generation 1"
       race --strict-barriers ${EE})
expect(race_early_exit_strict_json 2 "\"problem\": \"divergence\",.*\"linear\": 100,.*\"arrived\": \\[\n *\\{\n *\"threads\": \\[\n *\\[\n *0,\n *99\n *\\]\n *\\],.*\"missing\": \\[\n *\\{\n *\"threads\": \\[\n *\\[\n *100,\n *127\n *\\]\n *\\],\n *\"count\": 28,.*\"ptx_line\": 65,"
       race --json --strict-barriers ${EE})
expect(check_strict_no_race 4 "--strict-barriers is checked by the race analysis, which --no-race skips" check --strict-barriers --no-race ${EE})
expect(check_strict_help 0 "--strict-barriers" check --help)
expect(race_strict_help 0 "--strict-barriers" race --help)

# Inter-CTA (issue 21 item 4): atomics of different CTAs commute, f16 halves of one word are two
# bytes each, a plain store against another CTA's atomics is still a race.
expect(race_atomic_ctas 0 "atomic_sum_ctas.ptx \\(candidate\\): race-free and well-synchronized \\(4 CTA"
       race ${RW}/serial_vs_atomic_sum_ctas.pair.json)
expect(race_half_ctas 0 "half_pair_ctas.ptx \\(candidate\\): race-free and well-synchronized \\(2 CTA"
       race ${RW}/half_pair_one_vs_ctas.pair.json)
expect(race_atomic_vs_store 2 "inter-CTA race: y\\[0\\] is updated atomically \\(add\\) by CTA \\(1,0,0\\) and written by CTA \\(0,0,0\\)"
       race ${RW}/serial_vs_atomic_vs_store_ctas.pair.json)

# race --json: per kernel the verdict, race groups (kind, address, count, both accesses with thread,
# warp/lane, PTX and CUDA lines, barrier generation), barrier diagnostics, run errors, inter-CTA races.
expect(race_json 2 "\"verdict\": \"race\",.*\"side\": \"reference\",.*\"verdict\": \"race-free\",.*\"side\": \"candidate\",.*\"verdict\": \"race\",.*\"race_count\": 129,.*\"kind\": \"WAR\",.*\"benign\": false,.*\"count\": 31,.*\"space\": \"shared\",.*\"array\": \"reduce5::s\",.*\"index\": 4,.*\"element_bytes\": 1\n.*\"first\": .*\"access\": \"read\",.*\"linear\": 0,.*\"lane\": 0\n.*\"ptx_line\": 130,.*\"cuda_file\": \"examples/kernels/reduction/reduce5_unroll_last_warp.cu\",.*\"cuda_line\": 15.*\"generation\": 1.*\"second\": .*\"access\": \"write\",.*\"linear\": 1,.*\"ptx_line\": 107,.*\"cuda_line\": 10"
       race --json ${K}/reduction/v1_vs_v5.pair.json)
expect(race_json_deadlock 2 "\"verdict\": \"deadlock\",.*\"error\": .*\"kind\": \"deadlock\",.*barrier 2 generation 4: 64 registered, 96 expected.*\"linear\": 32,.*\"ptx_line\": 154,.*\"cuda_file\": \"examples/kernels/named_barriers/mirror_producer_short.cu\",.*\"cuda_line\": 11"
       race --json ${K}/named_barriers/ref_vs_producer_short.pair.json)
expect(race_json_barrier 2 "\"verdict\": \"deadlock\",.*\"race_count\": 0,.*\"barriers\": .*\"problem\": \"unsafe-recycling\",.*\"severity\": \"error\",.*\"kind\": \"cta\",.*\"id\": 1.*\"generation\": 2,.*\"linear\": 48,.*\"ptx_line\": 30\n.*\"known_generation\": 0,"
       race --json tests/cli/inputs/named_barrier_recycling.ptx --block 64 --param buf=f32[64])
expect(race_json_inter_cta 2 "\"verdict\": \"race\",.*\"inter_cta\": .*\"message\": \"y\\[[0-9]+\\] is written by CTA"
       race --json tests/cli/inputs/softmax_two_ctas.kernel.json)
expect(race_json_clean 0 "\"verdict\": \"race-free\",\n  \"exit_code\": 0,.*\"race_count\": 0,\n      \"races\": \\[\\],\n      \"barriers\": \\[\\],.*\"error\": null"
       race --json ${K}/softmax/softmax_online.kernel.json)

# race --sarif: SARIF 2.1.0; the primary location is the CUDA line, the PTX line and the second
# access are related locations. check_sarif.py validates structure (and a schema subset with
# jsonschema) where python3 is found.
expect(race_sarif 2 "\"\\$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",.*\"name\": \"gpueq\",.*\"id\": \"gpueq.race.raw\",.*\"id\": \"gpueq.inter-cta-race\",.*\"results\": .*\"ruleId\": \"gpueq.race.war\",\n *\"ruleIndex\": 1,\n *\"level\": \"error\",.*\"locations\": .*\"uri\": \"examples/kernels/reduction/reduce5_unroll_last_warp.cu\",.*\"startLine\": 15.*\"relatedLocations\": .*\"uri\": \"examples/kernels/reduction/reduce5_unroll_last_warp.ptx\",.*\"startLine\": 130.*second access: write by thread 1"
       race --sarif ${K}/reduction/v1_vs_v5.pair.json)
find_program(PYTHON3 python3)
function(check_sarif name file)
  math(EXPR n "${cases} + 1")
  set(cases ${n} PARENT_SCOPE)
  if(NOT PYTHON3)
    return()
  endif()
  execute_process(COMMAND ${PYTHON3} "${SOURCE_DIR}/tests/cli/check_sarif.py" "${file}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "[${name}] ${out}${err}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  endif()
endfunction()
set(S "${CMAKE_CURRENT_BINARY_DIR}/cli_race")
expect(race_sarif_file 2 "^$" race --sarif ${K}/reduction/v1_vs_v5.pair.json --output ${S}_races.sarif)
check_sarif(race_sarif_races ${S}_races.sarif --rule gpueq.race.war --uri-suffix .cu --results 5)
expect(race_sarif_deadlock_file 2 "^$" race --sarif ${K}/named_barriers/ref_vs_producer_short.pair.json -o ${S}_deadlock.sarif)
check_sarif(race_sarif_deadlock ${S}_deadlock.sarif --rule gpueq.deadlock --uri-suffix .cu --results 1)
expect(race_sarif_barrier_file 2 "^$" race --sarif tests/cli/inputs/named_barrier_recycling.ptx --block 64 --param buf=f32[64]
       -o ${S}_barrier.sarif)
check_sarif(race_sarif_barrier ${S}_barrier.sarif --rule gpueq.barrier --uri-suffix .ptx --results 1)
# A barrier divergence sits at the barrier's CUDA line, the exit its threads took as a related location.
expect(race_sarif_divergence 2 "\"ruleId\": \"gpueq.barrier\",.*barrier divergence on barrier 0.*\"uri\": \"examples/kernels/bugs/reverse_early_exit.cu\",.*\"startLine\": 15.*\"relatedLocations\": .*\"startLine\": 17.*\"text\": \"exit: threads 100..127 \\(CUDA source\\)\""
       race --sarif --strict-barriers ${K}/bugs/reverse_guarded_vs_early_exit.pair.json)
expect(race_sarif_divergence_file 2 "^$" race --sarif --strict-barriers ${K}/bugs/reverse_guarded_vs_early_exit.pair.json -o ${S}_divergence.sarif)
check_sarif(race_sarif_divergence_valid ${S}_divergence.sarif --rule gpueq.barrier --uri-suffix .cu --results 1)
expect(race_sarif_clean 0 "\"results\": \\[\\]" race --sarif ${K}/softmax/softmax_online.kernel.json)
# check --sarif: one SARIF log for all pairs, the worst exit code; a difference is a
# gpueq.not-equivalent result at the candidate kernel, a racy kernel's races sit at their lines.
expect(check_sarif 2 "\"exitCode\": 2.*\"ruleId\": \"gpueq.not-equivalent\",.*dense_relu_ref_vs_noclip.pair.json: not-equivalent.*\"ruleId\": \"gpueq.race.war\","
       check --sarif --no-float32 ${K}/bugs/dense_relu_ref_vs_noclip.pair.json ${K}/reduction/v1_vs_v5.pair.json)
expect(check_sarif_clean 0 "\"results\": \\[\\]" check --sarif --no-float32 ${K}/softmax/naive_vs_online.pair.json)
execute_process(COMMAND ${GPUEQ} check --sarif --no-float32 ${K}/bugs/dense_relu_ref_vs_noclip.pair.json
                ${K}/reduction/v1_vs_v5.pair.json ${K}/named_barriers/ref_vs_producer_short.pair.json
                OUTPUT_FILE ${S}_check.sarif WORKING_DIRECTORY "${SOURCE_DIR}")
check_sarif(check_sarif_valid ${S}_check.sarif --rule gpueq.not-equivalent --rule gpueq.race.war --rule gpueq.deadlock)
expect(check_json_and_sarif 4 "not both" check --json --sarif ${K}/softmax/naive_vs_online.pair.json)
expect(race_json_and_sarif 4 "not both" race --json --sarif ${K}/softmax/softmax_online.kernel.json)

# race FILE.ptx: the quick form, the launch from the command line.
expect(race_quick_clean 0 "softmax_online.ptx \\(kernel\\): race-free and well-synchronized \\(1 CTA"
       race ${K}/softmax/softmax_online.ptx --block 128 --param x=in:f32[256] --param y=out:f32[256] --param n=256)
expect(race_quick_reduction_clean 0 "race-free" race ${K}/reduction/reduce7_shfl.ptx --block 64 --param x=in:f32[128]
       --param out=f32[1] --param n=128)
expect(race_quick_racy 2 "reduce5_unroll_last_warp.ptx \\(kernel\\): racy.*WAR race on shared reduce5::s\\[byte 4\\].*reduce5_unroll_last_warp.cu:15"
       race ${K}/reduction/reduce5_unroll_last_warp.ptx --block 64 --param x=in:f32[128] --param out=f32[1] --param n=128)
expect(race_quick_matvec 2 "racy.*race on shared matvec_no_barrier::xs"
       race ${K}/bugs/matvec_no_barrier.ptx --block 64 --param A=in:f32[64,100] --param x=in:f32[100] --param y=out:f32[64]
       --param rows=64 --param cols=100)
expect(race_quick_by_ptx_name 0 "race-free" race ${K}/softmax/softmax_online.ptx --block 128
       --param softmax_online_param_2=256 --param x=f32[256] --param y=f32[256])
expect(race_quick_grid 2 "inter-CTA race: y\\[[0-9]+\\] is written by CTA \\(1,0,0\\)"
       race ${K}/softmax/softmax_online.ptx --block 128 --grid 2 --param x=f32[256] --param y=f32[256] --param n=256)
expect(race_quick_sarif 2 "\"ruleId\": \"gpueq.race.war\".*\"uri\": \"examples/kernels/reduction/reduce5_unroll_last_warp.cu\""
       race --sarif ${K}/reduction/reduce5_unroll_last_warp.ptx --block 64 --param x=in:f32[128] --param out=f32[1] --param n=128)
expect(race_quick_missing 4 "softmax_online.ptx:17:10: error: kernel 'softmax_online' has 3 parameters.*missing:\n  parameter 1 'softmax_online_param_1' \\(.u64, line 19\\)\n  parameter 2 'softmax_online_param_2' \\(.u32, line 20\\)"
       race ${K}/softmax/softmax_online.ptx --block 128 --param x=f32[256])
expect(race_quick_syntax 4 "--param 'x:f32\\[256\\]': expected NAME=VALUE"
       race ${K}/softmax/softmax_online.ptx --block 128 --param x:f32[256] --param y=f32[256] --param n=256)
expect(race_quick_extents 4 "--param 'x=f32\\[2,,4\\]': expected NAME=VALUE.*extents are positive integers"
       race ${K}/softmax/softmax_online.ptx --block 128 --param x=f32[2,,4])
expect(race_quick_dtype 4 "'q32' is not a dtype" race ${K}/softmax/softmax_online.ptx --block 128 --param x=q32[256])
expect(race_quick_not_pointer 4 "softmax_online.ptx:20:[0-9]+: error: parameter 2 'softmax_online_param_2' \\(.u32, line 20\\) is not a 64-bit address"
       race ${K}/softmax/softmax_online.ptx --block 128 --param x=f32[256] --param y=f32[256] --param n=f32[4])
expect(race_quick_symbolic_int 4 "is an integer: --param 'n' cannot be a symbolic float"
       race ${K}/softmax/softmax_online.ptx --block 128 --param x=f32[256] --param y=f32[256] --param n=f32)
expect(race_quick_too_many 4 "has 3 parameters but --param gives 4"
       race ${K}/softmax/softmax_online.ptx --block 128 --param x=f32[256] --param y=f32[256] --param n=1 --param m=2)
expect(race_quick_no_block 4 "the quick form needs --block" race ${K}/softmax/softmax_online.ptx --param x=f32[256])
expect(race_quick_bad_block 4 "--block '0x4': expected 1 to 3 positive extents" race ${K}/softmax/softmax_online.ptx --block 0x4)
expect(race_quick_entry 4 "no kernel \\(.entry\\) named 'nope'; kernels: softmax_online"
       race ${K}/softmax/softmax_online.ptx --entry nope --block 128)
expect(race_quick_on_spec 4 "are for a .ptx file" race ${K}/softmax/softmax_online.kernel.json --block 128)
# Clusters: the kernel's .reqnctapercluster 4, 1, 1 is the default cluster shape; --cluster overrides it.
expect(race_quick_cluster 0 "race-free" race ${K}/hopper/cluster_sum.ptx --entry cluster_sum --block 64 --grid 16
       --param x=in:f32[4,256] --param y=out:f32[4])
expect(race_quick_cluster_racy 2 "racy.*RAW race on shared cluster_sum_no_sync::part@rank1\\[byte 0\\]"
       race ${K}/hopper/cluster_sum.ptx --entry cluster_sum_no_sync --block 64 --grid 16 --param x=in:f32[4,256] --param y=out:f32[4])
expect(race_quick_cluster_mismatch 3 "declares .reqnctapercluster 4, 1, 1 but the launch's cluster shape is 2x1x1"
       race ${K}/hopper/cluster_sum.ptx --entry cluster_sum --block 64 --grid 16 --cluster 2 --param x=in:f32[4,256] --param y=out:f32[4])
# Report accuracy (issue 20). A deadlock names every resource its threads wait on with their
# threads, also when one instruction waits on several (the barrier id in a register): in the FA3
# ping-pong without the first turn, consumer 0 (threads 128..255) waits on barrier 2 and consumer 1
# (threads 256..383) on barrier 3 at the same bar.sync, 128 of 256 threads arrived on each.
expect(race_deadlock_two_barriers 2 "deadlock: no thread can move; 64 thread\\(s\\) \\(first \\(0,0,0\\)\\) wait at bar tests/cli/inputs/bar_id_in_register.ptx:18 \\[barrier 1 generation 1: 64 registered, 128 expected\\] \\(threads 0\\.\\.63\\); 64 thread\\(s\\) \\(first \\(64,0,0\\)\\) wait at bar tests/cli/inputs/bar_id_in_register.ptx:18 \\[barrier 2 generation 1: 64 registered, 128 expected\\] \\(threads 64\\.\\.127\\); 0 thread\\(s\\) exited"
       race tests/cli/inputs/bar_id_in_register.ptx --block 128)
expect(check_deadlock_pingpong 2 "fa3_fwd_pingpong_no_first_turn.pair.json: deadlock\n.*; 128 thread\\(s\\) \\(first \\(128,0,0\\)\\) wait at bar [^;]*fa3_fwd.cu:229\\) \\[barrier 2 generation 1: 128 registered, 256 expected\\] \\(threads 128\\.\\.255\\); 128 thread\\(s\\) \\(first \\(256,0,0\\)\\) wait at bar [^;]*fa3_fwd.cu:229\\) \\[barrier 3 generation 1: 128 registered, 256 expected\\] \\(threads 256\\.\\.383\\); 128 thread\\(s\\) exited"
       check ${K}/hopper/fa3_fwd_pingpong_no_first_turn.pair.json)
# A place in an array declared as bytes (.b8, as nvcc declares every shared array, and the dynamic
# shared array) is named by its byte offset: thread 1 writes bytes 4..7 of buf (f32 element 1),
# thread 0 reads them; in b8_dynamic, bytes 2..3 of dyn (a 16-bit element).
expect(race_b8_static 2 "RAW race on shared buf\\[byte 4\\]: write by thread 1 at PTX line 32, segment 0 \\(before any CTA barrier\\) vs read by thread 0 at PTX line 35, segment 0 \\(before any CTA barrier\\) \\[63 pairs\\]"
       race tests/cli/inputs/b8_shared_race.ptx --entry b8_static --block 64 --param y=out:f32[64])
expect(race_b8_static_json 2 "\"array\": \"buf\",\n *\"index\": 4,\n *\"byte\": 0,\n *\"element_bytes\": 1\n"
       race --json tests/cli/inputs/b8_shared_race.ptx --entry b8_static --block 64 --param y=out:f32[64])
expect(race_b8_dynamic 2 "RAW race on shared dyn\\[byte 2\\]: write by thread 1 at PTX line 58, .* vs read by thread 0 at PTX line 61, .*\\[63 pairs\\]"
       race tests/cli/inputs/b8_shared_race.ptx --entry b8_dynamic --block 64 --dynamic-shared 128 --param y=out:u16[64])
# An async-proxy access names its copy and what completes it, not its agent's segment: the TMA
# load of tma_tile.cu:54 completes on the first phase (generation 1) of the .u64 mbarrier `bar`;
# the TMA store of tma_tile.cu:79 is a bulk-group copy retired by cp.async.bulk.wait_group.
expect(check_tma_load_early_read 2 "RAW race on shared tma_tile<true, false>::in\\[byte 0\\]: write by the async proxy: thread 0's TMA load at PTX line 507 \\(tma_tile.cu:54\\), completed on mbarrier tma_tile<true, false>::bar\\[0\\] \\(shared byte 0\\) generation 1 vs read by thread 0 at PTX line 610 \\(tma_tile.cu:71\\)"
       check ${K}/hopper/tma_tile_early_read.pair.json)
expect(check_tma_store_no_fence 2 "RAW race on shared tma_tile<false, true>::out\\[byte 0\\]: write by thread 0 at PTX line 944 \\(tma_tile.cu:72\\), segment [0-9]+ \\(after barrier 0 generation 1\\) vs read by the async proxy: thread 0's TMA store at PTX line 1061 \\(tma_tile.cu:79\\), retired by the thread's cp.async.bulk.wait_group; missing proxy fence"
       check ${K}/hopper/tma_tile_no_fence.pair.json)
expect(race_tma_store_json 2 "\"async_proxy\": true,\n *\"instruction\": [0-9]+,\n *\"location\": \\{[^}]*\"ptx_line\": 1061,[^}]*\\},\n *\"copy\": \"TMA store\",\n *\"completed_on\": \\{\n *\"kind\": \"async_done\""
       race --json ${K}/hopper/tma_tile_no_fence.pair.json)
expect(race_quick_missing_file 4 "does/not/exist.ptx: error: cannot open" race does/not/exist.ptx --block 128)
expect(race_help 0 "--sarif.*--param.*x=f32\\[1024\\].*Exit: 0 race-free, 2 race" race --help)

# Every resource bounded (issue 22): malformed or oversized inputs are errors that name the file,
# the value and the limit, with exit 4; a term too large to expand is `unknown` with exit 3; an
# allocation failure would be exit 5 ("resource limit").
set(I tests/cli/inputs)
# An empty, truncated or header-only PTX file, and a directory, are errors with file:line:col.
expect_first(ptx_empty 4 STDERR "tests/cli/inputs/empty.ptx:1:1: error: empty PTX file: no .version directive and no kernel"
             parse ${I}/empty.ptx)
expect_first(ptx_truncated 4 STDERR "tests/cli/inputs/truncated.ptx:61:1: .*end of input.*" parse ${I}/truncated.ptx)
expect_first(ptx_header_only 4 STDERR
             "tests/cli/inputs/header_only.ptx:9:1: error: the PTX file ends after its module header: no kernel, function or variable \\(truncated\\?\\)"
             parse ${I}/header_only.ptx)
expect_first(ptx_directory 4 STDERR "tests/cli/inputs: error: is a directory, not a PTX file" parse ${I})
file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/cli_dir.ptx")
expect_first(race_ptx_directory 4 STDERR "${CMAKE_CURRENT_BINARY_DIR}/cli_dir.ptx: error: is a directory, not a PTX file"
             race "${CMAKE_CURRENT_BINARY_DIR}/cli_dir.ptx" --block 32)
expect_first(race_empty_ptx 4 STDERR "tests/cli/inputs/empty.ptx:1:1: error: empty PTX file: no .version directive and no kernel"
             race ${I}/empty.ptx --block 32)
expect_first(spec_directory 4 STDERR "tests/cli/inputs: error: is a directory, not a spec file" check ${I})
# An unknown .version or .target is a warning on stderr (and the file is still read).
expect_first(ptx_unknown_version 0 STDERR "tests/cli/inputs/unknown_target.ptx:2:10: warning: unknown PTX ISA version 99.9 \\(gpueq knows 1.0 to 9.0\\)"
             parse ${I}/unknown_target.ptx)
expect(ptx_unknown_target 0 "unknown_target.ptx:3:9: warning: unknown target 'sm_999' \\(gpueq knows sm_10 to sm_121\\)"
       parse ${I}/unknown_target.ptx)
expect_first(race_unknown_target 0 STDERR "tests/cli/inputs/unknown_target.ptx:2:10: warning: unknown PTX ISA version 99.9.*"
             race ${I}/unknown_target.ptx --block 32 --param p=f32[32])
# Blocks, grids and shapes: checked against CUDA's limits before they are narrowed or sized.
expect_first(spec_block_overflow 4 STDERR "tests/cli/inputs/block_overflow.kernel.json: error: kernel.block: block x = 4294967424 is outside 1..1024"
             race ${I}/block_overflow.kernel.json)
expect_first(spec_block_z 4 STDERR "tests/cli/inputs/block_z.kernel.json: error: kernel.block: block z = 65 is outside 1..64"
             run ${I}/block_z.kernel.json)
expect_first(spec_block_threads 4 STDERR "tests/cli/inputs/block_threads.kernel.json: error: kernel.block: block 32x64 has 2048 threads; a CTA has 1 to 1024"
             race ${I}/block_threads.kernel.json)
expect_first(spec_grid_y 4 STDERR "tests/cli/inputs/grid_y.kernel.json: error: kernel.grid: grid y = 65536 is outside 1..65535"
             race ${I}/grid_y.kernel.json)
# Given contents (issue 21 item 17): refused where they do not fit the tensor or its role.
expect_first(spec_contents_output 4 STDERR
             "tests/cli/inputs/contents_output.kernel.json: error: tensors.y.contents: an output starts uninitialized and has no contents \\(a buffer the host initializes and the kernels update is an \"inout\"\\)"
             run ${I}/contents_output.kernel.json)
expect_first(spec_contents_range 4 STDERR
             "tests/cli/inputs/contents_range.kernel.json: error: tensors.x.contents: max 300 is outside the integers u8 holds exactly \\(0 to 255\\)"
             run ${I}/contents_range.kernel.json)
expect_first(spec_shape_overflow 4 STDERR
             "tests/cli/inputs/shape_overflow.kernel.json: error: tensors.x.shape: a f32 tensor of shape \\[4294967296, 4294967296\\] exceeds the limit of 2\\^40 bytes per tensor"
             run ${I}/shape_overflow.kernel.json)
set(SM ${K}/softmax/softmax_online.ptx)
expect_first(quick_block_overflow 4 STDERR "gpueq race: error: --block '4294967424': block x = 4294967424 is outside 1..1024"
             race ${SM} --block 4294967424 --param x=f32[256] --param y=f32[256] --param n=256)
expect_first(quick_block_z 4 STDERR "gpueq race: error: --block '1,1,65': block z = 65 is outside 1..64"
             race ${SM} --block 1,1,65 --param x=f32[256] --param y=f32[256] --param n=256)
expect_first(quick_block_threads 4 STDERR "gpueq race: error: --block '64x32': block 64x32 has 2048 threads; a CTA has 1 to 1024"
             race ${SM} --block 64x32 --param x=f32[256] --param y=f32[256] --param n=256)
expect_first(quick_grid 4 STDERR "gpueq race: error: --grid '2147483648': grid x = 2147483648 is outside 1..2147483647"
             race ${SM} --block 128 --grid 2147483648 --param x=f32[256] --param y=f32[256] --param n=256)
expect_first(quick_shape_overflow 4 STDERR
             "gpueq race: error: --param 'x=f32\\[4294967296,4294967296\\]': a f32 tensor of shape \\[4294967296, 4294967296\\] exceeds the limit of 2\\^40 bytes per tensor"
             race ${SM} --block 128 --param x=f32[4294967296,4294967296] --param y=f32[256] --param n=256)
expect_first(quick_dynamic_shared 4 STDERR "gpueq race: error: --dynamic-shared: more than 232448 bytes \\(227 KiB\\)"
             race ${SM} --block 128 --dynamic-shared 1000000 --param x=f32[256] --param y=f32[256] --param n=256)
# Scalars must fit their PTX parameter's type; the error names the parameter.
set(ST ${I}/scalar_types.ptx)
expect_first(scalar_u8 4 STDERR "${ST}: error: kernel: parameter 0 \\('a', .u8 at ${ST}:7\\): 300 is outside the range of .u8 \\(0 to 255\\)"
             race ${ST} --block 32 --param a=300 --param b=1 --param c=1 --param d=1)
expect_first(scalar_s8 4 STDERR "${ST}: error: kernel: parameter 1 \\('b', .s8 at ${ST}:8\\): 300 is outside the range of .s8 \\(-128 to 127\\)"
             race ${ST} --block 32 --param a=1 --param b=300 --param c=1 --param d=1)
expect_first(scalar_s32 4 STDERR "${ST}: error: kernel: parameter 2 \\('c', .s32 at ${ST}:9\\): 1099511627776 is outside the range of .s32 \\(-2147483648 to 2147483647\\)"
             race ${ST} --block 32 --param a=1 --param b=1 --param c=1099511627776 --param d=1)
expect_first(scalar_u32 4 STDERR "${ST}: error: kernel: parameter 3 \\('d', .u32 at ${ST}:10\\): -1 is outside the range of .u32 \\(0 to 4294967295\\)"
             race ${ST} --block 32 --param a=1 --param b=1 --param c=1 --param d=-1)
expect_first(scalar_fraction 4 STDERR "${ST}: error: kernel: parameter 3 \\('d', .u32 at ${ST}:10\\): 2.5 is not an integer, but the parameter is .u32"
             race ${ST} --block 32 --param a=1 --param b=1 --param c=1 --param d=2.5)
expect(scalar_in_range 0 "race-free" race ${ST} --block 32 --param a=255 --param b=-128 --param c=-2147483648 --param d=4294967295)
expect_first(spec_scalar_u32 4 STDERR
             "tests/cli/inputs/scalar_range.kernel.json: error: kernel: parameter 2 \\('n', .u32 at ../../../examples/kernels/softmax/softmax_online.ptx:20\\): -1 is outside the range of .u32 \\(0 to 4294967295\\)"
             run ${I}/scalar_range.kernel.json)
# .npy inputs: header, dtype, shape and data length checked before anything is allocated.
set(P ${K}/reduction/v1_vs_v2.pair.json)
expect_first(npy_huge_header 4 STDERR "${I}/npy/huge_header/x.npy: error: header of 4294967280 bytes \\(numpy's limit is 10000\\)"
             run ${P} --inputs ${I}/npy/huge_header)
expect_first(npy_wrong_dtype 4 STDERR "${I}/npy/wrong_dtype/x.npy: error: dtype '<f8' does not match the spec's tensor 'x': f32 is '<f4'"
             run ${P} --inputs ${I}/npy/wrong_dtype)
expect_first(npy_wrong_shape 4 STDERR "${I}/npy/wrong_shape/x.npy: error: shape \\(64, 2\\) does not match the spec's tensor 'x': \\(128,\\)"
             run ${P} --inputs ${I}/npy/wrong_shape)
expect_first(npy_short_data 4 STDERR "${I}/npy/short_data/x.npy: error: holds 100 bytes of data; shape \\(128,\\) of '<f4' needs 512"
             run ${P} --inputs ${I}/npy/short_data)
file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/cli_npy_dir/x.npy")
expect_first(npy_directory 4 STDERR "${CMAKE_CURRENT_BINARY_DIR}/cli_npy_dir/x.npy: error: is a directory, not a .npy file"
             run ${P} --inputs "${CMAKE_CURRENT_BINARY_DIR}/cli_npy_dir")
# The case split over comparisons of symbolic values (issue 21 item 16): a 2-lane (max, sum) merge
# that selects the sum by comparing the maxima has three paths (m0 > m1; m1 > m0; m0 = m1), all
# equivalent to the naive kernel; with a budget of 2 paths it is unknown naming the budget; with
# the case split off (0) the selection stops the run as not structured, as before.
expect(case_split_paths 0 "equivalent.*equivalent on each of the 3 feasible path\\(s\\) \\(0 dropped as contradictory\\)"
       check --no-float32 ${K}/realworld/softmax_pair_merge_2_naive_vs_select.pair.json)
expect(case_split_budget 3 "unknown\n  the case split over comparisons of symbolic values needs more than 2 paths \\(the budget, --max-paths\\): 2 explored \\(0 of them dropped as contradictory\\), every feasible one equivalent"
       check --no-float32 --max-paths 2 ${K}/realworld/softmax_pair_merge_2_naive_vs_select.pair.json)
expect(case_split_off 3 "not-structured.*a selection on a comparison of symbolic values that is not max/min"
       check --no-float32 --max-paths 0 ${K}/realworld/softmax_pair_merge_2_naive_vs_select.pair.json)
# A difference on a path: the counterexample takes that path (m[0] > m[1] there).
expect(case_split_different 1 "not-equivalent.*\\(case split, path 1: m\\[0\\] > m\\[1\\]\\).*counterexample: at out\\[1\\]"
       check --no-float32 ${K}/realworld/softmax_pair_merge_2_no_rescale.pair.json)

# Expansions too large for memory end as unknown, naming the budget, within moments.
expect_first(identity_huge_power 3 STDOUT
             "unknown \\(normal form\\): normal form too large: \\(a sum of 2 terms\\)\\^100000 multiplied out would take about [0-9]+ MiB, over the expansion budget of 1024 MiB \\(normal_form_options::expansion_bytes, --max-expansion\\)"
             identity "(x+1)^100000" "(x+1)^99999*x + (x+1)^99999")
expect_first(identity_huge_expansion 3 STDOUT
             "unknown \\(normal form\\): normal form too large: .* over the expansion budget of 1024 MiB .*"
             identity "(x+y+z)^200" "(x+y+z)^199*x + (x+y+z)^199*y + (x+y+z)^199*z")
# Against 1 the same power is simply different: the counterexample search evaluates it without
# expanding anything.
expect_first(identity_huge_power_different 1 STDOUT "different \\(counterexample\\)" identity "(x+1)^100000" 1)
expect_first(identity_expansion_option 3 STDOUT "unknown \\(normal form\\): .* over the expansion budget of 1 MiB .*"
             identity --max-expansion 1 "(x+y+z)^60" "(x+y+z)^59*x + (x+y+z)^59*y + (x+y+z)^59*z")

# An allocation failure is a resource limit, exit 5, never "bad input": the expansion budget
# raised out of the way and the address space capped (ulimit -v, where a POSIX shell is found).
find_program(SH sh)
if(SH)
  math(EXPR cases "${cases} + 1")
  execute_process(COMMAND ${SH} -c "ulimit -v 300000 && exec \"$0\" identity --max-expansion 1000000 '(x+y+z)^200' '(x+y+z)^199*x + (x+y+z)^199*y + (x+y+z)^199*z'"
                          "${GPUEQ}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 5 OR NOT err MATCHES "^gpueq identity: error: resource limit: out of memory \\(std::bad_alloc\\)")
    message(SEND_ERROR "[resource_limit] exit code ${rc}, expected 5 and a resource-limit error:\n${out}${err}")
    math(EXPR failures "${failures} + 1")
  endif()
endif()

math(EXPR passed "${cases} - ${failures}")
message(STATUS "${passed} passed, ${failures} failed")
if(failures GREATER 0)
  message(FATAL_ERROR "cli tests failed")
endif()
