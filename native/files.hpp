// Whole files as bytes for the command line (models, aligners, inputs).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "attn/core/error.hpp"

namespace attn::cli {

// The file's bytes; throws attn::Error naming the path when it cannot be opened.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open '", path, "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace attn::cli
