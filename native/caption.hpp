// `attn caption`: the captioner on image files (PNG or JPEG), one line an image.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn::cli {

struct CaptionArguments {
  std::string model;                // the captioner's file
  std::vector<std::string> images;  // PNG or JPEG files
  int beam = 1;
  bool json = false;
  bool hard = false;
  std::uint64_t seed = 0;  // the hard sampler's (the training code's reference defaults to 0 too)
};

// Prints each image's caption (words joined by spaces), or with json one object a line:
// {"words": [...], "grid": [h, w], "attention": [[h*w numbers] per word], "log_probs": [...]}.
// A file that cannot be read is an attn::Error naming it (and nothing is printed for it).
int caption(const CaptionArguments& arguments);

// --seed's value: a whole number in 0..2^64-1, or an error naming the flag.
std::uint64_t seed_flag(const std::string& flag, const std::string& text);

}  // namespace attn::cli
