// attn: the command-line tool.
//   attn align [-m MODEL] [-r REVERSE_MODEL] [--method M] [--shift] [-i FILE]
//       lines "source ||| target" (fast_align's input; words are the space-separated tokens)
//       -> one line of 0-based source-target links per pair (Pharaoh format)
//   attn translate [-m MODEL] [--beam N] [-i FILE]     one translation per line
//   attn aer GOLD PREDICTED                              AER, precision, recall
//   attn ibm2-train -s SOURCE -t TARGET -o FILE [--min-probability P]
//       trains the statistical baseline (IBM Model 2 + fast_align's diagonal prior, both directions)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/aligner.hpp"
#include "attn/error.hpp"
#include "attn/ibm2.hpp"

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
// The method with the lowest AER on the XL-WA dev set (models/MODEL_CARD.md).
const char* const default_method = "hybrid";

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
  std::string model, reverse, method = default_method, input, ibm2, source, target, output;
  float min_probability = 1e-5f;
  float statistical_weight = 0.7f;  // the best of 0.3 / 0.5 / 0.7 on xl-wa-es-dev (models/MODEL_CARD.md)
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

// The pair's links by the chosen method: attention models, or the statistical baseline.
class PairAligner {
 public:
  explicit PairAligner(const Arguments& a) {
    const std::string directory = models_directory();
    if (a.method == "ibm2") {
      ibm2_ = std::make_unique<Ibm2Aligner>(Ibm2Aligner::deserialize(read_file(a.ibm2.empty() ? directory + "/" + default_ibm2 : a.ibm2)));
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
      ibm2_for_hybrid_ = std::make_unique<Ibm2Aligner>(
          Ibm2Aligner::deserialize(read_file(a.ibm2.empty() ? directory + "/" + default_ibm2 : a.ibm2)));
      options_.statistical = ibm2_for_hybrid_.get();
      options_.statistical_weight = a.statistical_weight;
    }
  }
  Alignment align(const std::vector<std::string>& source, const std::vector<std::string>& target) const {
    if (ibm2_) return ibm2_->align(source, target);
    return align_pair(*forward_, reverse_.get(), source, target, options_).links;
  }

 private:
  AlignOptions options_;
  std::unique_ptr<RnnModel> forward_, reverse_;
  std::unique_ptr<Ibm2Aligner> ibm2_, ibm2_for_hybrid_;
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

int ibm2_train(const Arguments& a) {
  if (a.source.empty() || a.target.empty() || a.output.empty()) fail("usage: attn ibm2-train -s SOURCE -t TARGET -o FILE");
  const std::vector<std::string> source_lines = read_lines(a.source), target_lines = read_lines(a.target);
  if (source_lines.size() != target_lines.size()) fail(a.source, " and ", a.target, " differ in length");
  std::vector<Sentence> source, target;
  for (std::size_t k = 0; k < source_lines.size(); ++k) {
    source.push_back(split_on_spaces(source_lines[k]));
    target.push_back(split_on_spaces(target_lines[k]));
  }
  Ibm2Aligner aligner;
  aligner.train(source, target);
  const std::string bytes = aligner.serialize(a.min_probability);
  std::ofstream out(a.output, std::ios::binary);
  if (!out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()))) fail("cannot write ", a.output);
  std::cerr << "trained on " << source.size() << " pairs; tension " << aligner.forward().tension() << " / "
            << aligner.backward().tension() << "; wrote " << a.output << " (" << bytes.size() << " bytes)\n";
  return 0;
}

void usage() {
  std::cerr << "usage:\n"
               "  attn align [-m MODEL] [-r REVERSE_MODEL] [--method M] [--shift] [--threshold X] [--ibm2 FILE]\n"
               "             [--statistical-weight W] [-i FILE]\n"
               "  attn translate [-m MODEL] [--beam N] [-i FILE]\n"
               "  attn aer GOLD PREDICTED\n"
               "  attn ibm2-train -s SOURCE -t TARGET -o FILE [--min-probability P]\n"
               "methods: ibm2 (the statistical baseline, --ibm2 FILE)";
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
    std::cerr << "attn: unknown command '" << command << "'\n";
    usage();
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "attn " << command << ": " << e.what() << "\n";
    return 1;
  }
}
