// The HMM's scaled forward-backward over one sentence pair (hmm.cpp's training and alignment):
// not public API.
#pragma once

#include <vector>

namespace attn::detail {

// transition [I + 1][I]: p(word i | last position i') / (1 - p0) for i' = 0..I (0 = start), i = 1..I
void transitions(const std::vector<float>& jump, int source_length, std::vector<double>& out);

// Scaled forward-backward over one pair (Rabiner's scaling: every step's forward vector sums to 1).
struct Lattice {
  int J = 0, I = 0;
  std::vector<double> word_forward, null_forward;      // [J][I + 1]: word column 0 unused; NULL(i') at i'
  std::vector<double> backward;                        // [J][I + 1]: same for word i' and NULL(i')
  std::vector<double> scale;                           // [J]
  std::vector<double> word_posterior, null_posterior;  // [J][I], [J]
  double log_likelihood = 0.0;
};

// emission [J][I + 1] with column 0 = NULL. Adds expected jump counts to *jump_counts when given.
void forward_backward(const double* emission, int J, int I, const std::vector<double>& transition,
                      double null_probability, Lattice& lattice, std::vector<double>* jump_counts = nullptr);

}  // namespace attn::detail
