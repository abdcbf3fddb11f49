// libFuzzer target: any bytes given to the captioner's loader (attnscope-captioner-v1) must either
// load or raise attn::Error, never crash, hang, leak or read out of bounds (ASan, UBSan). A file
// that loads must also caption an image, greedy, by beam and with hard attention.
//   ./run fuzz [SECONDS] captioner     (seed: tests/data/captioner-tiny.safetensors)
#include <cstdint>
#include <string>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/models/captioner.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const attn::CaptionerModel model = attn::CaptionerModel::load(bytes);
    // a 7 x 5 RGBA image, half of it transparent
    std::vector<std::uint8_t> pixels(7 * 5 * 4);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 29);
    attn::CaptionOptions options;
    (void)model.caption(pixels.data(), 7, 5, 4, options);
    options.beam = 3;
    (void)model.caption(pixels.data(), 7, 5, 4, options);
    options.beam = 1;
    options.hard = true;
    options.seed = 7;
    (void)model.caption(pixels.data(), 7, 5, 4, options);
  } catch (const attn::Error&) {
  }
  return 0;
}
