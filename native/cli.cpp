// attn: the command-line tool. Commands: align, translate, attentions, caption, aer, ibm2-train,
// hmm-train, upgrade-aligner, segment. usage() below is the one statement of their options for
// people; command_options() says which options each command takes, and parse() refuses any other
// (attn aer --beam 5 is an error naming both). The language pairs are the models' catalogue,
// models/pairs.json, read by catalogue().
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/hmm.hpp"
#include "attn/align/ibm2.hpp"
#include "attn/align/pairs.hpp"
#include "attn/core/error.hpp"
#include "attn/core/threads.hpp"
#include "attn/models/segmenter.hpp"
#include "caption.hpp"
#include "files.hpp"
#include "json_weights.hpp"

namespace {

using namespace attn;
using attn::cli::read_file;

// Shipped models: ATTN_MODELS, else the source tree's models/ this binary was built from.
std::string models_directory() {
  if (const char* directory = std::getenv("ATTN_MODELS")) return directory;
  return ATTN_DEFAULT_MODELS;
}

// The shipped models' language pairs: the catalogue beside them (pairs.json), read when first needed.
const PairCatalogue& catalogue() {
  static const PairCatalogue pairs = [] {
    const std::string path = models_directory() + "/pairs.json";
    const std::string text = read_file(path);
    try {
      return PairCatalogue::parse(text);
    } catch (const Error& e) {
      fail(path, ": ", e.what());
    }
  }();
  return pairs;
}

// The language a model loaded from `path` writes, for a multilingual file: `target` when given
// (from --pair or --target-language), else the direction its file is named after
// (models/en-es-transformer.safetensors: en -> es; attn::direction_model_name), else "" (the model
// says what to choose).
TranslationModel load_model(const std::string& path, const std::string& target = "") {
  try {
    TranslationModel model = TranslationModel::load(read_file(path));
    if (!model.multilingual()) return model;
    const std::string language = target.empty() ? attn::target_of_direction_model(path) : target;
    return language.empty() ? model : model.for_target(language);
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::string line;
  if (path.empty() || path == "-") {
    while (std::getline(std::cin, line)) lines.push_back(line);
  } else {
    std::ifstream in(path);
    if (!in) fail("cannot open '", path, "'");
    while (std::getline(in, line)) lines.push_back(line);
  }
  for (std::string& l : lines) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
  }
  return lines;
}

// A progress bar on stderr, only for a terminal and a long input.
class Progress {
 public:
  Progress(std::size_t total, const char* verb) : total_(total), verb_(verb), enabled_(isatty(2) && total >= 50) {}
  void update(std::size_t done) {
    if (!enabled_ || (done % 10 != 0 && done != total_)) return;
    const int width = 30, filled = static_cast<int>(width * done / total_);
    std::fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu", verb_, filled, "##############################", width - filled, "",
                 done, total_);
    if (done == total_) std::fputc('\n', stderr);
  }

 private:
  std::size_t total_;
  const char* verb_;
  bool enabled_;
};

// Each line's result: its output, and the problem to warn about (the line's output is then
// written as it is, usually empty).
struct LineResult {
  std::string output, problem;
};

// Runs `work` on every line on the thread pool, a batch of lines at a time, and writes each
// result in input order after each batch, its problem as "attn COMMAND: line N: PROBLEM": the
// output does not depend on the thread count. The models are read-only, so lines share them.
template <class Work>
void for_each_line(const char* command, const std::vector<std::string>& lines, Progress& progress, Work work) {
  // Four lines a thread: enough to keep the pool busy, while the outputs held at once stay few
  // (a 60-word `attentions` line is a megabyte of JSON; 64 lines a thread held 170 MB, every
  // page of it faulted in fresh)
  const std::size_t batch = 4 * static_cast<std::size_t>(threads());
  std::vector<LineResult> results;
  for (std::size_t first = 0; first < lines.size(); first += batch) {
    const std::size_t count = std::min(batch, lines.size() - first);
    results.assign(count, LineResult{});
    parallel_for(static_cast<int>(count), 0, [&](int i, int) { results[i] = work(lines[first + i]); });
    for (std::size_t i = 0; i < count; ++i) {
      const LineResult& result = results[i];
      if (!result.problem.empty())
        std::cerr << "attn " << command << ": line " << first + i + 1 << ": " << result.problem << "\n";
      std::cout << result.output << '\n';
      progress.update(first + i + 1);
    }
  }
}

