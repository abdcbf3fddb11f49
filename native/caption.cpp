#include "caption.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "attn/core/error.hpp"
#include "attn/models/captioner.hpp"
#include "files.hpp"
#include "image.hpp"

namespace attn::cli {
namespace {

// Image files larger than this are refused before they are read.
constexpr std::streamoff max_image_file_bytes = 64LL << 20;

std::string read_image_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail("cannot open '", path, "'");
  const std::streamoff size = in.tellg();
  if (size > max_image_file_bytes)
    fail(path, ": the file has ", size, " bytes, more than the limit of ", max_image_file_bytes, " (64 MiB)");
  in.seekg(0);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string caption_json(const CaptionerModel& model, const Caption& caption) {
  const int cells = model.architecture().cells();
  nlohmann::ordered_json attention = nlohmann::ordered_json::array();
  for (std::size_t t = 0; t < caption.words.size(); ++t) {
    const auto first = caption.attention.begin() + static_cast<std::ptrdiff_t>(t * cells);
    attention.push_back(std::vector<float>(first, first + cells));
  }
  const nlohmann::ordered_json json{{"words", caption.words},
                                    {"grid", {model.architecture().grid_height, model.architecture().grid_width}},
                                    {"attention", attention},
                                    {"log_probs", caption.log_probs}};
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::uint64_t seed_flag(const std::string& flag, const std::string& text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    fail(flag, " needs a whole number from 0 to 18446744073709551615, got '", text, "'");
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) fail(flag, " needs a whole number from 0 to 18446744073709551615, got '", text, "'");
  return value;
}

int caption(const CaptionArguments& a) {
  if (a.images.empty()) fail("usage: attn caption [-m MODEL] [--beam N] [--hard [--seed S]] [--json] IMAGE...");
  const CaptionerModel model = CaptionerModel::load(read_file(a.model));
  CaptionOptions options;
  options.beam = a.beam;
  options.hard = a.hard;
  options.seed = a.seed;
  for (const std::string& path : a.images) {
    const RgbaImage image = decode_image(read_image_file(path), path);
    const Caption result = model.caption(image.pixels.data(), image.width, image.height, 4, options);
    if (a.json) {
      std::cout << caption_json(model, result) << '\n';
    } else {
      std::string text;
      for (const std::string& word : result.words) text += (text.empty() ? "" : " ") + word;
      std::cout << text << '\n';
    }
  }
  std::cout.flush();
  return 0;
}

}  // namespace attn::cli
