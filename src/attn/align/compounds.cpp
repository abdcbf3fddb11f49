#include "attn/align/compounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "attn/core/error.hpp"
#include "attn/models/text.hpp"

namespace attn {

namespace {

constexpr int log_scale = 1000;  // counts stored as round(1000 ln count): exact integer sums in the search
constexpr int largest_setting = 1000;
constexpr int largest_parts = 8;  // the search is parts x length x the longest part: bounded for any file

bool all_letters(const std::string& word) {
  std::size_t position = 0;
  while (position < word.size()) {
    if (!is_letter(next_code_point(word, position))) return false;
  }
  return !word.empty();
}

// Where each code point of `word` starts, and word.size() last.
std::vector<std::size_t> code_point_starts(const std::string& word) {
  std::vector<std::size_t> starts;
  std::size_t position = 0;
  while (position < word.size()) {
    starts.push_back(position);
    next_code_point(word, position);
  }
  starts.push_back(word.size());
  return starts;
}

void check_options(const CompoundOptions& options) {
  const auto check = [](int value, int low, int high, const char* name) {
    if (value < low || value > high)
      fail("compound splitting: ", name, " must be in ", low, "..", high, ", got ", value);
  };
  check(options.min_count, 1, largest_setting, "min_count");
  check(options.min_part, 1, largest_setting, "min_part");
  check(options.min_length, 2, largest_setting, "min_length");
  check(options.max_parts, 2, largest_parts, "max_parts");
}

std::size_t code_points(const std::string& word) { return code_point_starts(word).size() - 1; }

}  // namespace

// The best way to cut word[from..] into at most `parts` parts: the sum of their log counts over
// their number, compared exactly as sum_a * n_b > sum_b * n_a; `next` is where the first part ends.
struct CompoundSplitter::Split {
  std::int64_t sum = 0;
  int parts = 0;  // 0: no way to cut it into known parts
  std::size_t next = 0;
  bool beats(const Split& other) const { return other.parts == 0 || sum * other.parts > other.sum * parts; }
};

int CompoundSplitter::log_count(const std::string& word) const {
  const auto found = log_counts_.find(word);
  return found == log_counts_.end() ? -1 : found->second;
}

CompoundSplitter::Split CompoundSplitter::best(const std::vector<std::size_t>& starts, const std::string& word,
                                               std::size_t from, int parts_left,
                                               std::unordered_map<std::size_t, Split>& memo) const {
  const std::size_t key = from * (options_.max_parts + 1) + parts_left;
  if (const auto found = memo.find(key); found != memo.end()) return found->second;
  const std::size_t length = starts.size() - 1;  // code points
  Split result;
  if (length - from <= longest_) {  // no stored word is longer
    if (const int whole = log_count(word.substr(starts[from])); whole >= 0) result = {whole, 1, length};
  }
  if (parts_left > 1) {
    const std::size_t min_part = static_cast<std::size_t>(options_.min_part);
    for (std::size_t end = from + min_part; end + min_part <= length && end - from <= longest_; ++end) {
      const int head = log_count(word.substr(starts[from], starts[end] - starts[from]));
      if (head < 0) continue;
      const Split rest = best(starts, word, end, parts_left - 1, memo);
      if (rest.parts == 0) continue;
      const Split candidate{head + rest.sum, rest.parts + 1, end};
      if (candidate.beats(result)) result = candidate;
    }
  }
  memo.emplace(key, result);
  return result;
}

void CompoundSplitter::split_piece(const std::string& piece, std::vector<std::string>& out) const {
  const std::vector<std::size_t> starts = code_point_starts(piece);
  const std::size_t length = starts.size() - 1;
  // too short, or too long to be cut into at most max_parts stored words
  if (length < static_cast<std::size_t>(options_.min_length) || length > options_.max_parts * longest_ ||
      !all_letters(piece)) {
    out.push_back(piece);
    return;
  }
  std::unordered_map<std::size_t, Split> memo;
  const Split top = best(starts, piece, 0, options_.max_parts, memo);
  // a word that is itself known often enough stays whole unless its parts are more frequent
  const int whole = log_count(piece);
  if (top.parts < 2 || (whole >= 0 && static_cast<std::int64_t>(whole) * top.parts >= top.sum)) {
    out.push_back(piece);
    return;
  }
  std::size_t from = 0;
  for (int parts_left = options_.max_parts; from < length; --parts_left) {
    const std::size_t next = best(starts, piece, from, parts_left, memo).next;
    out.push_back(piece.substr(starts[from], starts[next] - starts[from]));
    from = next;
  }
}

std::vector<std::string> CompoundSplitter::split(const std::string& word) const {
  std::vector<std::string> out;
  const std::size_t first = word.find_first_not_of('-'), last = word.find_last_not_of('-');
  if (first == std::string::npos || word.find('-', first) > last) {  // no hyphen inside the word
    split_piece(word, out);
    return out;
  }
  std::size_t position = 0;
  while (position <= word.size()) {
    const std::size_t hyphen = std::min(word.find('-', position), word.size());
    if (hyphen > position) split_piece(word.substr(position, hyphen - position), out);
    position = hyphen + 1;
  }
  if (out.empty()) out.push_back(word);
  return out;
}

CompoundSplitter CompoundSplitter::learn(const std::vector<std::vector<std::string>>& folded,
                                         const CompoundOptions& options) {
  check_options(options);
  std::unordered_map<std::string, std::int64_t> counts;
  for (const auto& sentence : folded) {
    for (const std::string& word : sentence) ++counts[word];
  }
  CompoundSplitter splitter;
  splitter.options_ = options;
  for (const auto& [word, count] : counts) {
    if (count < options.min_count || !all_letters(word)) continue;
    if (code_points(word) < static_cast<std::size_t>(options.min_part)) continue;
    const double scaled = std::round(log_scale * std::log(static_cast<double>(count)));
    splitter.log_counts_.emplace(word, static_cast<int>(std::min(scaled, 65535.0)));
    splitter.longest_ = std::max(splitter.longest_, code_points(word));
  }
  return splitter;
}

void CompoundSplitter::write(SafeTensorsWriter& writer, const std::string& key) const {
  std::vector<std::pair<std::string, int>> entries(log_counts_.begin(), log_counts_.end());
  std::sort(entries.begin(), entries.end());  // the same bytes for the same splitter
  nlohmann::json words = nlohmann::json::array();
  std::vector<std::uint16_t> values;
  for (const auto& [word, value] : entries) {
    words.push_back(word);
    values.push_back(static_cast<std::uint16_t>(value));
  }
  writer.metadata(key, words.dump());
  writer.add(key + ".log_counts", values, {static_cast<std::int64_t>(values.size())});
  writer.metadata(key + ".options", nlohmann::json{{"min_count", options_.min_count},
                                                   {"min_part", options_.min_part},
                                                   {"min_length", options_.min_length},
                                                   {"max_parts", options_.max_parts}}
                                        .dump());
}

CompoundSplitter CompoundSplitter::read(const SafeTensors& file, const std::string& key) {
  CompoundSplitter splitter;
  nlohmann::json words, options;
  try {
    words = nlohmann::json::parse(file.meta(key));
    options = nlohmann::json::parse(file.meta(key + ".options"));
  } catch (const nlohmann::json::exception& e) {
    fail(key, " is not valid JSON (", e.what(), ")");
  }
  if (!words.is_array()) fail(key, " must be an array of words");
  if (!options.is_object()) fail(key, ".options must be an object");
  const auto setting = [&](const char* name) {
    const auto found = options.find(name);
    if (found == options.end() || !found->is_number_integer()) fail(key, ".options needs an integer ", name);
    const std::int64_t value = found->get<std::int64_t>();
    if (value < 0 || value > largest_setting)
      fail(key, ".options: ", name, " = ", value, " is outside 0..", largest_setting);
    return static_cast<int>(value);
  };
  splitter.options_ = {setting("min_count"), setting("min_part"), setting("min_length"), setting("max_parts")};
  check_options(splitter.options_);
  if (!file.has(key + ".log_counts")) fail("tensor ", key, ".log_counts is missing");
  if (file.info(key + ".log_counts").dtype != "U16") fail(key, ".log_counts must be U16");
  const std::vector<std::int32_t> values = file.indices(key + ".log_counts", {static_cast<std::int64_t>(words.size())});
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (!words[k].is_string()) fail(key, " must hold strings");
    const std::string word = words[k].get<std::string>();
    if (!all_letters(word)) fail(key, "[", k, "] = '", valid_utf8(word), "' is not a word of letters");
    const std::size_t length = code_points(word);
    if (length < static_cast<std::size_t>(splitter.options_.min_part))
      fail(key, "[", k, "] = '", word, "' is shorter than min_part (", splitter.options_.min_part, ")");
    if (!splitter.log_counts_.emplace(word, values[k]).second) fail(key, " repeats '", word, "'");
    splitter.longest_ = std::max(splitter.longest_, length);
  }
  return splitter;
}

}  // namespace attn