// Every setting starts at the library's defaults (attn/align/methods.hpp: the best measured).
struct Arguments {
  std::vector<std::string> positional;
  std::string pair;             // --pair's value
  bool pair_given = false;      // else the default pair, en-es
  std::string target_language;  // --target-language: the language a multilingual model writes
  std::string model, reverse, input, ibm2, hmm, source, target, output;
  AlignOptions align;
  bool method_given = false, posterior_threshold_given = false;  // else the pair's defaults
  bool statistical_weight_given = false;
  bool articles_given = false;                               // --articles attach|keep, else the pair's choice
  bool mutual_best_given = false;                            // --mutual-best on|off, else the pair's choice
  StatisticalKind statistical = align_defaults.statistical;  // the hybrid's
  bool viterbi = false;
  float min_probability = -1.0f;  // per trainer: its format's default
  int iterations = 5;
  float null_probability = HmmOptions().null_probability;
  int source_prefix = 0, target_prefix = 0;                 // hmm-train: words cut to N characters (0: whole)
  bool agreement = false;                                   // hmm-train: both directions trained jointly
  bool source_compounds = false, target_compounds = false;  // hmm-train: a side's compounds split
  int beam = 4;
  bool beam_given = false;
  bool json = false, hard = false, seed_given = false;  // caption's
  std::uint64_t seed = 0;
  int threads = 0;
  bool threads_given = false;  // else every core the hardware offers
  bool pieces = false;
  bool log_probs = false;       // attentions: each target piece's (or word's) log-probability too
  std::string language = "zh";  // segment: the word tokenizer's language
  std::string dictionary;       // segment: the Chinese segmenter's data file
};

// A flag's value as a number: the whole text must be one, or the error names the flag and the text.
float number_flag(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const float value = std::strtof(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value)) fail(flag, " needs a number, got '", text, "'");
  return value;
}

int whole_number_flag(const std::string& flag, const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
    fail(flag, " needs a whole number, got '", text, "'");
  }
  return std::atoi(text.c_str());
}

// A flag's value as one of a list of names (the library's parser names the known ones).
template <class Parse>
auto named_flag(const std::string& flag, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const Error& e) {
    fail(flag, ": ", e.what());
  }
}

// The options each command takes, by their short names where they have one (--model is -m).
const std::vector<std::pair<std::string, std::vector<std::string>>>& command_options() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {"align",
       {"--pair",
        "-m",
        "-r",
        "--target-language",
        "--method",
        "--shift",
        "--threshold",
        "--ibm2",
        "--hmm",
        "--statistical",
        "--statistical-weight",
        "--mix",
        "--symmetrize",
        "--posterior-threshold",
        "--viterbi",
        "-i",
        "--threads",
        "--dictionary",
        "--articles",
        "--mutual-best"}},
      {"translate", {"--pair", "-m", "--target-language", "--beam", "-i", "--threads", "--dictionary"}},
      {"attentions", {"--pair", "-m", "--target-language", "--pieces", "--log-probs", "-i", "--threads"}},
      {"aer", {}},
      {"ibm2-train", {"-s", "-t", "-o", "--min-probability", "--threads"}},
      {"hmm-train",
       {"-s", "-t", "-o", "--min-probability", "--iterations", "--null-probability", "--source-prefix",
        "--target-prefix", "--agreement", "--source-compounds", "--target-compounds", "--threads"}},
      {"upgrade-aligner", {"-i", "-o"}},
      {"segment", {"--lang", "--dictionary", "-i", "--threads"}},
      {"caption", {"-m", "--beam", "--hard", "--seed", "--json", "--threads"}},
  };
  return table;
}

std::string short_name(const std::string& flag) {
  static const std::vector<std::pair<std::string, std::string>> aliases = {{"--model", "-m"},  {"--reverse", "-r"},
                                                                           {"--input", "-i"},  {"--source", "-s"},
                                                                           {"--target", "-t"}, {"--output", "-o"}};
  for (const auto& [long_name, short_form] : aliases)
    if (flag == long_name) return short_form;
  return flag;
}

// A known option that `command` does not take is refused, naming both (attn aer --beam 5 is a
// mistake, not a no-op); an unknown command is left to main().
void check_option(const std::string& command, const std::string& flag) {
  const auto& table = command_options();
  const auto found =
      std::find_if(table.begin(), table.end(), [&](const auto& entry) { return entry.first == command; });
  if (found == table.end()) return;
  const auto& taken = found->second;
  if (std::find(taken.begin(), taken.end(), short_name(flag)) != taken.end()) return;
  for (const auto& [other, flags] : table) {
    if (std::find(flags.begin(), flags.end(), short_name(flag)) == flags.end()) continue;
    std::string list;
    for (const auto& name : taken) list += (list.empty() ? "" : " ") + name;
    fail(flag, " is not an option of ", command, " (", command, " takes: ", list.empty() ? "no options" : list, ")");
  }
}

