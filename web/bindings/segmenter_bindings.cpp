// Chinese word segmentation from JS: loadSegmenter(bytes) -> a handle with cut(text) (jieba.cut's
// tokens, whitespace included) and words(text) (the zh word tokenizer's words), the same C++ as
// the command line's (attn/models/segmenter.hpp).
#include <emscripten/bind.h>

#include "attn/models/segmenter.hpp"
#include "js_args.hpp"

namespace attn::js {
namespace {

std::string text_argument(const val& text, const char* call) {
  if (text.typeOf().as<std::string>() != "string") fail(call, "(text) needs a string");
  return text.as<std::string>();
}

class JiebaSegmenter {
 public:
  explicit JiebaSegmenter(const std::string& bytes) : segmenter_(Segmenter::from_bytes(bytes)) {}

  val cut(val text) const {
    return guarded([&] { return string_array(segmenter_.cut(text_argument(text, "segmenter.cut"))); });
  }
  val words(val text) const {
    return guarded([&] { return string_array(segmenter_.words(text_argument(text, "segmenter.words"))); });
  }
  int word_count() const { return static_cast<int>(segmenter_.word_count()); }

 private:
  Segmenter segmenter_;
};

val load_segmenter(val bytes) {
  return guarded([&] { return val(JiebaSegmenter(file_bytes(bytes))); });
}

}  // namespace
}  // namespace attn::js

EMSCRIPTEN_BINDINGS(segmenter) {
  using namespace attn::js;
  emscripten::class_<JiebaSegmenter>("Segmenter")
      .function("cut", &JiebaSegmenter::cut)
      .function("words", &JiebaSegmenter::words)
      .function("wordCount", &JiebaSegmenter::word_count);
  emscripten::function("loadSegmenter", &load_segmenter);
}
