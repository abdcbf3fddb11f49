// Captioner benchmark: milliseconds per caption of a 96 x 96 scene (prepare, encode, decode), greedy
// soft attention, hard attention and a beam of 3, on one thread and on --threads N; and the encoder
// alone. One JSON line per case and scene: ms, the median wall time of --reps calls, cpu_ms, the
// median of the process's CPU time per call (std::clock: on one thread, what the call costs where
// other work takes the cores from it; on several, the sum over the threads), and the caption. The
// same source builds for WebAssembly (em++ with NODERAWFS), where it times the SIMD module's code.
//   attn_bench_caption [--model FILE] [--rgba FILE] [--reps 30] [--threads N] [--greedy]
// --rgba: scenes as raw 96 x 96 RGBA bytes, one after another (else a drawn pattern: discs on a
// light background). --greedy: the greedy caption only (tools/bench/caption.mjs, beside its peers).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "attn/attn.hpp"
#include "attn/core/internal/kernels.hpp"
#include "timing.hpp"

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw attn::Error("cannot open '" + path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Three coloured discs on a light background, 96 x 96 RGBA.
std::vector<std::uint8_t> drawn_scene() {
  std::vector<std::uint8_t> pixels(96 * 96 * 4);
  const int discs[3][6] = {{24, 30, 14, 220, 60, 40}, {66, 40, 16, 40, 150, 60}, {48, 74, 12, 60, 80, 200}};
  for (int y = 0; y < 96; ++y)
    for (int x = 0; x < 96; ++x) {
      std::uint8_t* p = pixels.data() + (y * 96 + x) * 4;
      p[0] = p[1] = p[2] = 245;
      p[3] = 255;
      for (const auto& d : discs)
        if ((x - d[0]) * (x - d[0]) + (y - d[1]) * (y - d[1]) < d[2] * d[2]) p[0] = d[3], p[1] = d[4], p[2] = d[5];
    }
  return pixels;
}

// Median wall and CPU milliseconds of reps calls, after 30 to warm up: V8 runs WebAssembly with its
// baseline compiler until the optimized code arrives, which took some 20 captions (measured).
template <class Body>
std::pair<double, double> timed(int reps, Body&& body) {
  for (int warm = 0; warm < 30; ++warm) body();
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    const std::clock_t start = std::clock();
    wall.push_back(attn::bench::elapsed_ms(body));
    cpu.push_back(1000.0 * double(std::clock() - start) / CLOCKS_PER_SEC);
  }
  return {attn::bench::median(wall), attn::bench::median(cpu)};
}

}  // namespace

int main(int argc, char** argv) {
#ifdef ATTN_DEFAULT_MODELS
  std::string model_path = std::string(ATTN_DEFAULT_MODELS) + "/captioner.safetensors";
#else
  std::string model_path = "models/captioner.safetensors";
#endif
  std::string rgba;
  int reps = 30, threads = 1;
  bool greedy_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--model" && i + 1 < argc)
      model_path = argv[++i];
    else if (arg == "--rgba" && i + 1 < argc)
      rgba = argv[++i];
    else if (arg == "--reps" && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (arg == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (arg == "--greedy")
      greedy_only = true;
    else {
      std::fprintf(stderr,
                   "usage: attn_bench_caption [--model FILE] [--rgba FILE] [--reps N] [--threads N] [--greedy]\n");
      return 2;
    }
  }
  try {
    const attn::CaptionerModel model = attn::CaptionerModel::load(read_all(model_path));
    constexpr std::size_t scene_bytes = 96 * 96 * 4;
    std::vector<std::uint8_t> scenes = drawn_scene();  // [scene][96][96][4]
    if (!rgba.empty()) {
      const std::string bytes = read_all(rgba);
      if (bytes.empty() || bytes.size() % scene_bytes != 0) throw attn::Error("--rgba needs N x 96 x 96 x 4 bytes");
      scenes.assign(bytes.begin(), bytes.end());
    }
    const std::size_t scene_count = scenes.size() / scene_bytes;
    if (threads > 1) attn::set_threads(threads);
    struct Case {
      const char* name;
      attn::CaptionOptions options;
    };
    attn::CaptionOptions hard, beam;
    hard.hard = true;
    hard.seed = 1;
    beam.beam = 3;
    const std::vector<Case> cases = greedy_only ? std::vector<Case>{{"greedy", {}}}
                                                : std::vector<Case>{{"greedy", {}}, {"hard", hard}, {"beam3", beam}};
    for (int count : threads > 1 ? std::vector<int>{1, threads} : std::vector<int>{1}) {
      attn::ThreadLimit limit(count);
      for (std::size_t scene = 0; scene < scene_count; ++scene) {
        const std::uint8_t* pixels = scenes.data() + scene * scene_bytes;
        if (!greedy_only) {
          const std::vector<float> prepared = model.prepare(pixels, 96, 96, 4);
          const auto [encode_ms, encode_cpu] = timed(reps, [&] { (void)model.encode(prepared.data()); });
          std::printf("{\"case\":\"encode\",\"isa\":\"%s\",\"threads\":%d,\"scene\":%zu,\"ms\":%.3f,\"cpu_ms\":%.3f}\n",
                      attn::kernels::instruction_set(), count, scene, encode_ms, encode_cpu);
        }
        for (const Case& c : cases) {
          std::vector<std::string> words;
          const auto [ms, cpu] = timed(reps, [&] { words = model.caption(pixels, 96, 96, 4, c.options).words; });
          std::string caption;  // the vocabulary's words need no JSON escapes
          for (const std::string& word : words) caption += (caption.empty() ? "" : " ") + word;
          std::printf(
              "{\"case\":\"%s\",\"isa\":\"%s\",\"threads\":%d,\"scene\":%zu,\"words\":%zu,\"ms\":%.3f,"
              "\"cpu_ms\":%.3f,\"caption\":\"%s\"}\n",
              c.name, attn::kernels::instruction_set(), count, scene, words.size(), ms, cpu, caption.c_str());
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attn_bench_caption: %s\n", e.what());
    return 1;
  }
  return 0;
}
