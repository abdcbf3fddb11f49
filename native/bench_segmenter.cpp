// The Chinese segmenter's speed (never a test): loading the build's jieba data file, and cutting
// the sentences of tests/data/zh-segmentation.jsonl (python3-jieba's fixture), one JSON line each,
// the median of --reps runs. tools/bench/segmenter.mjs runs it beside the WebAssembly module and
// python3-jieba itself on the same sentences.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/models/segmenter.hpp"
#include "timing.hpp"

int main(int argc, char** argv) {
  std::string data = ATTN_DEFAULT_JIEBA, sentences_path = ATTN_DEFAULT_SENTENCES;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--dictionary")
      data = argv[i + 1];
    else if (flag == "--sentences")
      sentences_path = argv[i + 1];
    else if (flag == "--reps")
      reps = std::max(1, std::atoi(argv[i + 1]));
  }
  try {
    std::vector<std::string> sentences;
    std::ifstream in(sentences_path);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) sentences.push_back(nlohmann::json::parse(line).at("text").get<std::string>());
    if (sentences.empty()) throw std::runtime_error("no sentences in " + sentences_path);
    attn::Segmenter segmenter = attn::Segmenter::from_file(data);
    const double load_ms = attn::bench::median_ms(reps, [&] { segmenter = attn::Segmenter::from_file(data); });
    std::size_t tokens = 0;
    const double cut_ms = attn::bench::median_ms(reps, [&] {
      tokens = 0;
      for (const std::string& sentence : sentences) tokens += segmenter.cut(sentence).size();
    });
    std::printf("{\"impl\":\"attn-native\",\"case\":\"jieba load\",\"ms\":%.1f}\n", load_ms);
    std::printf(
        "{\"impl\":\"attn-native\",\"case\":\"jieba cut, %zu sentences\",\"ms\":%.3f,\"sentences_per_s\":%.0f,"
        "\"tokens\":%zu}\n",
        sentences.size(), cut_ms, sentences.size() / (cut_ms / 1000.0), tokens);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attn_bench_segmenter: %s\n", e.what());
    return 1;
  }
  return 0;
}
