// gpueq::dsl: specifications as C++ expression templates (see dsl/expr.hpp).
#pragma once

#include <gpueq/dsl/domains.hpp>
#include <gpueq/dsl/expr.hpp>
