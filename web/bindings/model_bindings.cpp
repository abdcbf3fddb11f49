// Translation models and alignment from JS: loadModel(bytes) -> a model handle with info,
// translate, align; plus the extraction methods and AER on plain matrices and Pharaoh strings.
#include <emscripten/bind.h>

#include <memory>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/hmm.hpp"
#include "attn/align/ibm2.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/rnn.hpp"
#include "js_args.hpp"

namespace attn::js {
namespace {

val string_array(const std::vector<std::string>& items) {
  val array = val::array();
  for (std::size_t i = 0; i < items.size(); ++i) array.set(i, items[i]);
  return array;
}

val link_array(const Alignment& links) {
  val array = val::array();
  for (std::size_t i = 0; i < links.size(); ++i) {
    val pair = val::array();
    pair.set(0, links[i].source);
    pair.set(1, links[i].target);
    array.set(i, pair);
  }
  return array;
}

// A sentence from JS: a string (split by the model's word tokenizer) or an array of words (as given).
std::vector<std::string> sentence(const val& value, const char* name) {
  std::vector<std::string> words;
  if (value.typeOf().as<std::string>() == "string") {
    words = split_words(value.as<std::string>());
  } else if (value.isArray()) {
    const int length = value["length"].as<int>();
    for (int i = 0; i < length; ++i) {
      if (value[i].typeOf().as<std::string>() != "string") fail(name, "[", i, "] must be a string");
      const std::vector<std::string> inside = split_on_spaces(value[i].as<std::string>());
      if (inside.size() != 1) fail(name, "[", i, "] must be one word without spaces");
      words.push_back(inside[0]);
    }
  } else {
    fail(name, " must be a string or an array of words");
  }
  if (words.empty()) fail(name, " has no words");
  if (words.size() > 1000) fail(name, " has ", words.size(), " words (limit 1000)");
  return words;
}

val word_attention(const WordAttention& words) {
  val result = val::object();
  result.set("sourceWords", string_array(words.source_words));
  result.set("targetWords", string_array(words.target_words));
  result.set("weights", copy_out(words.weights));
  result.set("nullWeights", copy_out(words.null_weights));
  return result;
}

// A statistical aligner, for comparison with attention and as the hybrid's statistical part:
// IBM Model 2 with fast_align's prior, or the HMM aligner, told apart by the file's format.
class StatisticalAligner {
 public:
  explicit StatisticalAligner(std::string bytes) {
    const SafeTensors file = SafeTensors::parse(std::move(bytes));
    const auto format = file.metadata().find("format");
    if (format != file.metadata().end() && format->second == "attnscope-hmm-v1") {
      hmm_ = std::make_shared<HmmAligner>(HmmAligner::from_file(file));
    } else {  // names the expected format when it is neither
      ibm2_ = std::make_shared<Ibm2Aligner>(Ibm2Aligner::from_file(file));
    }
  }

  // options (HMM only): { symmetrize: 'grow-diag-final-and' | 'posterior', threshold }
  val align(val source, val target, val options) const {
    return guarded([&] {
      const std::vector<std::string> source_words = sentence(source, "source"), target_words = sentence(target, "target");
      Symmetrization symmetrization = Symmetrization::grow_diag_final_and;
      float threshold = 0.5f;
      if (!absent(options)) {
        check_options(options, "aligner.align", {"symmetrize", "threshold"});
        if (!hmm_ && (has(options, "symmetrize") || has(options, "threshold"))) {
          fail("symmetrize and threshold apply to the HMM aligner; IBM Model 2 uses grow-diag-final-and");
        }
        const std::string name = string(options, "symmetrize", "grow-diag-final-and");
        if (name == "posterior") symmetrization = Symmetrization::posterior_mean;
        else if (name != "grow-diag-final-and") fail("symmetrize is 'grow-diag-final-and' or 'posterior', got '", name, "'");
        threshold = static_cast<float>(number(options, "threshold", 0.5));
        if (!(threshold > 0.0f && threshold <= 1.0f)) fail("threshold must be in (0, 1], got ", threshold);
      }
      const Alignment links = hmm_ ? hmm_->align(source_words, target_words, symmetrization, threshold)
                                   : ibm2_->align(source_words, target_words);
      val result = val::object();
      result.set("sourceWords", string_array(source_words));
      result.set("targetWords", string_array(target_words));
      result.set("weights", copy_out(hmm_ ? hmm_->posteriors(source_words, target_words) : ibm2_->posteriors(source_words, target_words)));
      result.set("links", link_array(links));
      result.set("pharaoh", to_pharaoh(links));
      return result;
    });
  }

