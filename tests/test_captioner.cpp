// The captioner's pieces and the captioner itself: the LSTM cell against a double reference, the
// whole model against the training code's reference, its errors.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/core/layers.hpp"
#include "attn/models/captioner.hpp"
#include "attn/models/image.hpp"
#include "attn/models/safetensors.hpp"
#include "fixtures.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;
using testing::random_values;

TEST_CASE("LstmCell's step matches PyTorch's LSTM equations in double, gates i, f, g, o", "[captioner]") {
  for (int hidden : {1, 3, 17}) {
    const int input = 5, rows = 3;
    const auto w_ih = random_values(std::size_t(4) * hidden * input, 10 + hidden);
    const auto w_hh = random_values(std::size_t(4) * hidden * hidden, 20 + hidden);
    const auto b_ih = random_values(std::size_t(4) * hidden, 30 + hidden);
    const auto b_hh = random_values(std::size_t(4) * hidden, 40 + hidden);
    const auto x = random_values(std::size_t(rows) * input, 50 + hidden);
    auto h = random_values(std::size_t(rows) * hidden, 60 + hidden);
    auto c = random_values(std::size_t(rows) * hidden, 70 + hidden);
    std::vector<double> want_h(h.size()), want_c(c.size());
    const auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    for (int r = 0; r < rows; ++r) {
      std::vector<double> gate(std::size_t(4) * hidden);
      for (int j = 0; j < 4 * hidden; ++j) {
        double sum = double(b_ih[j]) + b_hh[j];
        for (int k = 0; k < input; ++k) sum += double(w_ih[std::size_t(j) * input + k]) * x[std::size_t(r) * input + k];
        for (int k = 0; k < hidden; ++k)
          sum += double(w_hh[std::size_t(j) * hidden + k]) * h[std::size_t(r) * hidden + k];
        gate[j] = sum;
      }
      for (int k = 0; k < hidden; ++k) {
        const double i = sigmoid(gate[k]), f = sigmoid(gate[hidden + k]), g = std::tanh(gate[2 * hidden + k]),
                     o = sigmoid(gate[3 * hidden + k]);
        const std::size_t at = std::size_t(r) * hidden + k;
        want_c[at] = f * c[at] + i * g;
        want_h[at] = o * std::tanh(want_c[at]);
      }
    }
    const LstmCell cell(w_ih, w_hh, b_ih, b_hh, input, hidden);
    std::vector<float> projected(std::size_t(rows) * 4 * hidden);
    cell.input_projection().forward(x.data(), rows, projected.data());
    cell.step(rows, projected.data(), h.data(), c.data());
    INFO("hidden " << hidden);
    CHECK(testing::max_abs_difference(h, want_h) < 1e-6);
    CHECK(testing::max_abs_difference(c, want_c) < 1e-6);
  }
}

TEST_CASE("LstmCell names a weight of the wrong size", "[captioner]") {
  CHECK_THROWS_WITH(LstmCell(random_values(7, 1), random_values(16, 2), {}, {}, 2, 2),
                    Contains("linear weight has 7 elements, expected 16"));
}

// The captioner against the training code's numpy reference (tools/train/captioner/reference.py) on
// the tiny fixture (tools/train/captioner/make_fixture.py): random weights, a 16 x 16 input, a 4 x 4
// grid, an image of 20 x 14 RGBA pixels with transparent ones.
namespace {

const nlohmann::json& captioner_reference() {
  static const nlohmann::json json = nlohmann::json::parse(read_file("captioner-tiny.json"));
  return json;
}

const CaptionerModel& tiny_captioner() {
  static const CaptionerModel model = CaptionerModel::load(read_file("captioner-tiny.safetensors"));
  return model;
}

std::vector<std::uint8_t> reference_pixels() {
  return captioner_reference()["image"]["data"].get<std::vector<std::uint8_t>>();
}

std::vector<double> flat(const nlohmann::json& nested) {
  std::vector<double> out;
  if (!nested.is_array()) {
    out.push_back(nested.get<double>());
    return out;
  }
  for (const auto& item : nested) {
    const std::vector<double> inside = flat(item);
    out.insert(out.end(), inside.begin(), inside.end());
  }
  return out;
}

void check_caption(const Caption& got, const nlohmann::json& want) {
  CHECK(got.words == want["words"].get<std::vector<std::string>>());
  CHECK(got.cells == want["cells"].get<std::vector<int>>());
  REQUIRE(got.attention.size() == flat(want["attention"]).size());
  CHECK(testing::max_abs_difference(got.attention, flat(want["attention"])) < 1e-5);
  CHECK(testing::max_abs_difference(got.log_probs, flat(want["log_probs"])) < 1e-4);
  if (want.contains("alpha")) CHECK(testing::max_abs_difference(got.alpha, flat(want["alpha"])) < 1e-5);
}

}  // namespace

