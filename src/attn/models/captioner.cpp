#include "attn/models/captioner.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "attn/core/error.hpp"
#include "attn/models/image.hpp"
#include "attn/models/internal/loader.hpp"
#include "attn/models/safetensors.hpp"

namespace attn {
namespace {

constexpr const char* captioner_format = "attnscope-captioner-v1";

nlohmann::json metadata_json(const SafeTensors& file, const char* key) {
  try {
    return nlohmann::json::parse(file.meta(key));
  } catch (const nlohmann::json::exception& e) {
    fail("the captioner's metadata '", key, "' is not valid JSON (", e.what(), ")");
  }
}

// The metadata's integer `key` (a decimal string), in low..high.
int metadata_int(const SafeTensors& file, const char* key, int low, int high) {
  const nlohmann::json value = metadata_json(file, key);
  if (!value.is_number_integer() || value.get<long long>() < low || value.get<long long>() > high)
    fail("the captioner's metadata '", key, "' must be an integer in ", low, "..", high, ", got '", file.meta(key),
         "'");
  return value.get<int>();
}

void read_three(const SafeTensors& file, const char* key, double out[3], bool positive) {
  const nlohmann::json value = metadata_json(file, key);
  if (!value.is_array() || value.size() != 3) fail("the captioner's metadata '", key, "' must be a list of 3 numbers");
  for (int c = 0; c < 3; ++c) {
    if (!value[c].is_number()) fail("the captioner's metadata '", key, "' must be a list of 3 numbers");
    out[c] = value[c].get<double>();
    if (!std::isfinite(out[c]) || (positive && !(out[c] > 0.0)))
      fail("the captioner's metadata '", key, "' holds ", out[c], positive ? "; each must be positive" : "");
  }
}

CaptionerArchitecture read_architecture(const SafeTensors& file) {
  const nlohmann::json json = detail::architecture_json(file);
  if (!json.contains("name") || json["name"] != "captioner") fail("the model architecture's name must be 'captioner'");
  CaptionerArchitecture a;
  a.image_size = detail::architecture_field(json, "image_size", 1, 1024);
  if (!json.contains("channels") || !json["channels"].is_array() || json["channels"].empty() ||
      json["channels"].size() > 8)
    fail("the model architecture needs 'channels', a list of 1 to 8 layer widths");
  for (const auto& width : json["channels"]) {
    if (!width.is_number_integer() || width.get<long long>() < 1 || width.get<long long>() > 4096)
      fail("the model architecture's channels must be integers in 1..4096");
    a.channels.push_back(width.get<int>());
  }
  int side = a.image_size;
  for (std::size_t k = 0; k + 1 < a.channels.size(); ++k) side /= 2;  // the 2 x 2 poolings (floor)
  if (!json.contains("grid") || !json["grid"].is_array() || json["grid"].size() != 2 || json["grid"][0] != side ||
      json["grid"][1] != side)
    fail("the model architecture's grid must be [", side, ", ", side, "] (image_size ", a.image_size, " after ",
         a.channels.size() - 1, " poolings)");
  if (side < 1) fail("the model architecture's image_size ", a.image_size, " leaves no grid after its poolings");
  a.grid_height = a.grid_width = side;
  a.annotation_dim = detail::architecture_field(json, "annotation_dim", 1, 4096);
  if (a.annotation_dim != a.channels.back())
    fail("the model architecture's annotation_dim ", a.annotation_dim, " is not the last channels' ",
         a.channels.back());
  a.hidden_size = detail::architecture_field(json, "hidden_size", 1, 4096);
  a.embedding_dim = detail::architecture_field(json, "embedding_dim", 1, 4096);
  a.attention_dim = detail::architecture_field(json, "attention_dim", 1, 4096);
  a.vocab_size = detail::architecture_field(json, "vocab_size", 2, 1 << 16);
  a.max_words = detail::architecture_field(json, "max_words", 1, 1000);
  if (json.contains("start")) {
    if (json["start"] != "mean" && json["start"] != "mean+max")
      fail("the model architecture's start must be 'mean' or 'mean+max', got ", json["start"].dump());
    a.start_max = json["start"] == "mean+max";
  }
  return a;
}

std::vector<std::string> read_vocabulary(const SafeTensors& file, int size) {
  const nlohmann::json json = metadata_json(file, "vocabulary");
  if (!json.is_array() || static_cast<long long>(json.size()) != size)
    fail("the captioner's vocabulary must be a list of ", size, " words (the architecture's vocab_size)");
  std::vector<std::string> words;
  for (const auto& word : json) {
    if (!word.is_string()) fail("the captioner's vocabulary must hold strings");
    words.push_back(word.get<std::string>());
  }
  return words;
}

std::vector<CaptionObject> read_objects(const SafeTensors& file) {
  const nlohmann::json json = metadata_json(file, "objects");
  if (!json.is_array()) fail("the captioner's metadata 'objects' must be a list");
  std::vector<CaptionObject> objects;
  for (const auto& entry : json) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() || !entry.contains("hexcode") ||
        !entry["hexcode"].is_string())
      fail("each of the captioner's objects needs a 'name' and a 'hexcode' (strings)");
    const bool plural = entry.contains("plural") && entry["plural"].is_string();
    objects.push_back({entry["name"].get<std::string>(), entry["hexcode"].get<std::string>(),
                       plural ? entry["plural"].get<std::string>() : std::string()});
  }
  return objects;
}

