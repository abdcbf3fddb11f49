// The JS attention() options' defaults that the core's own types do not hold (the core has no
// "return" options): stated once for both of its paths, Embind's (attention_bindings.cpp) and the
// plain one (plain_attention.cpp).
#pragma once

namespace attn::js {

constexpr bool default_return_weights = true;
constexpr bool default_return_scores = false;

}  // namespace attn::js
