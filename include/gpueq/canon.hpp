// The canon module: normal forms, fingerprints, numeric evaluation and the decision of f = g.
#pragma once

#include <gpueq/canon/decide.hpp>
#include <gpueq/canon/evaluate.hpp>
#include <gpueq/canon/fingerprint.hpp>
#include <gpueq/canon/normal_form.hpp>
