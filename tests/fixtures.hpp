// The test fixtures in tests/data/ (tools/train/make_fixture.py, make_transformer_fixture.py):
// read_file("tiny-additive.safetensors") gives a file's bytes, or fails the test.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

inline std::string read_file(const std::string& name) {
  std::ifstream in(std::string(ATTN_TEST_DATA) + "/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}