Arguments parse(int argc, char** argv, int first, const std::string& command) {
  Arguments a;
  a.align.method = align_defaults.method;
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() > 1 && arg[0] == '-') check_option(command, arg);
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(arg, " needs a value");
      return argv[++i];
    };
    const auto number = [&] { return number_flag(arg, value()); };
    if (arg == "-m" || arg == "--model")
      a.model = value();
    else if (arg == "-r" || arg == "--reverse")
      a.reverse = value();
    else if (arg == "--target-language")
      a.target_language = value();
    else if (arg == "--pair") {
      a.pair = value();
      a.pair_given = true;
    } else if (arg == "--method") {
      a.align.method = named_flag(arg, value(), parse_align_method);
      a.method_given = true;
    } else if (arg == "-i" || arg == "--input")
      a.input = value();
    else if (arg == "--lang")
      a.language = value();
    else if (arg == "--dictionary")
      a.dictionary = value();
    else if (arg == "--ibm2")
      a.ibm2 = value();
    else if (arg == "--hmm")
      a.hmm = value();
    else if (arg == "--statistical")
      a.statistical = named_flag(arg, value(), parse_statistical_kind);
    else if (arg == "--symmetrize")
      a.align.symmetrization = named_flag(arg, value(), parse_symmetrization);
    else if (arg == "--articles") {
      const std::string articles = value();
      if (articles != "attach" && articles != "keep") fail("--articles must be attach or keep, got '", articles, "'");
      a.align.attach_articles = articles == "attach";
      a.articles_given = true;
    } else if (arg == "--mutual-best") {
      const std::string mutual = value();
      if (mutual != "on" && mutual != "off") fail("--mutual-best must be on or off, got '", mutual, "'");
      a.align.mutual_best = mutual == "on";
      a.mutual_best_given = true;
    } else if (arg == "--posterior-threshold") {
      a.align.posterior_threshold = number();
      a.posterior_threshold_given = true;
    } else if (arg == "--mix")
      a.align.mix = named_flag(arg, value(), parse_mix);
    else if (arg == "--viterbi")
      a.viterbi = true;
    else if (arg == "--iterations")
      a.iterations = whole_number_flag(arg, value());
    else if (arg == "--null-probability")
      a.null_probability = number();
    else if (arg == "--agreement")
      a.agreement = true;
    else if (arg == "--source-compounds")
      a.source_compounds = true;
    else if (arg == "--target-compounds")
      a.target_compounds = true;
    else if (arg == "--source-prefix")
      a.source_prefix = whole_number_flag(arg, value());
    else if (arg == "--target-prefix")
      a.target_prefix = whole_number_flag(arg, value());
    else if (arg == "-s" || arg == "--source")
      a.source = value();
    else if (arg == "-t" || arg == "--target")
      a.target = value();
    else if (arg == "-o" || arg == "--output")
      a.output = value();
    else if (arg == "--min-probability")
      a.min_probability = number();
    else if (arg == "--statistical-weight") {
      a.align.statistical_weight = number();
      a.statistical_weight_given = true;
    } else if (arg == "--pieces")
      a.pieces = true;
    else if (arg == "--log-probs")
      a.log_probs = true;
    else if (arg == "--shift")
      a.align.shift = true;
    else if (arg == "--threshold")
      a.align.threshold = number();
    else if (arg == "--beam") {
      a.beam = whole_number_flag(arg, value());
      a.beam_given = true;
    } else if (arg == "--json")
      a.json = true;
    else if (arg == "--hard")
      a.hard = true;
    else if (arg == "--seed") {
      a.seed = cli::seed_flag(arg, value());
      a.seed_given = true;
    } else if (arg == "--threads") {
      a.threads = whole_number_flag(arg, value());  // its range is set_threads's, checked in main()
      a.threads_given = true;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-")
      fail("unknown option ", arg);
    else
      a.positional.push_back(arg);
  }
  return a;
}

// The -m model, else the shipped translation model of --pair's direction (en-XX or XX-en), else en-es's.
std::string forward_model_path(const Arguments& a) {
  if (!a.model.empty()) return a.model;
  return models_directory() + "/" +
         catalogue().translation_model_file(a.pair_given ? a.pair : catalogue().default_pair().name);
}

// The language a translation writes: --target-language, else the second language of --pair's direction,
// else (no -m either) the default pair's language, which its shipped model writes.
std::string translation_target(const Arguments& a) {
  if (!a.target_language.empty()) return a.target_language;
  if (!a.pair_given) return a.model.empty() ? catalogue().default_pair().language : "";
  const std::size_t dash = a.pair.find('-');
  return dash == std::string::npos ? "" : a.pair.substr(dash + 1);
}

