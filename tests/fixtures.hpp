// The test fixtures in tests/data/ (tools/train/make_fixture.py, make_transformer_fixture.py):
// read_file("tiny-additive.safetensors") gives a file's bytes, or fails the test.
#pragma once

#include <catch2/catch.hpp>

#include "attn/align/hmm.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

inline std::string read_file(const std::string& name) {
  std::ifstream in(std::string(ATTN_TEST_DATA) + "/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// An HMM aligner trained briefly on the pair and two tiny ones (the cat and the dog), for tests
// that need a statistical aligner beside the tiny translation models.
inline attn::HmmAligner tiny_hmm(const std::vector<std::string>& source, const std::vector<std::string>& target) {
  attn::HmmAligner aligner;
  attn::HmmOptions training;
  training.iterations = 2;
  aligner.train({source, {"the", "dog"}, {"a", "cat"}}, {target, {"el", "perro"}, {"un", "gato"}}, training);
  return aligner;
}
