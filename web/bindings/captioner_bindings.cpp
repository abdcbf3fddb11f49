// The captioner from JS: loadModel(bytes) of an attnscope-captioner-v1 file gives a handle with
// info() (architecture 'captioner', objects, imageSize, grid, vocabulary) and caption(image,
// options), where image is ImageData-like { data: RGBA bytes, width, height } of any size.
#include "captioner_bindings.hpp"

#include <emscripten/bind.h>

#include <cmath>
#include <memory>

#include "attn/models/captioner.hpp"
#include "attn/models/image.hpp"
#include "attn/models/safetensors.hpp"
#include "js_args.hpp"

namespace attn::js {
namespace {

// ImageData's data (a Uint8ClampedArray) or a Uint8Array, width x height x 4 bytes
std::vector<std::uint8_t> image_pixels(const val& image, int& width, int& height) {
  if (!is_object(image) || image.isArray()) fail("caption() needs an image: { data, width, height } (an ImageData)");
  width = integer(image, "width", 0, true);
  height = integer(image, "height", 0, true);
  if (width < 1 || height < 1) fail("the image has no pixels (", width, " x ", height, ")");
  if (width > max_image_side || height > max_image_side)
    fail("the image is ", width, " x ", height, ", larger than the limit of ", max_image_side, " pixels a side");
  const val data = image["data"];
  const long long expected = element_count("image.data", {width, height, 4});
  const std::string shape = "(width x height x 4, RGBA)";
  if (!absent(data) && data.instanceof (global("Uint8ClampedArray")))
    return copy_in<std::uint8_t>(data, "image.data", "Uint8ClampedArray", expected, shape);
  return copy_in<std::uint8_t>(data, "image.data", "Uint8Array", expected, shape);
}

CaptionOptions caption_options(const val& options) {
  CaptionOptions settings;
  if (absent(options)) return settings;
  check_options(options, "caption", {"beam", "hard", "seed"});
  settings.beam = integer(options, "beam", 1);
  settings.hard = boolean(options, "hard", false);
  const double seed = number(options, "seed", 0.0);
  if (seed < 0 || seed != std::floor(seed) || seed > 9007199254740991.0)
    fail("seed must be a whole number from 0 to 2^53 - 1, got ", seed);
  if (has(options, "seed") && !settings.hard)
    fail("seed is for hard: true (the sampled cells); soft attention draws nothing");
  settings.seed = static_cast<std::uint64_t>(seed);
  return settings;
}

class Captioner {
 public:
  explicit Captioner(CaptionerModel model) : model_(std::make_shared<const CaptionerModel>(std::move(model))) {}

  val info() const {
    const CaptionerArchitecture& a = model_->architecture();
    val info = val::object();
    for (const char* key : {"format", "data", "hard", "resize", "training"}) {
      const std::string value = model_->metadata_value(key);
      if (!value.empty()) info.set(key, value);
    }
    info.set("architecture", std::string("captioner"));
    val objects = val::array();
    for (const CaptionObject& object : model_->objects()) {
      val entry = val::object();
      entry.set("name", object.name);
      entry.set("hexcode", object.hexcode);
      if (!object.plural.empty()) entry.set("plural", object.plural);
      objects.call<void>("push", entry);
    }
    info.set("objects", objects);
    info.set("imageSize", a.image_size);
    val grid = val::array();
    grid.call<void>("push", a.grid_height);
    grid.call<void>("push", a.grid_width);
    info.set("grid", grid);
    info.set("vocabulary", string_array(model_->vocabulary()));
    info.set("vocabSize", a.vocab_size);
    info.set("maxWords", a.max_words);
    info.set("hiddenSize", a.hidden_size);
    info.set("annotationDim", a.annotation_dim);
    return info;
  }

  val caption(val image, val options) const {
    return guarded([&] {
      int width = 0, height = 0;
      const std::vector<std::uint8_t> pixels = image_pixels(image, width, height);
      const CaptionerArchitecture& a = model_->architecture();
      const Caption caption = model_->caption(pixels.data(), width, height, 4, caption_options(options));
      val result = val::object();
      result.set("words", string_array(caption.words));
      val attention = val::object();
      attention.set("data", copy_out(caption.attention));
      val shape = val::array();
      for (int size : {static_cast<int>(caption.words.size()), a.grid_height, a.grid_width})
        shape.call<void>("push", size);
      attention.set("shape", shape);
      result.set("attention", attention);
      result.set("logProbs", copy_out(caption.log_probs));
      result.set("cells", copy_out(caption.cells));
      result.set("finished", caption.finished);
      return result;
    });
  }

 private:
  std::shared_ptr<const CaptionerModel> model_;
};

}  // namespace

val captioner_handle(const SafeTensors& file) { return val(Captioner(CaptionerModel::load(file))); }

}  // namespace attn::js

EMSCRIPTEN_BINDINGS(captioner) {
  using namespace attn::js;
  emscripten::class_<Captioner>("Captioner")
      .function("info", &Captioner::info)
      .function("caption", &Captioner::caption);
}
