// attnscope: every mechanism of the classic attention tutorials, SIMD-fast natively and in
// WebAssembly. Include this header for the whole public API.
#pragma once

#include "attn/align.hpp"
#include "attn/aoa.hpp"
#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/ibm2.hpp"
#include "attn/kernels.hpp"
#include "attn/multihead.hpp"
#include "attn/pooling.hpp"
#include "attn/probability.hpp"
#include "attn/rng.hpp"