// The --pair that align reads (English on the source side), or en-es without one.
const LanguagePair& alignment_pair(const Arguments& a) {
  if (!a.pair_given) return catalogue().default_pair();
  const std::string& name = a.pair;
  if (name.size() > 3 && name.compare(name.size() - 3, 3, "-en") == 0) {
    const std::string english_first = "en-" + name.substr(0, name.size() - 3);
    for (const LanguagePair& pair : catalogue().pairs()) {
      if (pair.name == english_first)
        fail("align reads English as the source side: use --pair ", english_first, " (and 'English ||| ",
             pair.language_name, "' lines)");
    }
  }
  return catalogue().pair(name);
}

// A file of the pair's, or an error saying that the pair has none of that kind.
std::string shipped_file(const LanguagePair& pair, const std::string& file, const char* what, AlignMethod method) {
  if (file.empty()) {
    fail("method '", to_string(method), "' needs ", what, ", and none is shipped for ", pair.name,
         " (its default method: ", to_string(pair.method), ")");
  }
  return models_directory() + "/" + file;
}

// The models the chosen method needs, loaded once (the shipped ones unless the flags name others).
class PairAligner {
 public:
  explicit PairAligner(const Arguments& a) : arguments_(a) {
    const LanguagePair& pair = alignment_pair(a);
    // the pair's default method and threshold, unless the flags name others
    if (!a.method_given) arguments_.align.method = pair.method;
    if (!a.posterior_threshold_given) arguments_.align.posterior_threshold = pair.posterior_threshold;
    if (!a.statistical_weight_given) arguments_.align.statistical_weight = pair.statistical_weight;
    if (!a.articles_given) arguments_.align.attach_articles = pair.attach_articles;
    if (!a.mutual_best_given) arguments_.align.mutual_best = pair.mutual_best;
    arguments_.align = pair_options(pair, arguments_.align);  // --method attention: the pair's choice
    validate(arguments_.align);
    const AlignMethod method = arguments_.align.method;
    if (needs_statistical(method)) {
      const StatisticalKind kind = needs_model(method) ? a.statistical : statistical_kind(method);
      const std::string& given = kind == StatisticalKind::hmm ? a.hmm : a.ibm2;
      const char* what = kind == StatisticalKind::hmm ? "the HMM aligner" : "IBM Model 2";
      statistical_ = load_statistical_aligner(read_file(
          given.empty() ? shipped_file(pair, kind == StatisticalKind::hmm ? pair.hmm : pair.ibm2, what, method)
                        : given));
      if (statistical_->kind() != kind)
        fail("--", to_string(kind), " names a file of the ", to_string(statistical_->kind()), " aligner");
    }
    if (arguments_.viterbi && method != AlignMethod::hmm) fail("--viterbi applies to --method hmm");
    if (a.mutual_best_given && a.align.mutual_best &&
        (method != AlignMethod::hybrid || arguments_.align.symmetrization != Symmetrization::posterior_mean))
      fail("--mutual-best on applies to the hybrid with --symmetrize posterior");
    if (!needs_model(method)) return;
    forward_ = std::make_unique<TranslationModel>(
        load_model(a.model.empty() ? shipped_file(pair, pair.forward, "an attention model", method) : a.model,
                   a.target_language.empty() ? pair.language : a.target_language));
    if (needs_reverse(method)) {
      if (a.reverse.empty() && !a.model.empty())
        fail("method '", to_string(method), "' needs a reverse model: give -r");
      reverse_ = std::make_unique<TranslationModel>(load_model(
          a.reverse.empty() ? shipped_file(pair, pair.reverse, "a reverse attention model", method) : a.reverse, "en"));
    }
  }

  Alignment align(const std::vector<std::string>& source, const std::vector<std::string>& target) const {
    if (arguments_.viterbi) {  // each direction's Viterbi path, then grow-diag-final-and
      const auto& hmm = static_cast<const HmmAligner&>(*statistical_);
      const Alignment forward = hmm.forward().viterbi(source, target);  // first: its errors name the sides as given
      return grow_diag_final_and(forward, swapped(hmm.backward().viterbi(target, source)),
                                 static_cast<int>(source.size()), static_cast<int>(target.size()));
    }
    return align_pair({forward_.get(), reverse_.get(), statistical_.get()}, source, target, arguments_.align).links;
  }

 private:
  Arguments arguments_;
  std::unique_ptr<TranslationModel> forward_, reverse_;
  std::unique_ptr<StatisticalModel> statistical_;
};

// The data file of attn segment and of typed Chinese: --dictionary, else $ATTN_JIEBA, else the build's.
std::string jieba_path(const std::string& given) {
  if (!given.empty()) return given;
  return std::getenv("ATTN_JIEBA") ? std::getenv("ATTN_JIEBA") : ATTN_DEFAULT_JIEBA;
}

