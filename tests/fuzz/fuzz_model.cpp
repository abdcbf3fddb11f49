// libFuzzer target: any bytes given to the model loader must either load or raise attn::Error,
// never crash, hang, leak or read out of bounds (run under ASan and UBSan).
//   ./run fuzz [SECONDS]     (builds with clang -fsanitize=fuzzer,address,undefined)
#include <cstdint>
#include <string>

#include "attn/core/error.hpp"
#include "attn/models/rnn.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const attn::RnnModel model = attn::RnnModel::load(std::string(reinterpret_cast<const char*>(data), size));
    // a file that loads must also run
    (void)attn::align_words(model, {"the", "cat"}, {"el", "gato"});
  } catch (const attn::Error&) {
  }
  return 0;
}
