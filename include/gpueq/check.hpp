// gpueq::check: pair specs and the element-wise comparison of two kernels' outputs. Reading specs
// from JSON is <gpueq/check/spec_json.hpp> (it needs nlohmann-json).
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/spec.hpp>
