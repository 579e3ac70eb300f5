# Every public header compiles on its own: for each include/gpueq/**/*.hpp, a translation unit
# that includes only that header (twice, so that a missing #pragma once fails too) must compile,
# with the flags a user of the gpueq::gpueq target gets (check/spec_json.hpp: of gpueq::spec_json,
# the one header that needs nlohmann-json). Run by ctest (test `headers_alone`) as:
#   cmake -DCXX=<compiler> -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch dir>
#         -DINCLUDES=<dirs, |-separated> -DDEFINES=<macros, |-separated>
#         -DJSON_INCLUDES=<dirs, |-separated> -DJSON_DEFINES=<macros, |-separated> -P headers_alone.cmake
# Optional: -DHEADERS=<headers relative to include/, |-separated> checks only those;
# -DSHARD=i -DSHARDS=n checks the i-th of n shards, the chains dealt out by estimated cost (ctest
# runs two shards side by side).
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
# compiled one by one against about 275 s of chains here). Not when A includes B back (a whole
# that includes its parts at its end) other than as its very last include: B alone then has its
# body after A's later parts, which the chain would not compile, so B is compiled alone
# (first_include below). A failure names the chain; the compiler's "In file included from" lines
# name the header.
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
# The gpueq header a header begins with: its first line that is not blank, a // comment or
# `#pragma once`, when that line includes one; empty otherwise (a declaration, an #if, another
# library's header first).
function(begins_with header out)
  set(${out} "" PARENT_SCOPE)
  file(STRINGS "${root}/${header}" lines REGEX "^([^/]|/[^/])" LIMIT_COUNT 400 ENCODING UTF-8)
  list(REMOVE_ITEM lines "#pragma once")
  if(lines)
    list(GET lines 0 first)
    if(first MATCHES "^#include <(gpueq/[^>]+)>$")
      set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
    endif()
  endif()
endfunction()
# The parts of the engine (see the top): a family file that begins with the engine is compiled
# with it, not alone; any other (exec/semantics/bits.hpp) is compiled alone like every header.
# Headers named in -DHEADERS are all compiled alone.
set(parts "")
foreach(header ${headers})
  if(NOT HEADERS AND header MATCHES "^gpueq/exec/semantics/")
    begins_with(${header} first)
    if(first STREQUAL "gpueq/exec/engine.hpp")
      list(APPEND parts ${header})
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

# The gpueq headers a header includes directly (memoized; every line, not only the first).
function(direct_includes header out)
  get_property(known GLOBAL PROPERTY includes_${header} SET)
  if(NOT known)
    file(STRINGS "${root}/${header}" lines REGEX "^#include <gpueq/" ENCODING UTF-8)
    set(found "")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include <(gpueq/[^>]+)>.*" "\\1" included "${line}")
      if(EXISTS "${root}/${included}")
        list(APPEND found ${included})
      endif()
    endforeach()
    set_property(GLOBAL PROPERTY includes_${header} "${found}")
  endif()
  get_property(found GLOBAL PROPERTY includes_${header})
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
# Every gpueq header a header reaches through its includes, itself included (a walk of its own
# for each header: a cycle of includes, a header and the parts it includes at its end, must not
# leave a partial answer behind).
# An optional third argument is a header the walk does not enter (one already open, whose
# #pragma once stops a second include of it).
function(reach header out)
  set(seen ${header} ${ARGN})
  set(todo ${header})
  while(todo)
    list(POP_FRONT todo h)
    direct_includes(${h} found)
    foreach(i ${found})
      if(NOT i IN_LIST seen)
        list(APPEND seen ${i})
        list(APPEND todo ${i})
      endif()
    endforeach()
  endwhile()
  if(ARGN)
    list(REMOVE_ITEM seen ${ARGN})
  endif()
  set(${out} "${seen}" PARENT_SCOPE)
endfunction()
# The header a header is chained onto (see "Chains" at the top): the one it begins with
# (begins_with; a header that begins otherwise is the top of a chain of its own). Not when the
# header it begins with includes it back (a part that its whole includes, as
# canon/normal_form.hpp includes normal_form_sums.hpp and then normal_form_atoms.hpp): alone, the
# part's body comes after everything the whole includes after it, in the chain before, so the
# part is compiled alone, unless the whole includes it last, with nothing but #endif after
# (normal_form_atoms.hpp, every *_entries.hpp): then both orders are the same text.
function(first_include header out)
  set(${out} "" PARENT_SCOPE)
  begins_with(${header} below)
  if(NOT below)
    return()
  endif()
  reach(${below} reached)
  if(NOT header IN_LIST reached)
    set(${out} "${below}" PARENT_SCOPE)
    return()
  endif()
  # `below` reaches `header`: only through its last include, with nothing but #endif after it?
  # (Read as text: C++ lines read as a CMake list would be split at semicolons and brackets.)
  file(READ "${root}/${below}" text)
  string(FIND "${text}" "\n#include " at REVERSE)
  if(at EQUAL -1)
    return()
  endif()
  math(EXPR at "${at} + 1")
  string(SUBSTRING "${text}" ${at} -1 tail)
  string(FIND "${tail}" "\n" end)
  if(end EQUAL -1)
    set(end 0)
  endif()
  string(SUBSTRING "${tail}" 0 ${end} last)
  string(SUBSTRING "${tail}" ${end} -1 rest)
  string(REGEX REPLACE "//[^\n]*" "" rest "${rest}")
  string(REGEX REPLACE "#endif" "" rest "${rest}")
  string(STRIP "${rest}" rest)
  if(NOT rest STREQUAL "" OR NOT last STREQUAL "#include <${header}>")
    return()
  endif()
  direct_includes(${below} others)
  list(REMOVE_ITEM others ${header})
  foreach(other ${others})
    reach(${other} through ${below})  # `below` is open while its includes are read
    if(header IN_LIST through)
      return()
    endif()
  endforeach()
  set(${out} "${below}" PARENT_SCOPE)
endfunction()
# Tops: the headers to compile, each with its chain (the header, then its first include, ...).
# With -DHEADERS every named header is a top of a chain of one: it is compiled alone, as is
# check/spec_json.hpp, the one header compiled with other flags (so that the headers below it
# are proved with the library's flags).
set(tops "")
set(begun_with "")
foreach(header ${headers})
  if(NOT EXISTS "${root}/${header}")
    message(FATAL_ERROR "${header}: no such header under ${root}")
  endif()
  set(chain_of_${header} ${header})
  if(NOT HEADERS AND NOT header STREQUAL "gpueq/check/spec_json.hpp")
    first_include(${header} below)
    while(below AND NOT below IN_LIST chain_of_${header})
      list(APPEND chain_of_${header} ${below})
      list(APPEND begun_with ${below})
      first_include(${below} next)
      set(below ${next})
    endwhile()
  endif()
endforeach()
foreach(header ${headers})
  if(NOT header IN_LIST begun_with)
    list(APPEND tops ${header})
  endif()
endforeach()
# Shards: the tops dealt out by their estimated cost, the bytes of every gpueq header each
# reaches (what the compiler parses), largest first to the shard with the least so far, so that
# the two shards ctest runs side by side end together. Every shard computes the same deal.
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
