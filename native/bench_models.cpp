// Model speed: forced alignment of a 30-word pair, every attention map of it (forced decoding
// with every map, as the explorer's model view asks), and beam-4 translation of a 20-word
// sentence, one JSON line each (median of --reps runs), natively, for either architecture.
// tools/bench/models.mjs does the same through the WebAssembly module. A multilingual model is set
// to write Spanish.
//   attn_bench_models [-m MODEL] [--reps N] [--threads N]
//   attn_bench_models -m MODEL --pairs FILE [--reps N] [--threads N]
// With --pairs (lines "source<TAB>target", as ../shared/bench/models/pairs.txt), each pair's
// forced decoding with every map by pieces, without and with log-probabilities, on 1 thread and
// on N (an attn::ThreadLimit over one started pool), the four cases interleaved round by round
// after 20 ms of warm-up each: one JSON line per case with the median, and the N-thread speed-up
// as the median of each round's ratio with its range.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/threads.hpp"
#include "attn/models/translation_model.hpp"
#include "timing.hpp"

using attn::bench::elapsed_ms;
using attn::bench::median;
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

int forced_pairs(const attn::TranslationModel& model, const std::string& path, int reps, int threads) {
  std::ifstream in(path);
  if (!in) throw attn::Error("cannot open " + path);
  const char* isa = attn::kernels::instruction_set();
  for (std::string line; std::getline(in, line);) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const auto source = attn::split_words(line.substr(0, tab)), target = attn::split_words(line.substr(tab + 1));
    struct Case {
      bool log_probs;
      int threads;
      std::vector<double> times;
    };
    std::vector<Case> cases = {{false, 1, {}}, {false, threads, {}}, {true, 1, {}}, {true, threads, {}}};
    const auto run = [&](const Case& c) {
      const attn::ThreadLimit limit(c.threads);
      return elapsed_ms([&] { attn::attention_maps(model, source, target, true, c.log_probs); });
    };
    for (const Case& c : cases) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
      while (std::chrono::steady_clock::now() < until) run(c);
    }
    for (int r = 0; r < reps; ++r) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        Case& c = cases[(r + i) % cases.size()];
        c.times.push_back(run(c));
      }
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      std::printf("{\"impl\":\"attn-native\",\"isa\":\"%s\",\"case\":\"%s %zux%zu words\",\"threads\":%d,\"ms\":%.3f",
                  isa, c.log_probs ? "maps+logprobs" : "maps", source.size(), target.size(), c.threads,
                  median(c.times));
      if (i % 2 == 1) {  // the speed-up over the same case on one thread, round by round
        std::vector<double> ratios;
        for (int r = 0; r < reps; ++r) ratios.push_back(cases[i - 1].times[r] / c.times[r]);
        std::sort(ratios.begin(), ratios.end());
        std::printf(",\"speedup_median\":%.3f,\"speedup_min\":%.3f,\"speedup_max\":%.3f", median(ratios),
                    ratios.front(), ratios.back());
      }
      std::printf("}\n");
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = std::string(ATTN_DEFAULT_MODELS) + "/en-es-additive.safetensors";
  int reps = 20, threads = 1;
  std::string pairs_path;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "-m") && a + 1 < argc)
      path = argv[++a];
    else if (!std::strcmp(argv[a], "--reps") && a + 1 < argc)
      reps = std::max(1, std::atoi(argv[++a]));
    else if (!std::strcmp(argv[a], "--threads") && a + 1 < argc)
      threads = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--pairs") && a + 1 < argc)
      pairs_path = argv[++a];
    else {
      std::fprintf(stderr, "usage: %s [-m MODEL] [--pairs FILE] [--reps N] [--threads N]\n", argv[0]);
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
    // a multilingual model writes Spanish, the sentences' language (tools/bench/models.mjs does the same)
    const attn::TranslationModel model = loaded.multilingual() ? loaded.for_target("es") : loaded;
    if (!pairs_path.empty()) return forced_pairs(model, pairs_path, reps, threads);
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