  std::string kind() const { return hmm_ ? "hmm" : "ibm2"; }
  const StatisticalModel& model() const { return hmm_ ? static_cast<const StatisticalModel&>(*hmm_) : *ibm2_; }

 private:
  std::shared_ptr<const Ibm2Aligner> ibm2_;
  std::shared_ptr<const HmmAligner> hmm_;
};

class Model {
 public:
  explicit Model(RnnModel model) : model_(std::make_shared<RnnModel>(std::move(model))) {}

  val info() const {
    val info = val::object();
    for (const auto& [key, value] : model_->metadata()) {
      if (key != "tokenizer") info.set(key, value);
    }
    const RnnArchitecture& a = model_->architecture();
    info.set("embeddingDim", a.embedding_dim);
    info.set("encoderHidden", a.encoder_hidden);
    info.set("decoderHidden", a.decoder_hidden);
    info.set("attentionDim", a.attention_dim);
    info.set("vocabSize", a.vocab_size);
    return info;
  }

  val translate(val text, val options) const {
    return guarded([&] {
      int beam = 4;
      if (!options.isUndefined()) {
        check_options(options, "translate", {"beam"});
        beam = integer(options, "beam", 4);
      }
      const WordTranslation translation = translate_words(*model_, sentence(text, "text"), beam);
      val result = word_attention(translation.attention);
      result.set("text", translation.text);
      result.set("logProb", translation.attention.log_prob);
      return result;
    });
  }

  val align(val source, val target, val options) const {
    return guarded([&] {
      AlignOptions settings;
      const Model* reverse = nullptr;
      if (!options.isUndefined()) {
        check_options(options, "align", {"method", "reverse", "statistical", "statisticalWeight", "mix",
                                         "posteriorThreshold", "shift", "threshold"});
        settings.method = parse_align_method(string(options, "method", "argmax"));
        settings.shift = boolean(options, "shift", false);
        settings.threshold = static_cast<float>(number(options, "threshold", 0.3));
        if (has(options, "reverse")) reverse = options["reverse"].as<const Model*>(emscripten::allow_raw_pointers());
        if (has(options, "statistical")) {
          settings.statistical = &options["statistical"].as<const StatisticalAligner*>(emscripten::allow_raw_pointers())->model();
        }
        settings.statistical_weight = static_cast<float>(number(options, "statisticalWeight", 0.5));
        const std::string mix = string(options, "mix", "linear");
        if (mix != "linear" && mix != "geometric") fail("mix is 'linear' or 'geometric', got '", mix, "'");
        settings.geometric_mix = mix == "geometric";
        // hybrid: links where the two directions' mean reaches this, instead of grow-diag-final-and
        if (has(options, "posteriorThreshold")) {
          settings.posterior_threshold = static_cast<float>(number(options, "posteriorThreshold", 0.0));
          if (!(settings.posterior_threshold > 0.0f && settings.posterior_threshold <= 1.0f)) {
            fail("posteriorThreshold must be in (0, 1], got ", settings.posterior_threshold);
          }
        }
      }
      const PairAlignment pair = align_pair(*model_, reverse ? reverse->model_.get() : nullptr, sentence(source, "source"),
                                            sentence(target, "target"), settings);
      val result = word_attention(pair.forward);
      if (!pair.backward.weights.empty()) result.set("reverseWeights", copy_out(pair.backward.weights));
      result.set("links", link_array(pair.links));
      result.set("pharaoh", to_pharaoh(pair.links));
      return result;
    });
  }

