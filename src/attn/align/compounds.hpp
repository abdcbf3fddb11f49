// Compound splitting by corpus frequency (Koehn & Knight 2003, "Empirical methods for compound
// splitting"): a long word is cut into words that the training text knows, where the geometric
// mean of the parts' counts beats the word's own count. Hungarian, Estonian and German write
// "press centre" as one word (sajtóközpont); cut to a prefix, such a word keeps only its first
// part, so the HMM never links its head (központ, "centre"). Split, each part is a word of its own
// for the HMM, and the links of the parts are the word's.
//
// The splitter is learned from one side of the training corpus (its words already case-folded)
// and stored in the aligner's file, so the page needs no dictionary and splits as the CLI does.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "attn/models/safetensors.hpp"

namespace attn {

struct CompoundOptions {
  int min_count = 10;  // a part is a word seen at least this often in the training text
  int min_part = 4;    // code points of every part
  int min_length = 7;  // shorter words are never split
  int max_parts = 3;   // 2 .. 8
};

class CompoundSplitter {
 public:
  // Counts the words of `folded` (case-folded sentences) and keeps those that may be parts.
  static CompoundSplitter learn(const std::vector<std::vector<std::string>>& folded, const CompoundOptions& options);

  // The parts of a case-folded word, in order, which joined give the word back (hyphens dropped):
  // the word alone when it does not split. Words joined by hyphens are cut there first. The cut is
  // found from the first part on: each first part is scored with the best cut of the rest (by its
  // own mean), and the cut with the highest mean log count wins, the word itself where its own
  // count reaches that mean; a tie keeps the earlier candidate (fewer parts, then the shorter first
  // part). Time: length x max_parts x the longest stored word.
  std::vector<std::string> split(const std::string& word) const;

  const CompoundOptions& options() const { return options_; }
  std::size_t size() const { return log_counts_.size(); }

  // Under `key`: the words (metadata JSON array), their counts (tensor key + ".log_counts", U16,
  // round(1000 ln count)) and the options (metadata key + ".options", JSON).
  void write(SafeTensorsWriter& writer, const std::string& key) const;
  static CompoundSplitter read(const SafeTensors& file, const std::string& key);

 private:
  struct Split;
  Split best(const std::vector<std::size_t>& starts, const std::string& word, std::size_t from, int parts_left,
             std::unordered_map<std::size_t, Split>& memo) const;
  void split_piece(const std::string& piece, std::vector<std::string>& out) const;
  int log_count(const std::string& word) const;  // -1 when the word cannot be a part

  std::unordered_map<std::string, int> log_counts_;  // round(1000 ln count), the words that may be parts
  std::size_t longest_ = 0;                          // code points of the longest of them
  CompoundOptions options_;
};

}  // namespace attn
