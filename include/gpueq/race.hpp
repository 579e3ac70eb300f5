// gpueq::race: race and barrier checking of one CTA run. The context observes the execution
// engine's events (gpueq/exec/observer.hpp) and reports races grouped by instruction pair and
// WEFT's barrier diagnostics; inter_cta.hpp finds races between the CTAs of a grid from their
// global footprints; ptx_source.hpp names the instructions of a parsed PTX kernel.
#pragma once

#include <gpueq/race/context.hpp>
#include <gpueq/race/inter_cta.hpp>
#include <gpueq/race/ptx_source.hpp>
#include <gpueq/race/report.hpp>
