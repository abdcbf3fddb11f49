// attnscope: every mechanism of the classic attention tutorials, SIMD-fast natively and in
// WebAssembly, the translation models that run on them, and the aligners that read them.
// Include this header for the whole public API, or one layer's headers:
//   attn/core/    the mechanisms (target attnscope::attn)
//   attn/models/  model files, tokenizer, translation models, the captioner (attnscope::models)
//   attn/align/   links, AER, the statistical aligners, the hybrid (attnscope::align)
#pragma once

#include "attn/core/aoa.hpp"
#include "attn/core/attention.hpp"
#include "attn/core/convolution.hpp"
#include "attn/core/error.hpp"
#include "attn/core/layers.hpp"
#include "attn/core/multihead.hpp"
#include "attn/core/pooling.hpp"
#include "attn/core/probability.hpp"
#include "attn/core/rng.hpp"
#include "attn/core/threads.hpp"

#include "attn/models/captioner.hpp"
#include "attn/models/image.hpp"
#include "attn/models/rnn.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/tokenizer.hpp"

#include "attn/align/attention_aligner.hpp"
#include "attn/align/hmm.hpp"
#include "attn/align/ibm2.hpp"
#include "attn/align/links.hpp"
#include "attn/align/pairs.hpp"
