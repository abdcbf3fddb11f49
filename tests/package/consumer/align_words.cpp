// Aligns one sentence pair with the HMM aligner whose file is the first argument, as a user of
// attnscope::align would; prints the links in Pharaoh format.
#include <attn/align/statistical.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::ifstream in(argv[1], std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    const auto aligner = attn::load_statistical_aligner(std::move(bytes));
    // NFD "café" on the English side must meet the same vocabulary as NFC
    const attn::Alignment links =
        aligner->align({"the", "cafe\u0301", "is", "small", "."}, {"el", "café", "es", "pequeño", "."});
    std::printf("%s\n", attn::to_pharaoh(links).c_str());
  } catch (const attn::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
