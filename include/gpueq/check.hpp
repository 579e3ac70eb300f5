// gpueq::check: pair specs, running both kernels of a pair (check/run.hpp), the element-wise
// comparison of their outputs (check/compare.hpp), and the end-to-end verdict with race analysis
// (check/driver.hpp, what `gpueq check` runs). Reading specs from JSON is
// <gpueq/check/spec_json.hpp> (it needs nlohmann-json).
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/driver.hpp>
#include <gpueq/check/run.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/check/spec_check.hpp>