TEST_CASE("the captioner prepares an image as the reference does: over white, PIL's bilinear, normalized",
          "[captioner]") {
  const CaptionerModel& model = tiny_captioner();
  const auto& image = captioner_reference()["image"];
  const std::vector<std::uint8_t> pixels = reference_pixels();
  const std::vector<float> prepared =
      model.prepare(pixels.data(), image["width"].get<int>(), image["height"].get<int>(), 4);
  const std::vector<double> want = flat(captioner_reference()["prepared"]);
  REQUIRE(prepared.size() == want.size());
  CHECK(testing::max_abs_difference(prepared, want) < 1e-5);
  // PIL's weights: each row sums to 1; the identity where the size does not change
  for (auto [in, out] : {std::pair{20, 16}, std::pair{14, 16}, std::pair{3, 7}, std::pair{100, 9}}) {
    const std::vector<double> w = bilinear_weights(in, out);
    for (int i = 0; i < out; ++i) {
      double sum = 0.0;
      for (int j = 0; j < in; ++j) sum += w[std::size_t(i) * in + j];
      CHECK(sum == Approx(1.0).epsilon(1e-12));
    }
  }
}

TEST_CASE("the captioner's encoder gives the reference's annotations on the tiny fixture", "[captioner]") {
  const std::vector<double> prepared = flat(captioner_reference()["prepared"]);
  const std::vector<float> input(prepared.begin(), prepared.end());
  const std::vector<float> annotations = tiny_captioner().encode(input.data());
  const std::vector<double> want = flat(captioner_reference()["annotations"]);
  REQUIRE(annotations.size() == want.size());
  CHECK(testing::max_abs_difference(annotations, want) < 1e-4);
}

