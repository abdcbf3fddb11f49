// The one decoding loop of both translation models (rnn.cpp, transformer.cpp): beam search, and
// greedy search as its beam of one. Not part of the public API.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/models/tokenizer.hpp"

namespace attn::detail {

struct BeamCandidate {
  double score;
  int row, token;
};

// The `beam` best continuations of each live hypothesis (row r of log_probs [rows][V]), best
// first; equal scores keep row order, and a row's lowest id first. Hypothesis has a `score`.
template <class Hypothesis>
std::vector<BeamCandidate> best_continuations(const std::vector<Hypothesis>& alive, const float* log_probs, int V,
                                              int beam) {
  std::vector<BeamCandidate> candidates;
  std::vector<int> order(V);
  const int keep = std::min(beam, V);
  for (int r = 0; r < static_cast<int>(alive.size()); ++r) {
    const float* row = log_probs + static_cast<std::size_t>(r) * V;
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                      [&](int x, int y) { return row[x] != row[y] ? row[x] > row[y] : x < y; });
    for (int k = 0; k < keep; ++k) candidates.push_back({alive[r].score + row[order[k]], r, order[k]});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const BeamCandidate& x, const BeamCandidate& y) { return x.score > y.score; });
  return candidates;
}

// GNMT's length penalty ((5 + |Y|) / 6)^0.6 keeps beam search from preferring short outputs;
// |Y| counts the end token. Hypothesis has `score` and `ids`.
template <class Hypothesis>
double length_normalized(const Hypothesis& h) {
  return h.score / std::pow((5.0 + h.ids.size() + 1) / 6.0, 0.6);
}

struct Decoded {
  std::vector<int> ids;          // without </s>
  std::vector<float> maps;       // [steps][map_size], one per predicted piece: ids, then </s> if finished
  std::vector<float> log_probs;  // [steps]: log p of each predicted piece, as maps
  double log_prob = 0.0;
  bool finished = false;  // ended with </s> (false: stopped at max_length)
};

// A model's Translation (ids, log_prob, finished, and its maps under the model's own name) from
// what beam_search decoded.
template <class Translation>
Translation translation_of(Decoded&& decoded, std::vector<float> Translation::*maps) {
  Translation translation;
  translation.ids = std::move(decoded.ids);
  translation.*maps = std::move(decoded.maps);
  translation.log_prob = decoded.log_prob;
  translation.finished = decoded.finished;
  return translation;
}

// Beam search from one start state. State is what a hypothesis carries (a Transformer's key/value
// caches, an RNN's decoder state); step(std::vector<State*>& states, const int* previous,
// float* log_probs, float* maps) advances every state by one step given each one's previous piece,
// writing log p(. | ...) [rows][V] and the step's attention [rows][map_size]. The best
// continuations fill the beam: those ending in </s> finish, the others go on; the best finished
// hypothesis by GNMT's length penalty wins. beam 1 is greedy (lowest id on ties); beam in 1..64;
// max_length 0 means 2 source_length + 10. `end` is the end token (the tokenizer's </s> by default).
template <class State, class Step>
Decoded beam_search(State start_state, Step&& step, int vocab_size, std::size_t map_size, int source_length, int beam,
                    int max_length, int start, int end = Bpe::end_id) {
  if (beam < 1 || beam > 64) fail("beam must be in 1..64, got ", beam);
  if (start < 0 || start >= vocab_size) fail("the start piece ", start, " is outside the vocabulary");
  if (max_length < 0) fail("max_length must not be negative");
  if (max_length == 0) max_length = 2 * source_length + 10;
  struct Hypothesis {
    std::vector<int> ids;
    std::vector<float> maps, log_probs;
    State state;
    double score = 0.0;
    bool finished = false;
  };
  std::vector<Hypothesis> alive(1), finished;
  alive[0].state = std::move(start_state);
  for (int step_index = 0; step_index < max_length && !alive.empty(); ++step_index) {
    const int rows = static_cast<int>(alive.size());
    std::vector<float> log_probs(static_cast<std::size_t>(rows) * vocab_size), maps(rows * map_size);
    std::vector<int> previous(rows);
    std::vector<State*> states(rows);
    for (int r = 0; r < rows; ++r) {
      previous[r] = alive[r].ids.empty() ? start : alive[r].ids.back();
      states[r] = &alive[r].state;
    }
    step(states, previous.data(), log_probs.data(), maps.data());
    std::vector<Hypothesis> next;
    for (const BeamCandidate& c : best_continuations(alive, log_probs.data(), vocab_size, beam)) {
      if (static_cast<int>(next.size() + finished.size()) >= beam) break;
      Hypothesis h = alive[c.row];
      h.score = c.score;
      h.maps.insert(h.maps.end(), maps.begin() + c.row * map_size, maps.begin() + (c.row + 1) * map_size);
      h.log_probs.push_back(log_probs[static_cast<std::size_t>(c.row) * vocab_size + c.token]);
      if (c.token == end) {
        h.finished = true;
        h.state = State();  // a finished hypothesis takes no more steps
        finished.push_back(std::move(h));
      } else {
        h.ids.push_back(c.token);
        next.push_back(std::move(h));
      }
    }
    alive = std::move(next);
  }
  for (Hypothesis& h : alive) finished.push_back(std::move(h));  // ran out of length
  Hypothesis& best = *std::max_element(finished.begin(), finished.end(), [](const Hypothesis& x, const Hypothesis& y) {
    return length_normalized(x) < length_normalized(y);
  });
  return {std::move(best.ids), std::move(best.maps), std::move(best.log_probs), best.score, best.finished};
}

}  // namespace attn::detail
