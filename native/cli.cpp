// attn: the command-line tool.
//   attn align [-m MODEL] [-r REVERSE_MODEL] [--method M] [--shift] [-i FILE]
//       lines "source ||| target" (fast_align's input; words are the space-separated tokens)
//       -> one line of 0-based source-target links per pair (Pharaoh format)
//   attn translate [-m MODEL] [--beam N] [-i FILE]     one translation per line
//   attn aer GOLD PREDICTED                              AER, precision, recall
//   attn ibm2-train -s SOURCE -t TARGET -o FILE [--min-probability P]
//       trains the statistical baseline (IBM Model 2 + fast_align's diagonal prior, both directions)
//   attn hmm-train -s SOURCE -t TARGET -o FILE [--min-probability P] [--iterations N] [--null-probability P]
//       trains the HMM aligner (from IBM Model 2, both directions)
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/align/attention_aligner.hpp"
#include "attn/core/error.hpp"
#include "attn/align/hmm.hpp"
#include "attn/align/ibm2.hpp"

namespace {

using namespace attn;

// Shipped models: ATTN_MODELS, else the source tree's models/ this binary was built from.
std::string models_directory() {
  if (const char* directory = std::getenv("ATTN_MODELS")) return directory;
  return ATTN_DEFAULT_MODELS;
}

const char* const default_forward = "en-es-additive.safetensors";
const char* const default_reverse = "es-en-additive.safetensors";
const char* const default_ibm2 = "ibm2-en-es.safetensors";
const char* const default_hmm = "hmm-en-es.safetensors";
// The method with the lowest AER on the XL-WA dev set (models/MODEL_CARD.md): attention mixed
// with the HMM's posteriors (weight 0.6), links where the two directions' mean >= 0.35: AER 0.183
// (hybrid with IBM Model 2, grow-diag-final-and, was 0.250; the HMM alone 0.201).
const char* const default_method = "hybrid";
const char* const default_statistical = "hmm";
const char* const default_symmetrize = "posterior";
const float default_posterior_threshold = 0.35f;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open '", path, "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

RnnModel load_model(const std::string& path) {
  try {
    return RnnModel::load(read_file(path));
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
    std::fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu", verb_, filled, "##############################", width - filled, "", done, total_);
    if (done == total_) std::fputc('\n', stderr);
  }

 private:
  std::size_t total_;
  const char* verb_;
  bool enabled_;
};

struct Arguments {
  std::vector<std::string> positional;
  std::string model, reverse, method = default_method, input, ibm2, hmm, source, target, output;
  std::string statistical = default_statistical;  // hybrid: ibm2 or hmm
  std::string symmetrize = default_symmetrize;    // hmm: grow-diag-final-and or posterior
  float posterior_threshold = default_posterior_threshold;
  bool geometric = false, viterbi = false;
  float min_probability = -1.0f;  // per trainer: IBM Model 2 1e-5, HMM 1e-4
  int iterations = 5;
  float null_probability = HmmOptions().null_probability;
  float statistical_weight = 0.6f;  // the best of 0.3 .. 0.85 with the HMM on xl-wa-es-dev (models/MODEL_CARD.md)
  int beam = 4;
  float threshold = 0.3f;
  bool shift = false;
};

Arguments parse(int argc, char** argv, int first) {
  Arguments a;
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(arg, " needs a value");
      return argv[++i];
    };
    if (arg == "-m" || arg == "--model") a.model = value();
    else if (arg == "-r" || arg == "--reverse") a.reverse = value();
    else if (arg == "--method") a.method = value();
    else if (arg == "-i" || arg == "--input") a.input = value();
    else if (arg == "--ibm2") a.ibm2 = value();
    else if (arg == "--hmm") a.hmm = value();
    else if (arg == "--statistical") a.statistical = value();
    else if (arg == "--symmetrize") a.symmetrize = value();
    else if (arg == "--posterior-threshold") a.posterior_threshold = std::stof(value());
    else if (arg == "--mix") {
      const std::string mix = value();
      if (mix != "linear" && mix != "geometric") fail("--mix is linear or geometric, got '", mix, "'");
      a.geometric = mix == "geometric";
    } else if (arg == "--viterbi") a.viterbi = true;
    else if (arg == "--iterations") a.iterations = std::stoi(value());
    else if (arg == "--null-probability") a.null_probability = std::stof(value());
    else if (arg == "-s" || arg == "--source") a.source = value();
    else if (arg == "-t" || arg == "--target") a.target = value();
    else if (arg == "-o" || arg == "--output") a.output = value();
    else if (arg == "--min-probability") a.min_probability = std::stof(value());
    else if (arg == "--statistical-weight") a.statistical_weight = std::stof(value());
    else if (arg == "--shift") a.shift = true;
    else if (arg == "--threshold") a.threshold = std::stof(value());
    else if (arg == "--beam") {
      const std::string text = value();
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) fail("--beam needs a whole number, got '", text, "'");
      a.beam = std::atoi(text.c_str());
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") fail("unknown option ", arg);
    else a.positional.push_back(arg);
  }
  return a;
}

