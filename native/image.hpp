// Image files for the command line: PNG through libpng, JPEG through libjpeg(-turbo), told apart
// by their signatures. Decoded to 8-bit RGBA, the layout the JS module takes from a canvas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn::cli {

// Images larger than this on either side, or with more pixels than max_image_pixels, are refused
// before any pixel is decoded (a 40 MB file can declare a 65535 x 65535 image).
inline constexpr int max_image_side = 8192;
inline constexpr long long max_image_pixels = 4096LL * 4096;

struct RgbaImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;  // [height][width][4]
};

// The image in `bytes` (a PNG or a JPEG), or attn::Error naming what is wrong: empty, not a PNG or
// JPEG (naming the format when it recognises it), corrupt or truncated (the library's own words),
// or larger than the limits above. `name` (the file's path) leads the message.
RgbaImage decode_image(const std::string& bytes, const std::string& name);

}  // namespace attn::cli