// [out][3][3][in] (the file's order: output, kernel row, kernel column, input) -> Conv2d's [out][in][3][3]
std::vector<float> kernel_rows_last(const std::vector<float>& weight, int out, int in) {
  std::vector<float> permuted(weight.size());
  for (int o = 0; o < out; ++o)
    for (int t = 0; t < 9; ++t)
      for (int c = 0; c < in; ++c)
        permuted[(static_cast<std::size_t>(o) * in + c) * 9 + t] =
            weight[(static_cast<std::size_t>(o) * 9 + t) * in + c];
  return permuted;
}

CaptionerModel::Decoder read_decoder(detail::TensorReader& loader, const std::string& prefix,
                                     const CaptionerArchitecture& a) {
  const int D = a.annotation_dim, n = a.hidden_size, E = a.embedding_dim, A = a.attention_dim, V = a.vocab_size;
  CaptionerModel::Decoder d;
  d.embedding = loader.take(prefix + "embedding", {V, E});
  d.init_h = loader.linear(prefix + "init_h", a.start_dim(), n);
  d.init_c = loader.linear(prefix + "init_c", a.start_dim(), n);
  d.annotation = loader.linear(prefix + "attention.annotation", D, A);
  d.hidden_t = transposed(loader.take(prefix + "attention.hidden.weight", {A, n}).data(), A, n);
  d.score = loader.take(prefix + "attention.score", {A});
  d.gate = loader.take(prefix + "gate.weight", {n});
  d.gate_bias = loader.take(prefix + "gate.bias", {1})[0];
  const long long gates = 4LL * n;
  const std::vector<float> weight_ih = loader.take(prefix + "lstm.weight_ih", {gates, E + D});
  const std::vector<float> weight_hh = loader.take(prefix + "lstm.weight_hh", {gates, n});
  std::vector<float> bias_ih = loader.take(prefix + "lstm.bias_ih", {gates});
  d.lstm = LstmCell(weight_ih, weight_hh, std::move(bias_ih), loader.take(prefix + "lstm.bias_hh", {gates}), E + D, n);
  d.output_hidden = loader.linear(prefix + "output.hidden", n, E);
  d.output_context = Linear(loader.take(prefix + "output.context.weight", {E, D}), {}, D, E);
  d.output = loader.linear(prefix + "output", E, V);
  return d;
}

}  // namespace

CaptionerModel CaptionerModel::load(std::string bytes) { return load(SafeTensors::parse(std::move(bytes))); }

CaptionerModel CaptionerModel::load(const SafeTensors& file) {
  CaptionerModel model;
  model.metadata_ = file.metadata();
  detail::check_format(model.metadata_, captioner_format);
  const CaptionerArchitecture& a = model.architecture_ = read_architecture(file);
  model.vocabulary_ = read_vocabulary(file, a.vocab_size);
  model.bos_id_ = metadata_int(file, "bos_id", 0, a.vocab_size - 1);
  model.eos_id_ = metadata_int(file, "eos_id", 0, a.vocab_size - 1);
  model.objects_ = read_objects(file);
  read_three(file, "pixel_mean", model.pixel_mean_, false);
  read_three(file, "pixel_std", model.pixel_std_, true);
  detail::TensorReader loader(file);
  int in = 3;
  for (std::size_t k = 0; k < a.channels.size(); ++k) {
    const std::string name = "encoder.conv" + std::to_string(k);
    const int out = a.channels[k];
    const std::vector<float> weight = loader.take(name + ".weight", {out, 3, 3, in});
    model.convolutions_.emplace_back(kernel_rows_last(weight, out, in), loader.take(name + ".bias", {out}), in, out, 3,
                                     1, 1);
    in = out;
  }
  model.position_ = loader.take("encoder.position", {a.cells(), a.annotation_dim});
  model.soft_ = read_decoder(loader, "decoder.", a);
  model.hard_ = read_decoder(loader, "hard.", a);
  loader.refuse_unexpected(std::string("an ") + captioner_format + " model");
  return model;
}

std::string CaptionerModel::metadata_value(const std::string& key) const {
  return detail::metadata_value(metadata_, key);
}

std::vector<float> CaptionerModel::prepare(const std::uint8_t* pixels, int width, int height, int channels) const {
  return prepare_image(pixels, width, height, channels, architecture_.image_size, pixel_mean_, pixel_std_);
}

std::vector<float> CaptionerModel::encode(const float* prepared) const {
  if (!prepared) fail("the prepared image is missing (null)");
  std::vector<float> x(prepared,
                       prepared + static_cast<std::size_t>(architecture_.image_size) * architecture_.image_size * 3);
  int side = architecture_.image_size;
  for (std::size_t k = 0; k < convolutions_.size(); ++k) {
    const Conv2d& conv = convolutions_[k];
    std::vector<float> y(static_cast<std::size_t>(side) * side * conv.out_channels());
    conv.forward(x.data(), side, side, y.data(), true);
    if (k + 1 < convolutions_.size()) {
      const int pooled = convolution_output_size(side, 2, 2, 0);
      x.assign(static_cast<std::size_t>(pooled) * pooled * conv.out_channels(), 0.0f);
      max_pool2d(y.data(), side, side, conv.out_channels(), 2, 2, 0, x.data());
      side = pooled;
    } else {
      x = std::move(y);
    }
  }
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += position_[i];
  return x;
}

Caption CaptionerModel::caption(const std::uint8_t* pixels, int width, int height, int channels,
                                const CaptionOptions& options) const {
  const std::vector<float> prepared = prepare(pixels, width, height, channels);
  return decode(encode(prepared.data()), options);
}

int sample_cell(const float* alpha, int cells, double u) {
  double total = 0.0;
  int last = 0;
  for (int i = 0; i < cells; ++i) {
    total += alpha[i];
    if (alpha[i] > 0.0f) last = i;
    if (total > u) return i;
  }
  return last;
}

}  // namespace attn