// Typed text's words as the models were trained on them: a line holding Han characters through
// jieba (Segmenter::words, its data read once, when the first such line comes), any other line by
// the word tokenizer alone, so that `attn translate` takes Chinese as it takes every language.
class TypedWords {
 public:
  explicit TypedWords(std::string path) : path_(std::move(path)) {}
  std::vector<std::string> operator()(const std::string& line) const {
    if (!has_han(line)) return split_words(line);
    std::call_once(loaded_, [&] { segmenter_ = std::make_unique<Segmenter>(Segmenter::from_file(path_)); });
    return segmenter_->words(line);
  }

 private:
  std::string path_;
  mutable std::once_flag loaded_;
  mutable std::unique_ptr<Segmenter> segmenter_;
};

// A `source ||| target` line's two word lists, or the problem with it.
// With `chinese`, a target side written as Chinese is (Han characters and no space) is cut into
// words by jieba, as the page and `attn segment` cut it; a segmented side is taken as given.
std::string split_pair(const std::string& line, std::vector<std::string>& source, std::vector<std::string>& target,
                       const TypedWords* chinese = nullptr) {
  const std::size_t bar = line.find("|||");
  if (bar == std::string::npos) return "no ' ||| ' between source and target";
  source = split_on_spaces(line.substr(0, bar));
  const std::string right = line.substr(bar + 3);
  const std::size_t first = right.find_first_not_of(" \t"), last = right.find_last_not_of(" \t\r");
  const std::string trimmed = first == std::string::npos ? "" : right.substr(first, last - first + 1);
  const bool unsegmented = chinese && has_han(trimmed) && trimmed.find_first_of(" \t") == std::string::npos;
  target = unsegmented ? (*chinese)(trimmed) : split_on_spaces(right);
  if (source.empty() || target.empty()) return source.empty() ? "the source side is empty" : "the target side is empty";
  if (source.size() > 1000 || target.size() > 1000) return "more than 1000 words on a side";
  return "";
}

// A `source ||| target` line's result: what produce(source, target) writes, or the problem with
// the line or the one the library names; the line's output is then empty.
template <class Produce>
LineResult pair_result(const std::string& line, Produce produce, const TypedWords* chinese = nullptr) {
  LineResult result;
  std::vector<std::string> source, target;
  try {  // the split too: cutting Chinese reads jieba's data, which may be missing
    result.problem = split_pair(line, source, target, chinese);
    if (result.problem.empty()) result.output = produce(source, target);
  } catch (const Error& e) {
    result.problem = e.what();
  }
  if (!result.problem.empty()) result.problem += "; writing an empty line";
  return result;
}

int align(const Arguments& a) {
  const PairAligner aligner(a);
  const std::vector<std::string> lines = read_lines(a.input);
  // the Chinese side of a pair with Chinese, typed as Chinese is written, cut by jieba
  const bool chinese_pair = a.pair_given && alignment_pair(a).language == "zh";
  const TypedWords typed_chinese(jieba_path(a.dictionary));
  Progress progress(lines.size(), "aligning");
  const auto align_pair_words = [&](const std::vector<std::string>& source, const std::vector<std::string>& target) {
    return to_pharaoh(aligner.align(source, target));
  };
  for_each_line("align", lines, progress, [&](const std::string& line) {
    return pair_result(line, align_pair_words, chinese_pair ? &typed_chinese : nullptr);
  });
  return 0;
}

int translate(const Arguments& a) {
  const TranslationModel model = load_model(forward_model_path(a), translation_target(a));
  const std::vector<std::string> lines = read_lines(a.input);
  const TypedWords words_of(jieba_path(a.dictionary));
  Progress progress(lines.size(), "translating");
  const auto translate_line = [&](const std::string& line) {
    LineResult result;
    try {
      const std::vector<std::string> words = words_of(line);
      if (words.empty() || words.size() > 1000) {
        result.problem = std::string(words.empty() ? "empty" : "more than 1000 words") + "; writing an empty line";
        return result;
      }
      result.output = translate_words(model, words, a.beam).text;
    } catch (const Error& e) {
      result.problem = e.what();
    }
    return result;
  };
  for_each_line("translate", lines, progress, translate_line);
  return 0;
}

