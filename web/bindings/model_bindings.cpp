// Translation models and alignment from JS: loadModel(bytes) -> a model handle with info,
// translate, align (a captioner's file: captioner_bindings.cpp's handle); plus the extraction
// methods and AER on plain matrices and Pharaoh strings.
#include <emscripten/bind.h>

#include <memory>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/statistical.hpp"
#include "attn/models/rnn.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/translation_model.hpp"
#include "captioner_bindings.hpp"
#include "js_args.hpp"

namespace attn::js {
namespace {

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

// An attention map for JS: { data: Float32Array, shape: [layers, heads, rows, cols] }.
val map(const std::vector<float>& data, int layers, int heads, int rows, int cols) {
  val result = val::object();
  result.set("data", copy_out(data));
  val shape = val::array();
  for (int size : {layers, heads, rows, cols}) shape.call<void>("push", size);
  result.set("shape", shape);
  return result;
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

val alignment_result(const WordAttention& words, const Alignment& links) {
  val result = word_attention(words);
  result.set("links", link_array(links));
  result.set("pharaoh", to_pharaoh(links));
  return result;
}

// A named JS option parsed by the library's own parser (methods.hpp names the known values).
template <class Parse>
auto named(const val& options, const char* name, const char* fallback, Parse parse) {
  try {
    return parse(string(options, name, fallback));
  } catch (const Error& e) {
    fail(name, ": ", e.what());
  }
}

// The JS options of every alignment, over the library's defaults. JS names: statisticalWeight,
// mix, symmetrize, posteriorThreshold (`threshold` for a statistical aligner alone), shift, threshold,
// attachArticles, mutualBest (the hybrid's).
AlignOptions align_options(const val& options, bool statistical_alone) {
  AlignOptions settings;
  if (absent(options)) return settings;
  const AlignDefaults& d = align_defaults;
  const char* posterior_name = statistical_alone ? "threshold" : "posteriorThreshold";
  settings.symmetrization = named(options, "symmetrize", to_string(d.symmetrization), parse_symmetrization);
  settings.posterior_threshold = static_cast<float>(number(options, posterior_name, d.posterior_threshold));
  if (!(settings.posterior_threshold > 0.0f && settings.posterior_threshold <= 1.0f)) {
    fail(posterior_name, " must be in (0, 1], got ", settings.posterior_threshold);
  }
  settings.attach_articles = boolean(options, "attachArticles", false);
  if (statistical_alone) return settings;
  settings.method = named(options, "method", to_string(AlignOptions().method), parse_align_method);
  settings.mix = named(options, "mix", to_string(d.mix), parse_mix);
  settings.statistical_weight = static_cast<float>(number(options, "statisticalWeight", d.statistical_weight));
  if (!(settings.statistical_weight >= 0.0f && settings.statistical_weight <= 1.0f)) {
    fail("statisticalWeight must be in [0, 1], got ", settings.statistical_weight);
  }
  settings.shift = boolean(options, "shift", false);
  settings.mutual_best = boolean(options, "mutualBest", false);
  settings.threshold = static_cast<float>(number(options, "threshold", d.threshold));
  return settings;
}

// A statistical aligner, for comparison with attention and as the hybrid's statistical part:
// IBM Model 2 with fast_align's prior, or the HMM aligner, told apart by the file's format.
class StatisticalAligner {
 public:
  explicit StatisticalAligner(std::string bytes) : model_(load_statistical_aligner(std::move(bytes))) {}

  // options: { symmetrize: 'grow-diag-final-and' | 'posterior', threshold, attachArticles }
  val align(val source, val target, val options) const {
    return guarded([&] {
      if (!absent(options)) check_options(options, "aligner.align", {"symmetrize", "threshold", "attachArticles"});
      AlignOptions settings = align_options(options, true);
      settings.method = model_->kind() == StatisticalKind::hmm ? AlignMethod::hmm : AlignMethod::ibm2;
      const PairAlignment pair = align_pair({nullptr, nullptr, model_.get()}, sentence(source, "source"),
                                            sentence(target, "target"), settings);
      return alignment_result(pair.forward, pair.links);
    });
  }

  std::string kind() const { return to_string(model_->kind()); }
  const StatisticalModel& model() const { return *model_; }

 private:
  std::shared_ptr<const StatisticalModel> model_;
};

class Model {
 public:
  explicit Model(TranslationModel model) : model_(std::make_shared<TranslationModel>(std::move(model))) {}

  // The file's metadata (the tokenizer left out), then the architecture: 'rnn' or 'transformer',
  // its layers and heads of cross-attention, and its sizes.
  val info() const {
    val info = val::object();
    const std::map<std::string, std::string>& metadata =
        model_->rnn() ? model_->rnn()->metadata() : model_->transformer()->metadata();
    for (const auto& [key, value] : metadata) {
      if (key != "tokenizer" && key != "architecture") info.set(key, value);
    }
    info.set("architecture", std::string(to_string(model_->architecture())));
    // a multilingual model: its languages (English first) and the one it now writes ('' until
    // forTarget chooses)
    if (model_->multilingual()) {
      info.set("languages", string_array(model_->languages()));
      info.set("targetLanguage", model_->target_language());
    }
    info.set("layers", model_->layers());
    info.set("heads", model_->heads());
    info.set("encoderLayers", model_->encoder_layers());
    if (const RnnModel* rnn = model_->rnn()) {
      const RnnArchitecture& a = rnn->architecture();
      info.set("embeddingDim", a.embedding_dim);
      info.set("encoderHidden", a.encoder_hidden);
      info.set("decoderHidden", a.decoder_hidden);
      info.set("attentionDim", a.attention_dim);
      info.set("vocabSize", a.vocab_size);
    } else {
      const TransformerArchitecture& a = model_->transformer()->architecture();
      info.set("modelDim", a.model_dim);
      info.set("ffDim", a.ff_dim);
      info.set("vocabSize", a.vocab_size);
      info.set("alignmentLayer", a.alignment_layer);
      info.set("alignmentHead", a.alignment_head);
      info.set("alignmentShift", a.alignment_shift);
    }
    return info;
  }

  // The same model (weights shared) writing `language`: a multilingual model's target, or, for a
  // model of one direction, its own target language. Errors name the languages it writes.
  val for_target(val language) const {
    return guarded([&] {
      if (!language.isString()) fail("forTarget needs a language code (a string)");
      return val(Model(model_->for_target(language.as<std::string>())));
    });
  }

  // options: { pieces, logProbs, shift }. Every map of a forced decoding: { source, target, cross,
  // encoder, decoder }, each map { data: Float32Array, shape: [layers, heads, rows, cols] } (the
  // RNN's encoder and decoder have 0 layers); with logProbs also { logProbs: Float32Array, one per
  // target entry and then </s> (by pieces the target ends with </s>: one per entry), logProb }.
  val attentions(val source, val target, val options) const {
    return guarded([&] {
      bool pieces = false, log_probs = false, shift = false;
      if (!absent(options)) {
        check_options(options, "attentions", {"pieces", "logProbs", "shift"});
        pieces = boolean(options, "pieces", false);
        log_probs = boolean(options, "logProbs", false);
        shift = boolean(options, "shift", false);
      }
      const AttentionMaps maps =
          attention_maps(*model_, sentence(source, "source"), sentence(target, "target"), pieces, log_probs, shift);
      const int S = static_cast<int>(maps.source.size()), T = static_cast<int>(maps.target.size());
      val result = val::object();
      result.set("source", string_array(maps.source));
      result.set("target", string_array(maps.target));
      result.set("cross", map(maps.cross, maps.layers, maps.heads, T, S));
      result.set("encoder", map(maps.encoder, maps.encoder_layers, maps.heads, S, S));
      result.set("decoder", map(maps.decoder, maps.decoder.empty() ? 0 : maps.layers, maps.heads, T, T));
      if (log_probs) {
        result.set("logProbs", copy_out(maps.log_probs));
        result.set("logProb", maps.log_prob);
      }
      return result;
    });
  }

  val translate(val text, val options) const {
    return guarded([&] {
      int beam = 4;
      bool shift = false;
      if (!options.isUndefined()) {
        check_options(options, "translate", {"beam", "shift"});
        beam = integer(options, "beam", 4);
        shift = boolean(options, "shift", false);
      }
      const WordTranslation translation = translate_words(*model_, sentence(text, "text"), beam, shift);
      val result = word_attention(translation.attention);
      result.set("text", translation.text);
      result.set("logProb", translation.attention.log_prob);
      result.set("cross", map(translation.cross, translation.layers, translation.heads,
                              static_cast<int>(translation.attention.target_words.size()),
                              static_cast<int>(translation.attention.source_words.size())));
      return result;
    });
  }

  // options: { method, reverse, statistical, statisticalWeight, mix, symmetrize, posteriorThreshold, shift, threshold,
  //            attachArticles, mutualBest }
  val align(val source, val target, val options) const {
    return guarded([&] {
      AlignmentModels models;
      models.forward = model_.get();
      if (!absent(options)) {
        check_options(options, "align",
                      {"method", "reverse", "statistical", "statisticalWeight", "mix", "symmetrize",
                       "posteriorThreshold", "shift", "threshold", "attachArticles", "mutualBest"});
        if (has(options, "reverse"))
          models.reverse = options["reverse"].as<const Model*>(emscripten::allow_raw_pointers())->model_.get();
        if (has(options, "statistical")) {
          models.statistical =
              &options["statistical"].as<const StatisticalAligner*>(emscripten::allow_raw_pointers())->model();
        }
      }
      const AlignOptions settings = align_options(options, false);
      if (!needs_model(settings.method))
        fail("method '", to_string(settings.method), "' is a statistical aligner's: use aligner.align");
      const PairAlignment pair = align_pair(models, sentence(source, "source"), sentence(target, "target"), settings);
      val result = alignment_result(pair.forward, pair.links);
      if (!pair.backward.weights.empty()) result.set("reverseWeights", copy_out(pair.backward.weights));
      return result;
    });
  }

 private:
  std::shared_ptr<const TranslationModel> model_;
};

val load_statistical_aligner(val bytes) {
  return guarded([&] { return val(StatisticalAligner(file_bytes(bytes))); });
}

// A translation model's handle, or a captioner's for an attnscope-captioner-v1 file (the file's format says).
val load_model(val bytes) {
  return guarded([&] {
    const SafeTensors file = SafeTensors::parse(file_bytes(bytes));
    const auto format = file.metadata().find("format");
    if (format != file.metadata().end() && format->second == "attnscope-captioner-v1") return captioner_handle(file);
    return val(Model(TranslationModel::load(file)));
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
    const float threshold = static_cast<float>(number(options, "threshold", align_defaults.threshold));
    Alignment links;
    if (method == "argmax")
      links = argmax_links(weights.data(), rows, cols);
    else if (method == "threshold")
      links = threshold_links(weights.data(), rows, cols, threshold);
    else if (method == "itermax")
      links = itermax_links(weights.data(), rows, cols);
    else
      fail("unknown extraction method '", method, "' (expected argmax, threshold or itermax)");
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
    if (method == "intersection")
      links = intersect(forward, backward);
    else if (method == "union")
      links = unite(forward, backward);
    else if (method == "grow-diag-final-and") {
      links = grow_diag_final_and(forward, backward, integer(options, "sourceLength", 0, true),
                                  integer(options, "targetLength", 0, true));
    } else
      fail("unknown symmetrization '", method, "' (expected intersection, union or grow-diag-final-and)");
    val result = val::object();
    result.set("links", link_array(links));
    result.set("pharaoh", to_pharaoh(links));
    return result;
  });
}

// alignmentError(predicted: string[], gold: string[]) with Pharaoh lines; gold "s?t" is possible.
val alignment_error(val predicted, val gold) {
  return guarded([&] {
    if (!predicted.isArray() || !gold.isArray())
      fail("alignmentError(predicted, gold) takes two arrays of Pharaoh strings");
    const int count = predicted["length"].as<int>();
    if (gold["length"].as<int>() != count)
      fail("predicted has ", count, " sentences, gold has ", gold["length"].as<int>());
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
      .function("forTarget", &Model::for_target)
      .function("translate", &Model::translate)
      .function("attentions", &Model::attentions)
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
