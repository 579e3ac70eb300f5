// gpueq: the umbrella header. Includes every module of the library.
#pragma once

#include <gpueq/canon.hpp>
#include <gpueq/check.hpp>
#include <gpueq/dsl.hpp>
#include <gpueq/exec.hpp>
#include <gpueq/ptx.hpp>
#include <gpueq/race.hpp>
#include <gpueq/term.hpp>