// One JSON object a line: source and target words (or pieces), and every attention map; with
// --log-probs, each target entry's log-probability (by words, one more: </s>'s) and their sum.
int attentions(const Arguments& a) {
  const TranslationModel model = load_model(forward_model_path(a), translation_target(a));
  const std::vector<std::string> lines = read_lines(a.input);
  Progress progress(lines.size(), "attending");
  const auto attend = [&](const std::vector<std::string>& source, const std::vector<std::string>& target) {
    const AttentionMaps maps = attention_maps(model, source, target, a.pieces, a.log_probs);
    const int S = static_cast<int>(maps.source.size()), T = static_cast<int>(maps.target.size());
    // the words through nlohmann (escapes, invalid UTF-8 replaced), the numbers written directly
    std::string json = nlohmann::ordered_json{{"source", maps.source}, {"target", maps.target}}.dump(
        -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    json.pop_back();  // the closing brace
    json.reserve(json.size() + 12 * (maps.cross.size() + maps.encoder.size() + maps.decoder.size()) + 64);
    json += ",\"cross\":";
    cli::append_nested(json, maps.cross, maps.layers, maps.heads, T, S);
    if (model.architecture() == Architecture::transformer) {
      json += ",\"encoder\":";
      cli::append_nested(json, maps.encoder, maps.encoder_layers, maps.heads, S, S);
      json += ",\"decoder\":";
      cli::append_nested(json, maps.decoder, maps.layers, maps.heads, T, T);
    }
    if (a.log_probs) {  // a few numbers a line: nlohmann's, as the caption's (a non-finite one as null)
      json += ",\"log_probs\":" + nlohmann::json(maps.log_probs).dump();
      json += ",\"log_prob\":" + nlohmann::json(maps.log_prob).dump();
    }
    json += '}';
    return json;
  };
  for_each_line("attentions", lines, progress, [&](const std::string& line) { return pair_result(line, attend); });
  return 0;
}

// Gold lines are Pharaoh links ("s-t" sure, "s?t" possible), or XL-WA's source<TAB>target<TAB>links.
// The captioner on image files: -m, else the shipped models/captioner.safetensors; greedy unless --beam.
int caption(const Arguments& a) {
  if (a.seed_given && !a.hard) fail("--seed is for --hard (the sampled cells); soft attention draws nothing");
  cli::CaptionArguments arguments;
  arguments.model = a.model.empty() ? models_directory() + "/captioner.safetensors" : a.model;
  arguments.images = a.positional;
  arguments.beam = a.beam_given ? a.beam : 1;
  arguments.json = a.json;
  arguments.hard = a.hard;
  arguments.seed = a.seed;
  return cli::caption(arguments);
}

int aer(const Arguments& a) {
  if (a.positional.size() != 2) fail("usage: attn aer GOLD PREDICTED");
  const std::vector<std::string> gold = read_lines(a.positional[0]), predicted = read_lines(a.positional[1]);
  if (gold.size() != predicted.size()) {
    fail(a.positional[0], " has ", gold.size(), " lines, ", a.positional[1], " has ", predicted.size());
  }
  AlignmentScore score;
  for (std::size_t n = 0; n < gold.size(); ++n) {
    const std::size_t tab = gold[n].rfind('\t');
    Alignment possible;
    try {
      const Alignment sure = parse_pharaoh(tab == std::string::npos ? gold[n] : gold[n].substr(tab + 1), &possible);
      score.add(parse_pharaoh(predicted[n]), sure, possible);
    } catch (const Error& e) {
      fail("line ", n + 1, ": ", e.what());
    }
  }
  std::printf("AER %.4f\nprecision %.4f\nrecall %.4f\n", score.aer(), score.precision(), score.recall());
  return 0;
}

// A parallel corpus: one sentence per line in each file, words separated by spaces.
void read_corpus(const Arguments& a, const char* command, std::vector<Sentence>& source,
                 std::vector<Sentence>& target) {
  if (a.source.empty() || a.target.empty() || a.output.empty())
    fail("usage: attn ", command, " -s SOURCE -t TARGET -o FILE");
  const std::vector<std::string> source_lines = read_lines(a.source), target_lines = read_lines(a.target);
  if (source_lines.size() != target_lines.size()) fail(a.source, " and ", a.target, " differ in length");
  for (std::size_t k = 0; k < source_lines.size(); ++k) {
    source.push_back(split_on_spaces(source_lines[k]));
    target.push_back(split_on_spaces(target_lines[k]));
  }
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()))) fail("cannot write ", path);
}

int ibm2_train(const Arguments& a) {
  std::vector<Sentence> source, target;
  read_corpus(a, "ibm2-train", source, target);
  Ibm2Aligner aligner;
  aligner.train(source, target);
  const std::string bytes =
      aligner.serialize(a.min_probability < 0.0f ? Ibm2Model::default_min_probability : a.min_probability);
  write_file(a.output, bytes);
  std::cerr << "trained on " << source.size() << " pairs; tension " << aligner.forward().tension() << " / "
            << aligner.backward().tension() << "; wrote " << a.output << " (" << bytes.size() << " bytes)\n";
  return 0;
}