TEST_CASE("the captioner's soft caption matches the reference: words, alpha, cells, log-probabilities", "[captioner]") {
  const auto& image = captioner_reference()["image"];
  const std::vector<std::uint8_t> pixels = reference_pixels();
  const Caption caption =
      tiny_captioner().caption(pixels.data(), image["width"].get<int>(), image["height"].get<int>(), 4);
  check_caption(caption, captioner_reference()["soft"]);
  CHECK_FALSE(caption.finished);  // this fixture stops at max_words
  for (std::size_t t = 0; t < caption.words.size(); ++t) {
    double sum = 0.0;
    for (int i = 0; i < 16; ++i) sum += caption.attention[t * 16 + i];
    CHECK(sum == Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("a captioner whose decoder starts from the mean and the maximum captions as the reference does",
          "[captioner]") {
  // captioner-tiny-max: the same sizes, "start": "mean+max", init_h and init_c [n][2D]
  const nlohmann::json want = nlohmann::json::parse(read_file("captioner-tiny-max.json"));
  const CaptionerModel model = CaptionerModel::load(read_file("captioner-tiny-max.safetensors"));
  CHECK(model.architecture().start_max);
  CHECK(model.architecture().start_dim() == 2 * model.architecture().annotation_dim);
  CHECK_FALSE(tiny_captioner().architecture().start_max);
  const auto& image = want["image"];
  const std::vector<std::uint8_t> pixels = image["data"].get<std::vector<std::uint8_t>>();
  const int width = image["width"].get<int>(), height = image["height"].get<int>();
  check_caption(model.caption(pixels.data(), width, height, 4), want["soft"]);
  CaptionOptions options;
  options.hard = true;
  options.seed = 7;
  check_caption(model.caption(pixels.data(), width, height, 4, options), want["hard"]["7"]);
}

TEST_CASE("the captioner's hard attention samples the reference's cells for a seed, reproducibly", "[captioner]") {
  const auto& image = captioner_reference()["image"];
  const std::vector<std::uint8_t> pixels = reference_pixels();
  for (const char* seed : {"1", "7"}) {
    CaptionOptions options;
    options.hard = true;
    options.seed = std::stoull(seed);
    INFO("seed " << seed);
    const Caption caption =
        tiny_captioner().caption(pixels.data(), image["width"].get<int>(), image["height"].get<int>(), 4, options);
    check_caption(caption, captioner_reference()["hard"][seed]);
    const Caption again =
        tiny_captioner().caption(pixels.data(), image["width"].get<int>(), image["height"].get<int>(), 4, options);
    CHECK(again.cells == caption.cells);
  }
  Rng rng(7);
  for (const auto& draw : captioner_reference()["splitmix64_seed_7_first_draws"])
    CHECK(rng.next() == std::stoull(draw.get<std::string>()));
}

TEST_CASE("the captioner's beam of one is greedy; a wider beam gives maps that sum to one", "[captioner]") {
  const std::vector<double> prepared = flat(captioner_reference()["prepared"]);
  const std::vector<float> input(prepared.begin(), prepared.end());
  const std::vector<float> annotations = tiny_captioner().encode(input.data());
  CaptionOptions options;
  const Caption greedy = tiny_captioner().decode(annotations, options);
  options.beam = 4;
  const Caption beam = tiny_captioner().decode(annotations, options);
  CHECK(greedy.words == captioner_reference()["soft"]["words"].get<std::vector<std::string>>());
  REQUIRE(beam.attention.size() == beam.words.size() * 16);
  REQUIRE(beam.log_probs.size() == beam.words.size());
  double total_beam = 0.0, total_greedy = 0.0;
  for (float x : beam.log_probs) total_beam += x;
  for (float x : greedy.log_probs) total_greedy += x;
  if (beam.words.size() == greedy.words.size()) CHECK(total_beam >= total_greedy - 1e-5);
  options.hard = true;
  CHECK_THROWS_WITH(tiny_captioner().decode(annotations, options), Contains("beam must be 1 with it, got 4"));
  options = CaptionOptions();
  options.beam = 0;
  CHECK_THROWS_WITH(tiny_captioner().decode(annotations, options), Contains("beam must be in 1..64, got 0"));
}

namespace {

// The fixture rewritten: a tensor dropped, one added, a metadata value changed (the fixture is F32).
std::string rewritten(const std::string& drop, const std::string& add, const std::string& key = "",
                      const std::string& value = "") {
  const SafeTensors file = SafeTensors::parse(read_file("captioner-tiny.safetensors"));
  SafeTensorsWriter writer;
  for (const auto& [name, info] : file.tensors())
    if (name != drop) writer.add(name, file.floats(name), info.shape);
  if (!add.empty()) writer.add(add, std::vector<float>{1.0f}, {1});
  for (const auto& [k, v] : file.metadata()) writer.metadata(k, k == key ? value : v);
  return writer.bytes();
}

}  // namespace

TEST_CASE("damaged or mismatched captioner files are refused with the reason", "[captioner][errors]") {
  const std::string good = read_file("captioner-tiny.safetensors");
  CHECK_NOTHROW(CaptionerModel::load(rewritten("", "")));
  CHECK_THROWS_WITH(CaptionerModel::load(good.substr(0, good.size() / 2)), Contains("outside"));
  CHECK_THROWS_WITH(CaptionerModel::load(""), Contains("not a safetensors file"));
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("hard.gate.bias", "")), Contains("hard.gate.bias"));
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("", "encoder.extra")),
                    Contains("unexpected tensor 'encoder.extra' for an attnscope-captioner-v1 model"));
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("", "", "format", "attnscope-rnn-v1")),
                    Contains("not an attnscope-captioner-v1 model"));
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("", "", "pixel_std", "[0.25, 0, 0.25]")),
                    Contains("pixel_std' holds 0; each must be positive"));
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("", "", "vocabulary", "[\"a\"]")),
                    Contains("vocabulary must be a list of 81 words"));
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("", "", "eos_id", "81")),
                    Contains("'eos_id' must be an integer in 0..80"));
  const SafeTensors file = SafeTensors::parse(good);
  std::string architecture = file.meta("architecture");
  architecture.replace(architecture.find("\"grid\""), 6, "\"grod\"");
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("", "", "architecture", architecture)),
                    Contains("grid must be [4, 4]"));
  // a start it does not know, and a mean+max start whose init weights are the mean's width
  std::string started = file.meta("architecture");
  started.insert(started.rfind('}'), ", \"start\": \"max\"");
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("", "", "architecture", started)),
                    Contains("start must be 'mean' or 'mean+max', got \"max\""));
  started.replace(started.find("\"max\""), 5, "\"mean+max\"");
  CHECK_THROWS_WITH(CaptionerModel::load(rewritten("", "", "architecture", started)), Contains("decoder.init_h"));
  // bit flips anywhere: a clean error or a model that still loads, never a crash
  Rng rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::string damaged = good;
    const std::size_t position = rng.next() % (trial % 2 ? 8 + 2000 : damaged.size());
    damaged[position] = static_cast<char>(damaged[position] ^ (1 << (rng.next() % 8)));
    try {
      (void)CaptionerModel::load(damaged);
    } catch (const Error&) {
    }
  }
}