 private:
  std::shared_ptr<const RnnModel> model_;
};

val load_statistical_aligner(val bytes) {
  return guarded([&] {
    return val(StatisticalAligner(file_bytes(bytes)));
  });
}

val load_model(val bytes) {
  return guarded([&] {
    return val(Model(RnnModel::load(file_bytes(bytes))));
  });
}

// extractLinks({weights, rows, cols, method: 'argmax' | 'threshold' | 'itermax', threshold})
val extract_links(val options) {
  return guarded([&] {
    check_options(options, "extractLinks", {"weights", "rows", "cols", "method", "threshold"});
    const int rows = integer(options, "rows", 0, true), cols = integer(options, "cols", 0, true);
    check_size("rows", rows);
    check_size("cols", cols);
    const auto weights = floats(options, "weights", element_count("weights", {rows, cols}), dims({rows, cols}));
    const std::string method = string(options, "method", "argmax");
    Alignment links;
    if (method == "argmax") links = argmax_links(weights.data(), rows, cols);
    else if (method == "threshold") links = threshold_links(weights.data(), rows, cols, static_cast<float>(number(options, "threshold", 0.3)));
    else if (method == "itermax") links = itermax_links(weights.data(), rows, cols);
    else fail("unknown extraction method '", method, "' (expected argmax, threshold or itermax)");
    val result = val::object();
    result.set("links", link_array(links));
    result.set("pharaoh", to_pharaoh(links));
    return result;
  });
}

// symmetrize({forward, backward, sourceLength, targetLength, method}) on Pharaoh strings
val symmetrize(val options) {
  return guarded([&] {
    check_options(options, "symmetrize", {"forward", "backward", "sourceLength", "targetLength", "method"});
    const Alignment forward = parse_pharaoh(string(options, "forward", ""));
    const Alignment backward = parse_pharaoh(string(options, "backward", ""));
    const std::string method = string(options, "method", "grow-diag-final-and");
    Alignment links;
    if (method == "intersection") links = intersect(forward, backward);
    else if (method == "union") links = unite(forward, backward);
    else if (method == "grow-diag-final-and") {
      links = grow_diag_final_and(forward, backward, integer(options, "sourceLength", 0, true), integer(options, "targetLength", 0, true));
    } else fail("unknown symmetrization '", method, "' (expected intersection, union or grow-diag-final-and)");
    val result = val::object();
    result.set("links", link_array(links));
    result.set("pharaoh", to_pharaoh(links));
    return result;
  });
}

// alignmentError(predicted: string[], gold: string[]) with Pharaoh lines; gold "s?t" is possible.
val alignment_error(val predicted, val gold) {
  return guarded([&] {
    if (!predicted.isArray() || !gold.isArray()) fail("alignmentError(predicted, gold) takes two arrays of Pharaoh strings");
    const int count = predicted["length"].as<int>();
    if (gold["length"].as<int>() != count) fail("predicted has ", count, " sentences, gold has ", gold["length"].as<int>());
    AlignmentScore score;
    for (int i = 0; i < count; ++i) {
      if (predicted[i].typeOf().as<std::string>() != "string" || gold[i].typeOf().as<std::string>() != "string") {
        fail("sentence ", i, ": links must be Pharaoh strings such as '0-0 1-2'");
      }
      Alignment possible;
      const Alignment sure = parse_pharaoh(gold[i].as<std::string>(), &possible);
      score.add(parse_pharaoh(predicted[i].as<std::string>()), sure, possible);
    }
    val result = val::object();
    result.set("aer", score.aer());
    result.set("precision", score.precision());
    result.set("recall", score.recall());
    return result;
  });
}

}  // namespace
}  // namespace attn::js

EMSCRIPTEN_BINDINGS(models) {
  using namespace attn::js;
  emscripten::class_<Model>("Model")
      .function("info", &Model::info)
      .function("translate", &Model::translate)
      .function("align", &Model::align);
  emscripten::class_<StatisticalAligner>("StatisticalAligner")
      .function("align", &StatisticalAligner::align)
      .function("kind", &StatisticalAligner::kind);
  emscripten::function("loadModel", &load_model);
  emscripten::function("loadStatisticalAligner", &load_statistical_aligner);
  emscripten::function("extractLinks", &extract_links);
  emscripten::function("symmetrize", &symmetrize);
  emscripten::function("alignmentError", &alignment_error);
}
