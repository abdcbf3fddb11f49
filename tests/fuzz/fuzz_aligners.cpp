// libFuzzer target: any bytes given to the statistical aligners' loader (IBM Model 2 and the HMM,
// told apart by the file's format) must either load or raise attn::Error, never crash, hang, leak
// or read out of bounds.
//   ./run fuzz [SECONDS] aligners     (seeds: tests/data/tiny-ibm2.safetensors, tiny-hmm.safetensors and
//   tiny-hmm-compounds.safetensors, a version 3 HMM with a compound splitter)
#include <cstdint>
#include <memory>
#include <string>

#include "attn/align/hmm.hpp"
#include "attn/align/statistical.hpp"
#include "attn/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> source{"the", "red", "house", "."}, target{"la", "casa", "roja", "."};
  // a file that loads must also align, both ways of symmetrizing, and the HMM's Viterbi path too
  try {
    const std::unique_ptr<attn::StatisticalModel> aligner = attn::load_statistical_aligner(bytes);
    (void)aligner->align(source, target, attn::Symmetrization::grow_diag_final_and);
    (void)aligner->align(source, target, attn::Symmetrization::posterior_mean, 0.35f);
    if (const auto* hmm = dynamic_cast<const attn::HmmAligner*>(aligner.get()))
      (void)hmm->forward().viterbi(source, target);
    // long and hyphenated words, which a splitter read from the file cuts into parts
    const std::vector<std::string> english{"the", "research", "centre", "likes", "the", "press"},
        hungarian{"a", "kutatóközpont-ban", "szereti", "a", "sajtóhatóságkutató"};
    (void)aligner->align(english, hungarian, attn::Symmetrization::posterior_mean, 0.35f);
  } catch (const attn::Error&) {
  }
  return 0;
}
