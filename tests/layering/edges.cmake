# Layering: the #include edges between the modules of include/gpueq/ go only where the list below
# allows. Run by ctest (test `layering`) as:
#   cmake -DSOURCE_DIR=<repo> -P edges.cmake
# It reads the headers as text and needs nothing beyond cmake (well under a second).
#
# Why: the modules are meant to be layered (docs/ARCHITECTURE.md, "Modules"): the term store knows
# nothing of PTX, the PTX front end nothing of terms, the engine nothing of the checker. A stray
# include compiles and links fine in a header-only library, so nothing else would notice one until
# the layers had grown into each other. This list is the source of truth for the allowed edges;
# the architecture document points here.
#
# What counts as an edge: a line `#include <gpueq/M/...>` (or of the umbrella `<gpueq/M.hpp>`) in a
# header of module M' is the edge M' -> M; includes within a module are free. A header's module is
# its folder; the umbrella gpueq/M.hpp belongs to M, and gpueq/gpueq.hpp (which includes every
# umbrella) may include anything. Besides the edges it checks:
# - every folder under include/gpueq/ is a module listed here (a new one must be placed in the list);
# - headers include each other as <gpueq/...>, never with quotes (a relative "../x.hpp" would hide
#   an edge);
# - no header includes an exception's header (below);
# - <nlohmann/...> only in check/spec_json.hpp, the one header allowed to need nlohmann-json, and
#   no header includes that one (the umbrella headers leave it out, so that library users do not
#   inherit the CLI's dependency).
# Every violation is reported as `file:line: <edge> ...`; any violation fails the test.

cmake_minimum_required(VERSION 3.25)  # the project's; for if(IN_LIST) in script mode

# The modules, and for each the modules its headers may include (the transitive closure of the
# layering, so that a module may use a lower layer's types directly):
#
#   support <- term <- canon
#   support <- ptx
#   term, ptx <- dsl                 (the kernel language lowers to PTX: dsl/kernel.hpp)
#   term, ptx <- exec <- race <- check
set(modules support term canon ptx dsl exec race check)
set(allowed_support "")
set(allowed_term support)
set(allowed_canon support term)
set(allowed_ptx support)
set(allowed_dsl support term ptx)
set(allowed_exec support term ptx)
set(allowed_race support term ptx exec)
set(allowed_check support term canon ptx dsl exec race)

# Exceptions: single headers allowed an edge their module is not, each with its reason. Such a
# header sits above the modules it reaches into, so no library header may include it (that would
# close a cycle, e.g. check -> race/driver.hpp -> check), but another exception header; the
# umbrellas leave them out too.
#   race/driver.hpp -> check: the race driver (`gpueq race`, race::check_races) runs a spec's
#   kernels through check's prepare, run and screen stages, so it is above check although it
#   belongs to race. race/driver_entries.hpp holds check_races's body (support/entry.hpp).
set(exception_files race/driver.hpp race/driver_entries.hpp)
set(exception_race/driver.hpp check)
set(exception_race/driver_entries.hpp check)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -P edges.cmake")
endif()
set(root "${SOURCE_DIR}/include/gpueq")
file(GLOB_RECURSE headers RELATIVE "${root}" "${root}/*.hpp")
list(SORT headers)
if(NOT headers)
  message(FATAL_ERROR "no headers under ${root}")
endif()

set(violations "")
macro(violation text)
  list(APPEND violations "${text}")
endmacro()

# Every module folder is listed.
file(GLOB entries RELATIVE "${root}" "${root}/*")
foreach(entry ${entries})
  if(IS_DIRECTORY "${root}/${entry}" AND NOT entry IN_LIST modules)
    violation("include/gpueq/${entry}/: a module folder that tests/layering/edges.cmake does not list")
  endif()
endforeach()

set(edges "")  # "from -> to" for every include between modules, for the summary
foreach(header ${headers})
  # The header's module, and what it may include.
  if(header MATCHES "^([a-z_]+)/")
    set(from "${CMAKE_MATCH_1}")
  elseif(header STREQUAL "gpueq.hpp")
    set(from "")  # the umbrella of everything
  elseif(header MATCHES "^([a-z_]+)\\.hpp$")
    set(from "${CMAKE_MATCH_1}")
  endif()
  if(from AND NOT from IN_LIST modules)
    violation("include/gpueq/${header}: an umbrella header of no listed module")
    continue()
  endif()
  set(may "${allowed_${from}}")
  if(header IN_LIST exception_files)
    list(APPEND may ${exception_${header}})
  endif()

  # One list element per line, empty lines kept (numbers stay right): the characters that would
  # split or join CMake list elements are replaced first.
  file(READ "${root}/${header}" text)
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    set(where "include/gpueq/${header}:${number}")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\"")
      violation("${where}: #include \"${CMAKE_MATCH_1}\": include gpueq headers as <gpueq/...>")
    elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]*<nlohmann/" AND NOT header STREQUAL "check/spec_json.hpp")
      violation("${where}: nlohmann-json is for check/spec_json.hpp only")
    elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]*<gpueq/check/spec_json.hpp>")
      violation("${where}: no library header includes check/spec_json.hpp (it would need nlohmann-json)")
    elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]*<gpueq/([^>]*)>")
      set(target "${CMAKE_MATCH_1}")
      if(target MATCHES "^([a-z_]+)/")
        set(to "${CMAKE_MATCH_1}")
      elseif(target MATCHES "^([a-z_]+)\\.hpp$")
        set(to "${CMAKE_MATCH_1}")
      else()
        set(to "")
      endif()
      if(NOT to IN_LIST modules)
        violation("${where}: #include <gpueq/${target}>: not a header of a listed module")
      elseif(target IN_LIST exception_files AND NOT header IN_LIST exception_files)
        violation("${where}: #include <gpueq/${target}>: an exception's header (above ${exception_${target}}), which no library header includes")
      elseif(from AND NOT to STREQUAL from)
        list(APPEND edges "${from} -> ${to}")
        if(NOT to IN_LIST may)
          list(JOIN may " " may_text)
          violation("${where}: forbidden edge ${from} -> ${to} (#include <gpueq/${target}>), ${from} may include only: ${may_text}")
        endif()
      endif()
    endif()
  endforeach()
endforeach()

# The measured edges, for the log.
set(summary "")
list(REMOVE_DUPLICATES edges)
foreach(from ${modules})
  set(targets "")
  foreach(to ${modules})
    if("${from} -> ${to}" IN_LIST edges)
      list(APPEND targets ${to})
    endif()
  endforeach()
  list(JOIN targets " " targets)
  string(APPEND summary "  ${from} -> ${targets}\n")
endforeach()
list(LENGTH headers count)
message(STATUS "${count} headers; the edges between modules they include:\n${summary}")

if(violations)
  list(LENGTH violations n)
  list(JOIN violations "\n  " text)  # indented: cmake prints indented lines unwrapped
  message(FATAL_ERROR "${n} layering violation(s) (the allowed edges are listed in tests/layering/edges.cmake):\n  ${text}")
endif()
message(STATUS "layering: every include edge is allowed")
