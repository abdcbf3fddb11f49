// libFuzzer target: any bytes given to the statistical aligners' loaders (IBM Model 2 and the HMM)
// must either load or raise attn::Error, never crash, hang, leak or read out of bounds.
//   ./run fuzz [SECONDS] aligners     (seeds: tests/data/tiny-ibm2.safetensors, tiny-hmm.safetensors)
#include <cstdint>
#include <string>

#include "attn/core/error.hpp"
#include "attn/align/hmm.hpp"
#include "attn/align/ibm2.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> source{"the", "red", "house", "."}, target{"la", "casa", "roja", "."};
  // a file that loads must also align
  try {
    (void)attn::Ibm2Aligner::deserialize(bytes).align(source, target);
  } catch (const attn::Error&) {
  }
  try {
    const attn::HmmAligner hmm = attn::HmmAligner::deserialize(bytes);
    (void)hmm.align(source, target);
    (void)hmm.align(source, target, attn::Symmetrization::posterior_mean, 0.35f);
  } catch (const attn::Error&) {
  }
  return 0;
}
