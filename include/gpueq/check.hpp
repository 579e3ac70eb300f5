// gpueq::check: pair specs (check/spec.hpp; given tensor contents in check/contents.hpp, .npy files
// in check/npy.hpp), the verdict vocabulary (check/verdict.hpp), and the
// staged check of a pair: run every CTA of each side (check/sides.hpp), screen run errors and
// races, compare the outputs element by element (check/compare.hpp) with a reference kernel's or
// a specification's (check/specification.hpp, check/spec_check.hpp for the DSL), explain a
// difference (check/explain.hpp); check/driver.hpp holds check_pair, what `gpueq check` runs.
// Reading specs from JSON is <gpueq/check/spec_json.hpp> (it needs nlohmann-json).
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/contents.hpp>
#include <gpueq/check/driver.hpp>
#include <gpueq/check/dtype.hpp>
#include <gpueq/check/explain.hpp>
#include <gpueq/check/npy.hpp>
#include <gpueq/check/run.hpp>
#include <gpueq/check/sides.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/check/spec_check.hpp>
#include <gpueq/check/specification.hpp>
#include <gpueq/check/verdict.hpp>
