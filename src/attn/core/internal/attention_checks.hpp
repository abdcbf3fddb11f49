// The checks of attention()'s arguments (attention.cpp's entry points and the paths' scans).
// Internal: not part of the public API.
#pragma once

#include <cstddef>

#include "attn/core/attention.hpp"

namespace attn::detail {

// Whether the score reads the keys: not when the caller gave them already projected.
bool reads_keys(const AttentionOptions& options);

// The arrays every call reads: present, and free of NaN and infinity (unless options.check_finite
// is off).
void validate_inputs(const Shape& shape, const float* query, const float* key, const float* value,
                     const AttentionOptions& options, const AttentionOutputs& outputs);

// Everything but the scan of the inputs for NaN and infinity, which attention() runs inside the
// parts of the work (on every thread) and, when a part finds a bad value, again in full with
// validate_inputs to name it.
void validate(const Shape& shape, const float* query, const float* key, const float* value,
              const AttentionOptions& options, const AttentionOutputs& outputs);

}  // namespace attn::detail
