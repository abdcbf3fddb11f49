#include "attn/align/internal/hmm_lattice.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "attn/core/error.hpp"

namespace attn::detail {

void transitions(const std::vector<float>& jump, int source_length, std::vector<double>& out) {
  const int I = source_length, max_jump = static_cast<int>(jump.size() / 2);
  out.resize(static_cast<std::size_t>(I + 1) * I);
  for (int from = 0; from <= I; ++from) {
    double* row = out.data() + static_cast<std::size_t>(from) * I;
    double total = 0.0;
    for (int to = 1; to <= I; ++to) total += row[to - 1] = jump[std::clamp(to - from, -max_jump, max_jump) + max_jump];
    for (int to = 0; to < I; ++to) row[to] = total > 0.0 ? row[to] / total : 1.0 / I;
  }
}

namespace {

// The scaled forward pass: word and NULL forward probabilities, each step's scale, log p(pair).
void forward_pass(const double* emission, const std::vector<double>& transition, double p0, Lattice& lattice) {
  const int J = lattice.J, I = lattice.I;
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  std::vector<double> previous(width, 0.0);  // mass on each last position i' (word or NULL state)
  previous[0] = 1.0;
  lattice.log_likelihood = 0.0;
  for (int j = 0; j < J; ++j) {
    const double* e = emission + j * width;
    double* word = lattice.word_forward.data() + j * width;
    double* null = lattice.null_forward.data() + j * width;
    double sum = 0.0;
    for (int from = 0; from <= I; ++from) {
      if (previous[from] == 0.0) continue;
      const double mass = (1.0 - p0) * previous[from];
      const double* row = transition.data() + static_cast<std::size_t>(from) * I;
      for (int to = 1; to <= I; ++to) word[to] += mass * row[to - 1];
      null[from] = p0 * previous[from] * e[0];
      sum += null[from];
    }
    for (int to = 1; to <= I; ++to) sum += word[to] *= e[to];
    if (!(sum > 0.0)) fail("the HMM gives the pair probability zero");
    for (std::size_t i = 0; i < width; ++i) {
      word[i] /= sum;
      null[i] /= sum;
      previous[i] = word[i] + null[i];
    }
    lattice.scale[j] = sum;
    lattice.log_likelihood += std::log(sum);
  }
}

// The backward pass, scaled by the forward pass's scales.
void backward_pass(const double* emission, const std::vector<double>& transition, double p0, Lattice& lattice) {
  const int J = lattice.J, I = lattice.I;
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  std::fill(lattice.backward.end() - width, lattice.backward.end(), 1.0);
  std::vector<double> next(width);
  for (int j = J - 2; j >= 0; --j) {
    const double* e = emission + (j + 1) * width;
    const double* later = lattice.backward.data() + (j + 1) * width;
    double* b = lattice.backward.data() + j * width;
    for (int to = 1; to <= I; ++to) next[to] = e[to] * later[to];
    for (int from = 0; from <= I; ++from) {
      const double* row = transition.data() + static_cast<std::size_t>(from) * I;
      double total = 0.0;
      for (int to = 1; to <= I; ++to) total += row[to - 1] * next[to];
      b[from] = ((1.0 - p0) * total + p0 * e[0] * later[from]) / lattice.scale[j + 1];
    }
  }
}

// Each target word's posterior on each source word and on NULL.
void state_posteriors(Lattice& lattice) {
  const int J = lattice.J, I = lattice.I;
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  lattice.word_posterior.assign(static_cast<std::size_t>(J) * I, 0.0);
  lattice.null_posterior.assign(J, 0.0);
  for (int j = 0; j < J; ++j) {
    const double* word = lattice.word_forward.data() + j * width;
    const double* null = lattice.null_forward.data() + j * width;
    const double* b = lattice.backward.data() + j * width;
    for (int i = 1; i <= I; ++i) lattice.word_posterior[static_cast<std::size_t>(j) * I + i - 1] = word[i] * b[i];
    double nulls = 0.0;
    for (int i = 0; i <= I; ++i) nulls += null[i] * b[i];
    lattice.null_posterior[j] = nulls;
  }
}

// Adds the expected count of every jump width (EM's transition statistics) to jump_counts.
void count_jumps(const double* emission, const std::vector<double>& transition, double p0, const Lattice& lattice,
                 std::vector<double>& jump_counts) {
  const int J = lattice.J, I = lattice.I;
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  const int max_jump = static_cast<int>(jump_counts.size() / 2);
  std::vector<double> previous(width, 0.0), next(width);
  previous[0] = 1.0;
  for (int j = 0; j < J; ++j) {
    const double* e = emission + j * width;
    const double* b = lattice.backward.data() + j * width;
    for (int to = 1; to <= I; ++to) next[to] = (1.0 - p0) * e[to] * b[to] / lattice.scale[j];
    for (int from = 0; from <= I; ++from) {
      if (previous[from] == 0.0) continue;
      const double* row = transition.data() + static_cast<std::size_t>(from) * I;
      for (int to = 1; to <= I; ++to) {
        jump_counts[std::clamp(to - from, -max_jump, max_jump) + max_jump] += previous[from] * row[to - 1] * next[to];
      }
    }
    for (std::size_t i = 0; i < width; ++i)
      previous[i] = lattice.word_forward[j * width + i] + lattice.null_forward[j * width + i];
  }
}

}  // namespace

// emission [J][I + 1] with column 0 = NULL. Adds expected jump counts to *jump_counts when given.
void forward_backward(const double* emission, int J, int I, const std::vector<double>& transition,
                      double null_probability, Lattice& lattice, std::vector<double>* jump_counts) {
  const std::size_t cells = static_cast<std::size_t>(J) * (I + 1);
  lattice.J = J;
  lattice.I = I;
  lattice.word_forward.assign(cells, 0.0);
  lattice.null_forward.assign(cells, 0.0);
  lattice.backward.assign(cells, 0.0);
  lattice.scale.assign(J, 0.0);
  forward_pass(emission, transition, null_probability, lattice);
  backward_pass(emission, transition, null_probability, lattice);
  state_posteriors(lattice);
  if (jump_counts) count_jumps(emission, transition, null_probability, lattice, *jump_counts);
}

}  // namespace attn::detail
