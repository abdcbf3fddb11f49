// libFuzzer target: any bytes given to the translation model loader (either architecture, read
// from the file) must either load or raise attn::Error, never crash, hang, leak or read out of
// bounds (run under ASan and UBSan). A file that loads must also align, translate and give its maps.
//   ./run fuzz [SECONDS]     (builds with clang -fsanitize=fuzzer,address,undefined)
#include <cstdint>
#include <string>

#include "attn/core/error.hpp"
#include "attn/models/translation_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const attn::TranslationModel model =
        attn::TranslationModel::load(std::string(reinterpret_cast<const char*>(data), size));
    (void)attn::align_words(model, {"the", "cat"}, {"el", "gato"});
    (void)attn::attention_maps(model, {"the", "cat"}, {"el", "gato"}, true);
    (void)attn::translate_words(model, {"the", "cat"}, 2);
  } catch (const attn::Error&) {
  }
  return 0;
}