// The pair's links by the chosen method: attention models, or a statistical aligner alone.
class PairAligner {
 public:
  explicit PairAligner(const Arguments& a) : arguments_(a) {
    const std::string directory = models_directory();
    const auto ibm2 = [&] { return Ibm2Aligner::deserialize(read_file(a.ibm2.empty() ? directory + "/" + default_ibm2 : a.ibm2)); };
    const auto hmm = [&] { return HmmAligner::deserialize(read_file(a.hmm.empty() ? directory + "/" + default_hmm : a.hmm)); };
    if (a.symmetrize != "grow-diag-final-and" && a.symmetrize != "posterior") {
      fail("--symmetrize is grow-diag-final-and or posterior, got '", a.symmetrize, "'");
    }
    if (a.method == "ibm2") {
      ibm2_ = std::make_unique<Ibm2Aligner>(ibm2());
      return;
    }
    if (a.method == "hmm") {
      hmm_ = std::make_unique<HmmAligner>(hmm());
      return;
    }
    options_.method = parse_align_method(a.method);
    options_.threshold = a.threshold;
    options_.shift = a.shift;
    forward_ = std::make_unique<RnnModel>(load_model(a.model.empty() ? directory + "/" + default_forward : a.model));
    if (needs_reverse(options_.method)) {
      if (a.reverse.empty() && !a.model.empty()) fail("method '", a.method, "' needs a reverse model: give -r");
      reverse_ = std::make_unique<RnnModel>(load_model(a.reverse.empty() ? directory + "/" + default_reverse : a.reverse));
    }
    if (needs_statistical(options_.method)) {
      if (a.statistical == "ibm2") statistical_ = std::make_unique<Ibm2Aligner>(ibm2());
      else if (a.statistical == "hmm") statistical_ = std::make_unique<HmmAligner>(hmm());
      else fail("--statistical is ibm2 or hmm, got '", a.statistical, "'");
      options_.statistical = statistical_.get();
      options_.statistical_weight = a.statistical_weight;
      options_.geometric_mix = a.geometric;
      if (a.symmetrize == "posterior") options_.posterior_threshold = a.posterior_threshold;
    }
  }
  Alignment align(const std::vector<std::string>& source, const std::vector<std::string>& target) const {
    if (ibm2_) return ibm2_->align(source, target);
    if (hmm_) {
      if (arguments_.viterbi) {  // each direction's Viterbi path, then grow-diag-final-and
        const Alignment forward = hmm_->forward().viterbi(source, target);  // first: its errors name the sides as given
        return grow_diag_final_and(forward, swapped(hmm_->backward().viterbi(target, source)), static_cast<int>(source.size()),
                                   static_cast<int>(target.size()));
      }
      return hmm_->align(source, target, arguments_.symmetrize == "posterior" ? Symmetrization::posterior_mean : Symmetrization::grow_diag_final_and,
                         arguments_.posterior_threshold);
    }
    return align_pair(*forward_, reverse_.get(), source, target, options_).links;
  }

 private:
  Arguments arguments_;
  AlignOptions options_;
  std::unique_ptr<RnnModel> forward_, reverse_;
  std::unique_ptr<Ibm2Aligner> ibm2_;
  std::unique_ptr<HmmAligner> hmm_;
  std::unique_ptr<StatisticalModel> statistical_;
};

