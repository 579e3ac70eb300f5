# Every public header compiles on its own: for each include/gpueq/**/*.hpp, a translation unit
# that includes only that header (twice, so that a missing #pragma once fails too) must compile,
# with the flags a user of the gpueq::gpueq target gets (check/spec_json.hpp: of gpueq::spec_json,
# the one header that needs nlohmann-json). Run by ctest (test `headers_alone`) as:
#   cmake -DCXX=<compiler> -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch dir>
#         -DINCLUDES=<dirs, |-separated> -DDEFINES=<macros, |-separated>
#         -DJSON_INCLUDES=<dirs, |-separated> -DJSON_DEFINES=<macros, |-separated> -P headers_alone.cmake
# Optional: -DHEADERS=<headers relative to include/, |-separated> checks only those;
# -DSHARD=i -DSHARDS=n checks every n-th header from the i-th (ctest runs two shards side by side).
#
# Why: a header that compiles only because its includer happened to include something first
# works in every test and breaks the first user who includes it alone, or in another order. The
# tests include headers in whatever order they need, so nothing else catches it.
#
# What is compiled: every .hpp, the umbrella headers (gpueq/M.hpp, gpueq/gpueq.hpp) included,
# except the parts of the engine: the family files exec/semantics/*.hpp whose first include is
# exec/engine.hpp. engine.hpp includes all of them at its end, so a part included alone is the
# whole engine with that part's body last; compiling each of the nineteen alone cost about 100 s
# of CPU per CI run (5 s each, as much as engine.hpp, of which it is a copy), for the one thing it
# could add: a part that uses a non-template helper of a part included after it. For them this
# checks the first include, which is what makes a part alone compile as the engine does.
# Only -fsyntax-only (parsing and template instantiation, no code generation) keeps the cost down;
# the time of each header is printed, slowest first.
cmake_minimum_required(VERSION 3.25)

foreach(required CXX SOURCE_DIR WORK_DIR)
  if(NOT ${required})
    message(FATAL_ERROR "headers_alone.cmake: -D${required}=... is required (see the comment at the top)")
  endif()
endforeach()

# The flags of a library user and of a spec_json user, from the targets (tests/CMakeLists.txt).
function(compile_flags out includes defines)
  string(REPLACE "|" ";" includes "${includes}")
  string(REPLACE "|" ";" defines "${defines}")
  list(REMOVE_DUPLICATES includes)
  set(flags -std=c++20 -fsyntax-only)
  foreach(dir ${includes})
    list(APPEND flags "-I${dir}")
  endforeach()
  foreach(define ${defines})
    list(APPEND flags "-D${define}")
  endforeach()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
compile_flags(library_flags "${INCLUDES}" "${DEFINES}")
compile_flags(json_flags "${JSON_INCLUDES}" "${JSON_DEFINES}")

set(root "${SOURCE_DIR}/include")
if(HEADERS)
  string(REPLACE "|" ";" headers "${HEADERS}")
else()
  file(GLOB_RECURSE headers RELATIVE "${root}" "${root}/gpueq/*.hpp")
endif()
list(SORT headers)
# The parts of the engine (see the top): a family file whose first include is the engine is
# compiled with it, not alone; any other (exec/semantics/bits.hpp) is compiled alone like every
# header. Headers named in -DHEADERS are all compiled alone.
set(parts "")
foreach(header ${headers})
  if(NOT HEADERS AND header MATCHES "^gpueq/exec/semantics/")
    file(STRINGS "${root}/${header}" includes REGEX "^#include ")
    if(includes)
      list(GET includes 0 first)
      if(first STREQUAL "#include <gpueq/exec/engine.hpp>")
        list(APPEND parts ${header})
      endif()
    endif()
  endif()
endforeach()
if(parts)
  list(REMOVE_ITEM headers ${parts})
  list(LENGTH parts part_count)
  message(STATUS "${part_count} parts of the engine begin with #include <gpueq/exec/engine.hpp> (compiled with it)")
endif()
if(NOT headers)
  message(FATAL_ERROR "no headers under ${root}/gpueq")
endif()
if(SHARDS)
  set(mine "")
  set(index 0)
  foreach(header ${headers})
    math(EXPR slot "${index} % ${SHARDS}")
    if(slot EQUAL SHARD)
      list(APPEND mine ${header})
    endif()
    math(EXPR index "${index} + 1")
  endforeach()
  set(headers ${mine})
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(failed "")
set(timings "")
string(TIMESTAMP start "%s")
foreach(header ${headers})
  string(MAKE_C_IDENTIFIER "${header}" name)
  set(source "${WORK_DIR}/${name}.cpp")
  file(WRITE "${source}" "#include <${header}>\n#include <${header}>  // again: the include guard\n")
  if(header STREQUAL "gpueq/check/spec_json.hpp")
    set(flags ${json_flags})
  else()
    set(flags ${library_flags})
  endif()
  string(TIMESTAMP before "%s%f")
  execute_process(COMMAND ${CXX} ${flags} "${source}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP after "%s%f")
  math(EXPR tenths "(${after} - ${before}) / 100000")  # microseconds to tenths of a second
  math(EXPR whole "${tenths} / 10")
  math(EXPR tenth "${tenths} % 10")
  string(LENGTH "${tenths}" digits)
  string(SUBSTRING "000000${tenths}" ${digits} 6 key)  # zero-padded, to sort by time as strings
  list(APPEND timings "${key} ${whole}.${tenth} s  ${header}")
  if(NOT rc EQUAL 0)
    list(APPEND failed ${header})
    # The start of the compiler's complaint is enough to see what is missing.
    string(SUBSTRING "${out}" 0 3000 complaint)
    string(REPLACE "\n" "\n    " complaint "${complaint}")
    list(JOIN flags " " shown)
    message(SEND_ERROR "${header} does not compile on its own:\n    ${CXX} ${shown} ${source}\n    ${complaint}")
  endif()
endforeach()
string(TIMESTAMP stop "%s")
math(EXPR total "${stop} - ${start}")

list(SORT timings ORDER DESCENDING)
set(report "")
foreach(entry ${timings})
  string(REGEX REPLACE "^[0-9]+ " "" entry "${entry}")
  string(APPEND report "  ${entry}\n")
endforeach()
list(LENGTH headers count)
list(LENGTH failed failures)
message(STATUS "${count} headers compiled alone in ${total} s; per header, slowest first:\n${report}")
if(failures GREATER 0)
  list(JOIN failed " " failed)
  message(FATAL_ERROR "${failures} of ${count} headers do not compile on their own: ${failed}")
endif()
message(STATUS "every header compiles on its own")