int hmm_train(const Arguments& a) {
  std::vector<Sentence> source, target;
  read_corpus(a, "hmm-train", source, target);
  HmmOptions options;
  options.iterations = a.iterations;
  options.null_probability = a.null_probability;
  options.source_prefix = a.source_prefix;
  options.target_prefix = a.target_prefix;
  options.agreement = a.agreement;
  options.source_compounds = a.source_compounds;
  options.target_compounds = a.target_compounds;
  HmmAligner aligner;
  aligner.train(source, target, options);
  const std::string bytes =
      aligner.serialize(a.min_probability < 0.0f ? HmmModel::default_min_probability : a.min_probability);
  write_file(a.output, bytes);
  const auto jumps = [](const HmmModel& model) {
    std::ostringstream out;
    for (float c : model.jump()) out << ' ' << std::lround(c * 1000);
    return out.str();
  };
  std::cerr << "trained on " << source.size() << " pairs; jump distribution (per mille, -"
            << aligner.forward().max_jump() << " .. +" << aligner.forward().max_jump()
            << "):" << jumps(aligner.forward()) << " /" << jumps(aligner.backward()) << "; wrote " << a.output << " ("
            << bytes.size() << " bytes)\n";
  return 0;
}

std::string joined(const std::vector<std::string>& names, const char* separator) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : separator) + name;
  return text;
}

// Each line's words as the models read them, one space between words: Chinese (zh) by jieba's
// accurate mode (attn/models/segmenter.hpp; a line already segmented is kept as given), any other
// language by the word tokenizer.
int segment(const Arguments& a) {
  std::unique_ptr<Segmenter> chinese;
  if (a.language == "zh") chinese = std::make_unique<Segmenter>(Segmenter::from_file(jieba_path(a.dictionary)));
  const std::vector<std::string> lines = read_lines(a.input);
  Progress progress(lines.size(), "segmenting");
  for_each_line("segment", lines, progress, [&](const std::string& line) {
    LineResult result;
    result.output = joined(split_words(line, a.language, chinese.get()), " ");
    return result;
  });
  return 0;
}

// An aligner's file rewritten in the format serialize() writes now (version 2 of either kind: the
// vocabularies once, the entries row by row): the same model, the entries it holds all kept.
int upgrade_aligner(const Arguments& a) {
  if (a.input.empty() || a.output.empty()) fail("usage: attn upgrade-aligner -i FILE -o FILE");
  const SafeTensors file = SafeTensors::parse(read_file(a.input));
  const std::string bytes = load_statistical_aligner(file)->serialize(0.0f);
  write_file(a.output, bytes);
  std::cerr << "wrote " << a.output << " (" << bytes.size() << " bytes, " << file.metadata().at("format") << " -> "
            << SafeTensors::parse(bytes).meta("format") << ")\n";
  return 0;
}

