// What the translation models (rnn.cpp, transformer.cpp) share to load a file: the metadata, the
// architecture's JSON and its fields, and the tensors read by name into the core's layers, each
// checked against the shape the architecture gives it and counted, so that a tensor the
// architecture does not name is refused. Not part of the public API.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/core/layers.hpp"
#include "attn/core/multihead.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/tokenizer.hpp"

namespace attn::detail {

inline std::string metadata_value(const std::map<std::string, std::string>& metadata, const std::string& key) {
  const auto found = metadata.find(key);
  return found == metadata.end() ? std::string() : found->second;
}

// The file's "format" metadata must be `expected` (attnscope-rnn-v1, attnscope-transformer-v1).
inline void check_format(const std::map<std::string, std::string>& metadata, const char* expected) {
  const std::string format = metadata_value(metadata, "format");
  if (format != expected) fail("not an ", expected, " model (format '", format, "')");
}

// The file's tokenizer, which must have exactly the architecture's vocabulary.
inline Bpe read_tokenizer(const SafeTensors& file, int vocab_size) {
  Bpe tokenizer = Bpe::from_json(file.meta("tokenizer"));
  if (tokenizer.size() != vocab_size) {
    fail("the tokenizer has ", tokenizer.size(), " pieces, the architecture says ", vocab_size);
  }
  return tokenizer;
}

// The metadata's "architecture", a JSON object, or an error naming what is wrong with it.
inline nlohmann::json architecture_json(const SafeTensors& file) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(file.meta("architecture"));
  } catch (const nlohmann::json::exception& e) {
    fail("the model architecture is not valid JSON (", e.what(), ")");
  }
  if (!json.is_object()) fail("the model architecture must be a JSON object");
  return json;
}

// The architecture's integer `name`, in low..limit, or an error naming it.
inline int architecture_field(const nlohmann::json& json, const char* name, int low, int limit) {
  if (!json.contains(name) || !json[name].is_number_integer()) {
    fail("the model architecture needs an integer '", name, "'");
  }
  const long long value = json[name].get<long long>();
  if (value < low || value > limit)
    fail("the model architecture's ", name, " = ", value, " is outside ", low, "..", limit);
  return static_cast<int>(value);
}

class TensorReader {
 public:
  explicit TensorReader(const SafeTensors& file) : file_(file) {}

  // The tensor `name` as float32, of exactly `shape`; stored as F32 or F16, or a matrix as I8 with
  // a per-row scale `name.scale` (F32 or F16, [rows], finite, >= 0): row r is q[r][c] * scale[r]
  // (docs/MODEL_FORMAT.md).
  std::vector<float> take(const std::string& name, std::vector<std::int64_t> shape) {
    read_.push_back(name);
    const std::string& dtype = file_.info(name).dtype;
    if (dtype == "I8") return take_quantized(name, shape);
    if (dtype != "F32" && dtype != "F16")
      fail("tensor '", name, "' is ", dtype, "; the model stores F32, F16 or I8 with per-row scales");
    return file_.floats(name, shape);
  }
  // prefix.weight [out][in] and prefix.bias [out]
  Linear linear(const std::string& prefix, int in, int out) {
    std::vector<float> weight = take(prefix + ".weight", {out, in});
    return Linear(weight, take(prefix + ".bias", {out}), in, out);
  }
  // prefix.weight and prefix.bias [dim]
  LayerNorm norm(const std::string& prefix, int dim) {
    std::vector<float> weight = take(prefix + ".weight", {dim});
    return LayerNorm(std::move(weight), take(prefix + ".bias", {dim}));
  }
  // prefix.{query,key,value,output}.{weight,bias}, each dim -> dim
  MultiHeadAttention attention(const std::string& prefix, int dim, int heads) {
    MultiHeadWeights w;
    w.model_dim = dim;
    w.heads = heads;
    w.query_weight = take(prefix + ".query.weight", {dim, dim});
    w.query_bias = take(prefix + ".query.bias", {dim});
    w.key_weight = take(prefix + ".key.weight", {dim, dim});
    w.key_bias = take(prefix + ".key.bias", {dim});
    w.value_weight = take(prefix + ".value.weight", {dim, dim});
    w.value_bias = take(prefix + ".value.bias", {dim});
    w.output_weight = take(prefix + ".output.weight", {dim, dim});
    w.output_bias = take(prefix + ".output.bias", {dim});
    return MultiHeadAttention(std::move(w));
  }
  // PyTorch's GRU names: prefix + weight_ih, weight_hh, bias_ih, bias_hh
  GruCell gru(const std::string& prefix, int input, int hidden) {
    const long long gates = 3LL * hidden;
    std::vector<float> weight_ih = take(prefix + "weight_ih", {gates, input});
    std::vector<float> weight_hh = take(prefix + "weight_hh", {gates, hidden});
    std::vector<float> bias_ih = take(prefix + "bias_ih", {gates});
    return GruCell(weight_ih, weight_hh, std::move(bias_ih), take(prefix + "bias_hh", {gates}), input, hidden);
  }
  // Throws naming the first tensor of the file that nothing took, "for " + `model`.
  void refuse_unexpected(const std::string& model) const {
    for (const auto& entry : file_.tensors()) {
      if (std::find(read_.begin(), read_.end(), entry.first) == read_.end()) {
        fail("unexpected tensor '", entry.first, "' for ", model);
      }
    }
  }

 private:
  std::vector<float> take_quantized(const std::string& name, const std::vector<std::int64_t>& shape) {
    if (shape.size() != 2) fail("tensor '", name, "' is I8, but only matrices may be: store it as F32 or F16");
    const std::vector<std::int8_t> values = file_.int8s(name, shape);
    const std::string scale_name = name + ".scale";
    if (!file_.has(scale_name)) fail("tensor '", name, "' is I8 but the file has no '", scale_name, "'");
    read_.push_back(scale_name);
    const std::string& scale_dtype = file_.info(scale_name).dtype;
    if (scale_dtype != "F32" && scale_dtype != "F16")
      fail("tensor '", scale_name, "' is ", scale_dtype, "; a scale is F32 or F16");
    const std::vector<float> scales = file_.floats(scale_name, {shape[0]});  // finite, or it throws
    const std::size_t columns = static_cast<std::size_t>(shape[1]);
    std::vector<float> out(values.size());
    for (std::size_t row = 0; row < scales.size(); ++row) {
      if (scales[row] < 0) fail("tensor '", scale_name, "' holds a negative scale at row ", row);
      for (std::size_t c = 0; c < columns; ++c)
        out[row * columns + c] = static_cast<float>(values[row * columns + c]) * scales[row];
    }
    return out;
  }

  const SafeTensors& file_;
  std::vector<std::string> read_;
};

}  // namespace attn::detail
