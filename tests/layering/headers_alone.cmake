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
#
# Chains: a header B whose first line of code is `#include <A>` (A a gpueq header) sees nothing
# before A's contents, so a translation unit that includes A twice and then B twice is A alone
# (with its include guard tested) followed by exactly what B alone is. Each header that no other
# header begins with is compiled with the chain of first includes below it, bottom first, every
# link twice: one compile proves the whole chain, and a header such as exec/engine.hpp, which
# many begin with, is not parsed again alone (about a third of the test's CPU: 407 s of headers
# compiled one by one against 268 s of chains here). A failure names the chain; the compiler's
# "In file included from" lines name the header.
# Only -fsyntax-only (parsing and template instantiation, no code generation) keeps the cost down;
# the time of each compile is printed, slowest first.
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

# The header a header begins with: its first line that is not blank, a // comment or
# `#pragma once`, when that line includes a gpueq header (see "Chains" at the top). Anything
# before it (a declaration, an #if) and the header is compiled as the top of a chain of its own.
function(first_include header out)
  set(${out} "" PARENT_SCOPE)
  file(STRINGS "${root}/${header}" lines REGEX "^([^/]|/[^/])" LIMIT_COUNT 400)
  list(REMOVE_ITEM lines "#pragma once")
  if(lines)
    list(GET lines 0 first)
    if(first MATCHES "^#include <(gpueq/[^>]+)>$")
      set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
    endif()
  endif()
endfunction()
# Tops: the headers to compile, each with its chain (the header, then its first include, ...).
# With -DHEADERS every named header is a top of a chain of one: it is compiled alone.
set(tops "")
set(begun_with "")
foreach(header ${headers})
  first_include(${header} below)
  set(chain_of_${header} ${header})
  if(NOT HEADERS)
    while(below)
      list(APPEND chain_of_${header} ${below})
      list(APPEND begun_with ${below})
      first_include(${below} next)
      set(below ${next})
    endwhile()
  endif()
endforeach()
foreach(header ${headers})
  list(FIND begun_with ${header} at)
  if(at EQUAL -1)
    list(APPEND tops ${header})
  endif()
endforeach()
# Shards: the tops dealt out by their estimated cost, the bytes of every gpueq header each
# reaches (what the compiler parses), largest first to the shard with the least so far, so that
# the two shards ctest runs side by side end together. Every shard computes the same deal.
function(reach header out)
  get_property(known GLOBAL PROPERTY reach_${header} SET)
  if(known)
    get_property(r GLOBAL PROPERTY reach_${header})
    set(${out} "${r}" PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY reach_${header} "${header}")  # a cycle ends here
  file(STRINGS "${root}/${header}" lines REGEX "^#include <gpueq/")
  set(r ${header})
  foreach(line ${lines})
    string(REGEX REPLACE "^#include <(gpueq/[^>]+)>.*" "\\1" included "${line}")
    if(EXISTS "${root}/${included}")
      reach(${included} below)
      list(APPEND r ${below})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES r)
  set_property(GLOBAL PROPERTY reach_${header} "${r}")
  set(${out} "${r}" PARENT_SCOPE)
endfunction()
if(SHARDS)
  set(weighed "")
  foreach(header ${tops})
    reach(${header} reached)
    set(bytes 0)
    foreach(h ${reached})
      file(SIZE "${root}/${h}" size)
      math(EXPR bytes "${bytes} + ${size}")
    endforeach()
    string(LENGTH "${bytes}" digits)
    string(SUBSTRING "000000000000${bytes}" ${digits} 12 key)
    list(APPEND weighed "${key}|${header}")
  endforeach()
  list(SORT weighed ORDER DESCENDING)
  set(loads "")
  foreach(i RANGE 1 ${SHARDS})
    list(APPEND loads 0)
  endforeach()
  set(mine "")
  foreach(entry ${weighed})
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 bytes)
    list(GET entry 1 header)
    string(REGEX REPLACE "^0+([0-9])" "\\1" bytes "${bytes}")
    set(least 0)
    set(index 0)
    foreach(load ${loads})
      list(GET loads ${least} smallest)
      if(load LESS smallest)
        set(least ${index})
      endif()
      math(EXPR index "${index} + 1")
    endforeach()
    list(GET loads ${least} load)
    math(EXPR load "${load} + ${bytes}")
    list(REMOVE_AT loads ${least})
    list(INSERT loads ${least} ${load})
    if(least EQUAL SHARD)
      list(APPEND mine ${header})
    endif()
  endforeach()
  set(tops ${mine})
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(failed "")
set(timings "")
set(proved "")
string(TIMESTAMP start "%s")
foreach(header ${tops})
  string(MAKE_C_IDENTIFIER "${header}" name)
  set(source "${WORK_DIR}/${name}.cpp")
  set(chain ${chain_of_${header}})
  list(REVERSE chain)
  set(text "")
  foreach(link ${chain})
    string(APPEND text "#include <${link}>\n#include <${link}>  // again: the include guard\n")
    list(APPEND proved ${link})
  endforeach()
  file(WRITE "${source}" "${text}")
  list(JOIN chain " <- " shown_chain)
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
  list(APPEND timings "${key} ${whole}.${tenth} s  ${shown_chain}")
  if(NOT rc EQUAL 0)
    list(APPEND failed ${header})
    # The start of the compiler's complaint is enough to see what is missing.
    string(SUBSTRING "${out}" 0 3000 complaint)
    string(REPLACE "\n" "\n    " complaint "${complaint}")
    list(JOIN flags " " shown)
    message(SEND_ERROR "${header} (or a header of its chain: ${shown_chain}) does not compile on its own:\n    ${CXX} ${shown} ${source}\n    ${complaint}")
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
list(REMOVE_DUPLICATES proved)
list(LENGTH proved count)
list(LENGTH tops compiles)
list(LENGTH failed failures)
message(STATUS "${count} headers compiled alone in ${compiles} chains in ${total} s; per chain (top <- first include ...), slowest first:\n${report}")
if(failures GREATER 0)
  list(JOIN failed " " failed)
  message(FATAL_ERROR "${failures} of ${compiles} chains do not compile: ${failed}")
endif()
message(STATUS "every header compiles on its own")