void usage() {
  const AlignDefaults& d = align_defaults;
  std::cerr
      << "usage:\n"
         "  attn align [--pair en-XX] [-m MODEL] [-r REVERSE_MODEL] [--method M] [--shift] [--threshold X] [--ibm2 "
         "FILE]\n"
         "             [--statistical "
      << joined(statistical_kind_names(), "|")
      << "] [--hmm FILE] [--statistical-weight W]\n"
         "             [--mix "
      << joined(mix_names(), "|") << "] [--symmetrize " << joined(symmetrization_names(), "|")
      << "]\n             [--posterior-threshold X] [--viterbi] [-i FILE] [--dictionary FILE]   (--pair en-zh: a\n"
         "             Chinese side typed without spaces is cut into words by jieba)\n"
         "             [--articles attach|keep]   (English articles left unlinked take the next word's links;\n"
         "             default: the pair's choice)\n"
         "             [--mutual-best on|off]   (the hybrid also links words that are each other's best;\n"
         "             default: the pair's choice)\n"
         "  attn translate [--pair en-XX|XX-en] [-m MODEL] [--target-language XX] [--beam N] [-i FILE]\n"
         "                 [--dictionary FILE]   (a line with Chinese characters is split into words by jieba)\n"
         "  attn attentions [--pair en-XX|XX-en] [-m MODEL] [--target-language XX] [--pieces] [--log-probs] [-i FILE]\n"
         "                  (one JSON object a line: every attention map; --log-probs: each target word's or\n"
         "                  piece's log-probability, </s> last, and their sum)\n"
         "  (--target-language: the language a multilingual model writes; default the --pair direction's second, or "
         "the\n"
         "   model file name's, as models/en-fr-transformer.safetensors; with neither --pair nor -m, es)\n"
         "  (--threads N: every command but aer and upgrade-aligner, on N threads; default: every core)\n"
         "  attn caption [-m MODEL] [--beam N] [--hard [--seed S]] [--json] IMAGE...   (PNG or JPEG, any size; "
         "one\n"
         "   caption a line, or one JSON object {words, grid, attention, log_probs}; --hard samples one cell a word,\n"
         "   reproducibly for a seed (default 0); default model models/captioner.safetensors)\n"
         "  attn aer GOLD PREDICTED\n"
         "  attn ibm2-train -s SOURCE -t TARGET -o FILE [--min-probability P]\n"
         "  attn hmm-train -s SOURCE -t TARGET -o FILE [--min-probability P] [--iterations N] [--null-probability P]\n"
         "                 [--source-prefix N] [--target-prefix N]   (words cut to their first N characters)\n"
         "                 [--agreement]   (both directions trained jointly, so that they agree)\n"
         "                 [--source-compounds] [--target-compounds]   (a side's compound words split into words\n"
         "                 of the training text, Koehn & Knight 2003; the splitter is stored in the file)\n"
         "  attn upgrade-aligner -i FILE -o FILE   (an aligner's file as version 2: the same model, half the bytes)\n"
         "  attn segment [--lang zh] [--dictionary FILE] [-i FILE]   (each line's words, one space between: zh by\n"
         "               jieba's accurate mode, a line with spaces between Han characters kept as given; FILE\n"
         "               default $ATTN_JIEBA, else the build's, " ATTN_DEFAULT_JIEBA
         ")\n"
         "alignment methods (--method):\n";
  for (const AlignMethodInfo& method : align_methods()) {
    std::fprintf(stderr, "  %-20s %s%s\n", method.name, method.description,
                 method.method == d.method ? " (default)" : "");
  }
  std::cerr << "defaults: --statistical " << to_string(d.statistical) << " --statistical-weight "
            << d.statistical_weight << " --mix " << to_string(d.mix) << " --symmetrize " << to_string(d.symmetrization)
            << " --posterior-threshold " << d.posterior_threshold << " --threshold " << d.threshold
            << " (for --pair en-es, the pair without --pair)\n";
  try {
    const PairCatalogue& pairs = catalogue();
    std::cerr << "language pairs (--pair; align's default method):";
    for (const LanguagePair& pair : pairs.pairs()) {
      std::cerr << " " << pair.name << " (" << to_string(pair.method);
      if (pair.method != d.method || pair.posterior_threshold != d.posterior_threshold)
        std::cerr << ", --posterior-threshold " << pair.posterior_threshold;
      if (pair.statistical_weight != d.statistical_weight)
        std::cerr << ", --statistical-weight " << pair.statistical_weight;
      if (pair.attach_articles) std::cerr << ", --articles attach";
      if (pair.mutual_best) std::cerr << ", --mutual-best on";
      std::cerr << ")";
    }
    std::cerr << "\n--method attention per pair (the attention models alone, chosen on each pair's dev set):";
    for (const LanguagePair& pair : pairs.pairs()) {
      if (pair.forward.empty() || pair.reverse.empty()) continue;
      std::cerr << " " << pair.name << " (" << to_string(pair.attention_method);
      if (info(pair.attention_method).reads_threshold) std::cerr << ", --threshold " << pair.attention_threshold;
      std::cerr << ")";
    }
    std::cerr << "\ntranslation models (translate --pair): " << joined(pairs.translation_directions(), ", ");
  } catch (const Error& e) {
    std::cerr << "language pairs: none (" << e.what() << ")";
  }
  std::cerr << "\nmodels: " << models_directory() << " (set ATTN_MODELS to change)\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  if (argc < 2 || std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") {
    usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  try {
    const Arguments arguments = parse(argc, argv, 2, command);
    try {
      set_threads(arguments.threads_given ? arguments.threads : hardware_threads());
    } catch (const Error&) {  // the library's range, named as the flag
      fail("--threads needs a count from 1 to ", max_threads, ", got ", arguments.threads);
    }
    if (command == "align") return align(arguments);
    if (command == "translate") return translate(arguments);
    if (command == "attentions") return attentions(arguments);
    if (command == "aer") return aer(arguments);
    if (command == "caption") return caption(arguments);
    if (command == "ibm2-train") return ibm2_train(arguments);
    if (command == "hmm-train") return hmm_train(arguments);
    if (command == "upgrade-aligner") return upgrade_aligner(arguments);
    if (command == "segment") return segment(arguments);
    std::cerr << "attn: unknown command '" << command << "'\n";
    usage();
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "attn " << command << ": " << e.what() << "\n";
    return 1;
  }
}
