// gpueq::exec: the execution engine. Runs every thread of one CTA of a PTX kernel under one
// schedule, in a value domain (float32 as the GPU computes, exact rationals, or symbolic terms),
// reporting memory accesses and barrier events to an observer (the race context).
#pragma once

#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/errors.hpp>
#include <gpueq/exec/exact.hpp>
#include <gpueq/exec/float32.hpp>
#include <gpueq/exec/floats.hpp>
#include <gpueq/exec/fragments.hpp>
#include <gpueq/exec/launch.hpp>
#include <gpueq/exec/memory.hpp>
#include <gpueq/exec/observer.hpp>
#include <gpueq/exec/program.hpp>
#include <gpueq/exec/symbolic.hpp>
#include <gpueq/exec/tma.hpp>
#include <gpueq/exec/values.hpp>
