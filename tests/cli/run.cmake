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
expect(parse_bad 4 "unsupported.ptx:3:31: unsupported instruction 'tex.2d.v4.f32'"
       parse tests/fuzz/corpus/ptx_parse/unsupported.ptx)
expect(parse_missing 4 "." parse does/not/exist.ptx)
expect(parse_many 4 "idioms.ptx: PTX.*unsupported.ptx:3:31"
       parse tests/ptx/inputs/idioms.ptx tests/fuzz/corpus/ptx_parse/unsupported.ptx)
expect(parse_many_json 4 "--json reports one file" parse --json tests/ptx/inputs/idioms.ptx tests/ptx/inputs/idioms.ptx)

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
expect(check_race 2 "race.*WAR race on shared reduce5::s\\[1\\]" check ${K}/reduction/v1_vs_v5.pair.json)
expect(check_warp_synchronous 0 "equivalent" check --warp-synchronous ${K}/reduction/v1_vs_v5.pair.json)
expect(check_deadlock 2 "deadlock" check ${K}/named_barriers/ref_vs_producer_short.pair.json)
expect(check_expect 0 "3 passed, 0 failed" check --expect -q ${K}/softmax/naive_vs_online.pair.json
       ${K}/bugs/stencil_ref_vs_oob.pair.json ${K}/reduction/v1_vs_v5.pair.json)
expect(check_missing 4 "cannot|No such|does/not" check does/not/exist.pair.json)
expect(check_help 0 "Exit status: 0 equivalent" check --help)

# run: one kernel, concrete or symbolic; .npy out and back in.
expect(run_float32 0 "y: 0\\.00" run ${K}/softmax/softmax_online.kernel.json)
expect(run_symbolic 0 "y\\[0\\] = exp\\(x\\[0\\] - max\\(" run ${K}/softmax/softmax_online.kernel.json --domain symbolic)
expect(run_json 0 "\"outputs\".*\"thread_instructions\"" run ${K}/softmax/softmax_online.kernel.json --json)
file(REMOVE_RECURSE "${CMAKE_CURRENT_BINARY_DIR}/cli_run")
expect(run_out 0 "outputs written" run ${K}/reduction/v1_vs_v2.pair.json --out "${CMAKE_CURRENT_BINARY_DIR}/cli_run")
file(COPY_FILE "${CMAKE_CURRENT_BINARY_DIR}/cli_run/out.npy" "${CMAKE_CURRENT_BINARY_DIR}/cli_run/x.npy" RESULT copied)
expect(run_inputs_wrong_size 4 "x.npy: holds 1 values, the spec says 128"
       run ${K}/reduction/v1_vs_v2.pair.json --inputs "${CMAKE_CURRENT_BINARY_DIR}/cli_run")
expect(run_inputs_missing 4 "cannot open" run ${K}/reduction/v1_vs_v2.pair.json --inputs does/not/exist)
expect(run_oob 2 "out-of-bounds.*tile\\[128\\]" run ${K}/bugs/stencil_ref_vs_oob.pair.json --side candidate)
expect(check_single 4 "no pair to check" check ${K}/softmax/softmax_online.kernel.json)
expect(run_memory_limit 2 "memory limit of 1 MiB exceeded" run ${K}/sgemm/naive_vs_coalesced.pair.json --domain symbolic --max-memory 1)
# race: both kernels of a pair, or the kernel of a single-kernel spec.
expect(race_clean 0 "race-free and well-synchronized" race ${K}/softmax/softmax_online.kernel.json)
expect(race_named 2 "mirror_early_release.ptx \\(candidate\\): racy.*WAR race on shared mirror_early_release::buf"
       race ${K}/named_barriers/ref_vs_early_release.pair.json)
expect(race_inter_cta 2 "inter-CTA race: y\\[[0-9]+\\] is written by CTA \\(1,0,0\\) and written by CTA \\(0,0,0\\)"
       race tests/cli/inputs/softmax_two_ctas.kernel.json)
expect(race_witness 2 "witness for threads 0 and 1: under round robin .* out\\[0\\] = [-0-9.e]+; under round robin with thread 1 moved ahead of thread 0 out\\[0\\] = "
       race --witness ${K}/reduction/v1_vs_v5.pair.json)
expect(race_deadlock 2 "deadlock" race ${K}/named_barriers/ref_vs_producer_short.pair.json)

math(EXPR passed "${cases} - ${failures}")
message(STATUS "${passed} passed, ${failures} failed")
if(failures GREATER 0)
  message(FATAL_ERROR "cli tests failed")
endif()