int align(const Arguments& a) {
  const PairAligner aligner(a);
  const std::vector<std::string> lines = read_lines(a.input);
  Progress progress(lines.size(), "aligning");
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    const std::size_t bar = line.find("|||");
    std::string problem;
    std::vector<std::string> source, target;
    if (bar == std::string::npos) {
      problem = "no ' ||| ' between source and target";
    } else {
      source = split_on_spaces(line.substr(0, bar));
      target = split_on_spaces(line.substr(bar + 3));
      if (source.empty() || target.empty()) problem = source.empty() ? "the source side is empty" : "the target side is empty";
      else if (source.size() > 1000 || target.size() > 1000) problem = "more than 1000 words on a side";
    }
    if (problem.empty()) {
      try {
        std::cout << to_pharaoh(aligner.align(source, target));
      } catch (const Error& e) {
        problem = e.what();
      }
    }
    if (!problem.empty()) std::cerr << "attn align: line " << n + 1 << ": " << problem << "; writing an empty line\n";
    std::cout << '\n';
    progress.update(n + 1);
  }
  return 0;
}

int translate(const Arguments& a) {
  const RnnModel model = load_model(a.model.empty() ? models_directory() + "/" + default_forward : a.model);
  const std::vector<std::string> lines = read_lines(a.input);
  Progress progress(lines.size(), "translating");
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::vector<std::string> words = split_words(lines[n]);
    if (words.empty() || words.size() > 1000) {
      std::cerr << "attn translate: line " << n + 1 << ": " << (words.empty() ? "empty" : "more than 1000 words")
                << "; writing an empty line\n";
    } else {
      try {
        std::cout << translate_words(model, words, a.beam).text;
      } catch (const Error& e) {
        std::cerr << "attn translate: line " << n + 1 << ": " << e.what() << "\n";
      }
    }
    std::cout << '\n';
    progress.update(n + 1);
  }
  return 0;
}

// Gold lines are Pharaoh links ("s-t" sure, "s?t" possible), or XL-WA's source<TAB>target<TAB>links.
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
void read_corpus(const Arguments& a, const char* command, std::vector<Sentence>& source, std::vector<Sentence>& target) {
  if (a.source.empty() || a.target.empty() || a.output.empty()) fail("usage: attn ", command, " -s SOURCE -t TARGET -o FILE");
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
  const std::string bytes = aligner.serialize(a.min_probability < 0.0f ? 1e-5f : a.min_probability);
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
  HmmAligner aligner;
  aligner.train(source, target, options);
  const std::string bytes = aligner.serialize(a.min_probability < 0.0f ? 1e-4f : a.min_probability);
  write_file(a.output, bytes);
  const auto jumps = [](const HmmModel& model) {
    std::ostringstream out;
    for (float c : model.jump()) out << ' ' << std::lround(c * 1000);
    return out.str();
  };
  std::cerr << "trained on " << source.size() << " pairs; jump distribution (per mille, -" << aligner.forward().max_jump() << " .. +"
            << aligner.forward().max_jump() << "):" << jumps(aligner.forward()) << " /" << jumps(aligner.backward()) << "; wrote "
            << a.output << " (" << bytes.size() << " bytes)\n";
  return 0;
}

void usage() {
  std::cerr << "usage:\n"
               "  attn align [-m MODEL] [-r REVERSE_MODEL] [--method M] [--shift] [--threshold X] [--ibm2 FILE]\n"
               "             [--statistical ibm2|hmm] [--hmm FILE] [--statistical-weight W] [--mix linear|geometric]\n"
               "             [--symmetrize grow-diag-final-and|posterior] [--posterior-threshold X] [--viterbi] [-i FILE]\n"
               "  attn translate [-m MODEL] [--beam N] [-i FILE]\n"
               "  attn aer GOLD PREDICTED\n"
               "  attn ibm2-train -s SOURCE -t TARGET -o FILE [--min-probability P]\n"
               "  attn hmm-train -s SOURCE -t TARGET -o FILE [--min-probability P] [--iterations N] [--null-probability P]\n"
               "methods: ibm2 (the statistical baseline, --ibm2 FILE), hmm (the HMM aligner alone, --hmm FILE),";
  for (const std::string& name : align_method_names()) std::cerr << ' ' << name;
  std::cerr << " (default " << default_method << ")\nmodels: " << models_directory() << " (set ATTN_MODELS to change)\n";
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
    const Arguments arguments = parse(argc, argv, 2);
    if (command == "align") return align(arguments);
    if (command == "translate") return translate(arguments);
    if (command == "aer") return aer(arguments);
    if (command == "ibm2-train") return ibm2_train(arguments);
    if (command == "hmm-train") return hmm_train(arguments);
    std::cerr << "attn: unknown command '" << command << "'\n";
    usage();
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "attn " << command << ": " << e.what() << "\n";
    return 1;
  }
}
