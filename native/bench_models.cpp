// Model speed: forced alignment of a 30-word pair, every attention map of it (forced decoding
// with every map, as the explorer's model view asks), and beam-4 translation of a 20-word
// sentence, one JSON line each (median of --reps runs), natively, for either architecture.
// tools/bench_models.mjs does the same through the WebAssembly module. A multilingual model is set
// to write Spanish.
//   attn_bench_models [-m MODEL] [--reps N] [--threads N]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "attn/core/error.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/threads.hpp"
#include "attn/models/translation_model.hpp"
#include "timing.hpp"

using attn::bench::median_ms;

namespace {

const char* const source_30 =
    "The old man who lives in the small house near the river walks slowly to the market every morning to buy fresh "
    "bread and fruit for his large family .";
const char* const target_30 =
    "El anciano que vive en la pequeña casa cerca del río camina despacio hasta el mercado cada mañana para comprar "
    "pan fresco y fruta para toda su gran familia .";
const char* const source_20 =
    "The committee will publish its final report on the new energy policy before the end of the next year .";

}  // namespace

int main(int argc, char** argv) {
  std::string path = std::string(ATTN_DEFAULT_MODELS) + "/en-es-additive.safetensors";
  int reps = 20, threads = 1;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "-m") && a + 1 < argc)
      path = argv[++a];
    else if (!std::strcmp(argv[a], "--reps") && a + 1 < argc)
      reps = std::max(1, std::atoi(argv[++a]));
    else if (!std::strcmp(argv[a], "--threads") && a + 1 < argc)
      threads = std::atoi(argv[++a]);
    else {
      std::fprintf(stderr, "usage: %s [-m MODEL] [--reps N] [--threads N]\n", argv[0]);
      return 2;
    }
  }
  try {
    attn::set_threads(threads);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw attn::Error("cannot open " + path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const attn::TranslationModel loaded = attn::TranslationModel::load(bytes.str());
    // a multilingual model writes Spanish, the sentences' language (tools/bench_models.mjs does the same)
    const attn::TranslationModel model = loaded.multilingual() ? loaded.for_target("es") : loaded;
    const auto source = attn::split_words(source_30), target = attn::split_words(target_30);
    const auto sentence = attn::split_words(source_20);
    const double align_ms = median_ms(reps, [&] { attn::align_words(model, source, target); });
    const double maps_ms = median_ms(reps, [&] { attn::attention_maps(model, source, target, true); });
    std::string translation;
    const double translate_ms = median_ms(reps, [&] { translation = attn::translate_words(model, sentence, 4).text; });
    const std::string name = attn::to_string(model.architecture());
    const char* isa = attn::kernels::instruction_set();
    std::printf(
        "{\"impl\":\"attn-native\",\"isa\":\"%s\",\"model\":\"%s\",\"threads\":%d,\"case\":\"align %zux%zu "
        "words\",\"ms\":%.3f}\n",
        isa, name.c_str(), threads, source.size(), target.size(), align_ms);
    std::printf(
        "{\"impl\":\"attn-native\",\"isa\":\"%s\",\"model\":\"%s\",\"threads\":%d,\"case\":\"every map %zux%zu "
        "words\",\"ms\":%.3f}\n",
        isa, name.c_str(), threads, source.size(), target.size(), maps_ms);
    std::printf(
        "{\"impl\":\"attn-native\",\"isa\":\"%s\",\"model\":\"%s\",\"threads\":%d,\"case\":\"translate %zu words, beam "
        "4\",\"ms\":%.3f,\"output\":\"%s\"}\n",
        isa, name.c_str(), threads, sentence.size(), translate_ms, translation.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attn_bench_models: %s\n", e.what());
    return 1;
  }
  return 0;
}
