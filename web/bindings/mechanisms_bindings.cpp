// The mechanisms with their own parameters: multi-head attention, attention pooling,
// attention-over-attention, and dropout on weights.
#include <emscripten/bind.h>

#include "attn/core/aoa.hpp"
#include "attn/core/attention.hpp"
#include "attn/core/multihead.hpp"
#include "attn/core/pooling.hpp"
#include "masking.hpp"

namespace attn::js {
namespace {

std::vector<float> optional_floats(const val& options, const char* name, long long expected) {
  return has(options, name) ? floats(options, name, expected) : std::vector<float>();
}

// The layer's sizes and weights; their sizes are checked against the resolved shape by the
// MultiHeadAttention constructor.
MultiHeadWeights read_multi_head_weights(const val& options) {
  MultiHeadWeights w;
  w.model_dim = integer(options, "modelDim", 0, true);
  w.key_value_dim = integer(options, "keyValueDim", 0);
  w.heads = integer(options, "heads", 0, true);
  w.key_dim = integer(options, "keyDim", 0);
  w.value_dim = integer(options, "valueDim", 0);
  check_size("modelDim", w.model_dim);
  check_size("heads", w.heads);
  check_size("keyValueDim", w.key_value_dim, 0);
  check_size("keyDim", w.key_dim, 0);
  check_size("valueDim", w.value_dim, 0);
  w.query_weight = floats(options, "queryWeight", -1);
  w.key_weight = floats(options, "keyWeight", -1);
  w.value_weight = floats(options, "valueWeight", -1);
  w.output_weight = floats(options, "outputWeight", -1);
  w.query_bias = optional_floats(options, "queryBias", -1);
  w.key_bias = optional_floats(options, "keyBias", -1);
  w.value_bias = optional_floats(options, "valueBias", -1);
  w.output_bias = optional_floats(options, "outputBias", -1);
  return w;
}

val multi_head_attention_js(val options) {
  return guarded([&] {
    check_options(
        options, "multiHeadAttention",
        {"queryInput", "keyValueInput", "queryLength", "keyLength", "modelDim",    "keyValueDim",  "heads",
         "keyDim",     "valueDim",      "queryWeight", "keyWeight", "valueWeight", "outputWeight", "queryBias",
         "keyBias",    "valueBias",     "outputBias",  "score",     "validLength", "mask",         "causal",
         "maskValue",  "probability",   "temperature", "dropout",   "seed",        "returnWeights"});
    const MultiHeadAttention mha(read_multi_head_weights(options));
    const MultiHeadShape& resolved = mha.shape();

    const int query_length = integer(options, "queryLength", 0, true);
    check_size("queryLength", query_length);
    const auto query_input =
        floats(options, "queryInput", element_count("queryInput", {query_length, resolved.model_dim}),
               dims({query_length, resolved.model_dim}));
    const bool self = !has(options, "keyValueInput");  // self-attention when only one input is given
    const int key_length = self ? query_length : integer(options, "keyLength", 0, true);
    if (self && has(options, "keyLength") && integer(options, "keyLength", 0) != query_length) {
      fail("keyLength must equal queryLength for self-attention (no keyValueInput given)");
    }
    check_size("keyLength", key_length);
    if (self && resolved.key_value_dim != resolved.model_dim)
      fail("keyValueInput is required when keyValueDim differs from modelDim");
    const auto key_value_input =
        self ? query_input
             : floats(options, "keyValueInput", element_count("keyValueInput", {key_length, resolved.key_value_dim}),
                      dims({key_length, resolved.key_value_dim}));

    AttentionOptions settings = parse_common_options(options);
    MaskStorage storage;
    settings.mask = parse_masking(options, resolved.heads, query_length, key_length, storage);

    const bool return_weights = boolean(options, "returnWeights", true);
    std::vector<float> output(element_count("output", {query_length, resolved.model_dim}));
    std::vector<float> weights(return_weights ? element_count("weights", {resolved.heads, query_length, key_length})
                                              : 0);
    mha.forward(query_input.data(), query_length, key_value_input.data(), key_length, settings, output.data(),
                return_weights ? weights.data() : nullptr);
    val result = val::object();
    result.set("output", copy_out(output));
    if (return_weights) result.set("weights", copy_out(weights));
    return result;
  });
}

val attention_pool_js(val options) {
  return guarded([&] {
    check_options(options, "attentionPool",
                  {"inputs", "length", "dim", "hidden", "weight", "bias", "context", "validLength"});
    const int length = integer(options, "length", 0, true), dim = integer(options, "dim", 0, true);
    const int hidden = integer(options, "hidden", 0, true);
    check_size("length", length);
    check_size("dim", dim);
    check_size("hidden", hidden);
    const auto inputs = floats(options, "inputs", element_count("inputs", {length, dim}), dims({length, dim}));
    const auto weight = floats(options, "weight", element_count("weight", {hidden, dim}), dims({hidden, dim}));
    const auto context = floats(options, "context", hidden, dims({hidden}));
    const auto bias = optional_floats(options, "bias", hidden);
    const int valid_length = integer(options, "validLength", -1);
    if (has(options, "validLength") && valid_length < 0) fail("validLength must be at least 0, got ", valid_length);
    PoolingWeights pooling{hidden, weight.data(), bias.empty() ? nullptr : bias.data(), context.data()};
    std::vector<float> pooled(dim), alpha(length);
    attention_pool(inputs.data(), length, dim, pooling, pooled.data(), alpha.data(), valid_length);
    val result = val::object();
    result.set("pooled", copy_out(pooled));
    result.set("weights", copy_out(alpha));
    return result;
  });
}

val attention_over_attention_js(val options) {
  return guarded([&] {
    check_options(options, "attentionOverAttention", {"document", "query", "documentLength", "queryLength", "dim"});
    const int n = integer(options, "documentLength", 0, true), m = integer(options, "queryLength", 0, true);
    const int dim = integer(options, "dim", 0, true);
    check_size("documentLength", n);
    check_size("queryLength", m);
    check_size("dim", dim);
    const auto document = floats(options, "document", element_count("document", {n, dim}), dims({n, dim}));
    const auto query = floats(options, "query", element_count("query", {m, dim}), dims({m, dim}));
    const AttentionOverAttention aoa = attention_over_attention(document.data(), n, query.data(), m, dim);
    val result = val::object();
    result.set("pairwise", copy_out(aoa.pairwise));
    result.set("columnSoftmax", copy_out(aoa.column_softmax));
    result.set("rowSoftmax", copy_out(aoa.row_softmax));
    result.set("queryAttention", copy_out(aoa.query_attention));
    result.set("documentAttention", copy_out(aoa.document_attention));
    return result;
  });
}

val dropout_js(val weights, val options) {
  return guarded([&] {
    auto data = copy_in<float>(weights, "weights", "Float32Array");
    check_options(options, "dropout", {"rate", "seed"});
    const double rate = number(options, "rate", 0.0, true);
    const int seed = integer(options, "seed", 0);
    dropout(data.data(), data.size(), static_cast<float>(rate), static_cast<std::uint64_t>(seed));
    return copy_out(data);
  });
}

}  // namespace
}  // namespace attn::js

EMSCRIPTEN_BINDINGS(mechanisms) {
  emscripten::function("multiHeadAttention", &attn::js::multi_head_attention_js);
  emscripten::function("attentionPool", &attn::js::attention_pool_js);
  emscripten::function("attentionOverAttention", &attn::js::attention_over_attention_js);
  emscripten::function("dropout", &attn::js::dropout_js);
}