TEST_CASE("the captioner refuses an image it cannot read with the reason", "[captioner][errors]") {
  const CaptionerModel& model = tiny_captioner();
  std::vector<std::uint8_t> pixels(4 * 4 * 4, 200);
  CHECK_THROWS_WITH(model.prepare(pixels.data(), 0, 4, 4), Contains("the image has no pixels (0 x 4)"));
  CHECK_THROWS_WITH(model.prepare(pixels.data(), 9000, 4, 4), Contains("larger than the limit of 8192"));
  CHECK_THROWS_WITH(model.prepare(pixels.data(), 4, 4, 2), Contains("3 (RGB) or 4 (RGBA) channels, got 2"));
  CHECK_THROWS_WITH(model.prepare(nullptr, 4, 4, 4), Contains("missing"));
  // RGB and opaque RGBA are the same picture
  std::vector<std::uint8_t> rgb(4 * 4 * 3);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<std::uint8_t>(i * 7);
  std::vector<std::uint8_t> rgba;
  for (std::size_t p = 0; p < 16; ++p) rgba.insert(rgba.end(), {rgb[p * 3], rgb[p * 3 + 1], rgb[p * 3 + 2], 255});
  CHECK(model.prepare(rgb.data(), 4, 4, 3) == model.prepare(rgba.data(), 4, 4, 4));
}

TEST_CASE("the shipped captioner gives the same bits on one thread or two", "[captioner]") {
  // a 96 x 96 scene: the encoder's rows and the decoder's products large enough for two threads
  std::ifstream file(std::string(ATTN_MODELS_DIR) + "/captioner.safetensors", std::ios::binary);
  REQUIRE(file.good());
  std::ostringstream bytes;
  bytes << file.rdbuf();
  const CaptionerModel model = CaptionerModel::load(bytes.str());
  std::vector<std::uint8_t> pixels(96 * 96 * 4);
  for (std::size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = i % 4 == 3 ? 255 : static_cast<std::uint8_t>(i * 29 % 251);
  const Caption want = model.caption(pixels.data(), 96, 96, 4);
  REQUIRE_FALSE(want.words.empty());
  for (int count : {1, 2}) {
    if (count > 1 && !threads_supported()) continue;
    set_threads(count);
    const Caption got = model.caption(pixels.data(), 96, 96, 4);
    set_threads(1);
    INFO(count << " thread(s)");
    CHECK(got.words == want.words);
    REQUIRE(got.attention.size() == want.attention.size());
    CHECK(std::memcmp(got.attention.data(), want.attention.data(), want.attention.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(got.log_probs.data(), want.log_probs.data(), want.log_probs.size() * sizeof(float)) == 0);
  }
}
