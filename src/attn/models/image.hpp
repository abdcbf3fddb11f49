// Images into a model's input: what the captioner does to a picture of any size before its
// encoder sees it (docs/MODEL_FORMAT.md, the captioner's section). Channels last, row 0 the top.
#pragma once

#include <cstdint>
#include <vector>

namespace attn {

// The most pixels an image handed to prepare_image may have (8192 x 8192): larger ones are refused
// before any work (a browser canvas tops out near there too).
inline constexpr int max_image_side = 8192;

// pixels [height][width][channels] (channels 3: RGB, or 4: RGBA, 8 bits each) -> [size][size][3]:
//   1. RGBA composited over white: rgb * a / 255 + 255 (1 - a / 255), in double;
//   2. resized to size x size by PIL's BILINEAR rule (a triangle filter widened by the scale when
//      shrinking, weights normalized per output pixel), the horizontal pass first, then the
//      vertical, in double without rounding; an axis already `size` long is left as it is;
//   3. each channel c normalized as (v / 255 - mean[c]) / std[c].
// Throws attn::Error naming a size that is not positive or over max_image_side, a channel count
// other than 3 or 4, a missing buffer, or a std that is not positive.
std::vector<float> prepare_image(const std::uint8_t* pixels, int width, int height, int channels, int size,
                                 const double mean[3], const double std[3]);

// The weights of PIL's BILINEAR resampling of one axis from `in` to `out` samples: [out][in], each
// row summing to 1 (exposed for the tests).
std::vector<double> bilinear_weights(int in, int out);

}  // namespace attn
