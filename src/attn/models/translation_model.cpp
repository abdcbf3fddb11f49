#include "attn/models/translation_model.hpp"

#include <utility>

#include "attn/core/error.hpp"
#include "attn/models/internal/words.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/text.hpp"

namespace attn {

const char* to_string(Architecture architecture) {
  return architecture == Architecture::transformer ? "transformer" : "rnn";
}

namespace {

// The piece texts of ids, then `end` (the special token the model appends).
std::vector<std::string> piece_texts(const Bpe& bpe, const std::vector<int>& ids, const char* end) {
  std::vector<std::string> texts;
  for (int id : ids) texts.push_back(bpe.piece(id));
  texts.emplace_back(end);
  return texts;
}

// One (layer, head) map of [layers][heads][rows][cols].
const float* map_at(const std::vector<float>& maps, int heads, int layer, int head, int rows, int cols) {
  return maps.data() + ((static_cast<std::size_t>(layer) * heads + head) * rows) * cols;
}

// Every (layer, head) map of [count][heads][rows][cols] as words.
std::vector<float> word_maps(const std::vector<float>& maps, int count, int heads, int rows, int cols,
                             const std::vector<int>& row_word_of, int row_words, const std::vector<int>& col_word_of,
                             int col_words) {
  std::vector<float> words;
  words.reserve(static_cast<std::size_t>(count) * heads * row_words * col_words);
  for (int l = 0; l < count; ++l) {
    for (int h = 0; h < heads; ++h) {
      const std::vector<float> map = detail::word_map(map_at(maps, heads, l, h, rows, cols), rows, cols, row_word_of,
                                                      row_words, col_word_of, col_words);
      words.insert(words.end(), map.begin(), map.end());
    }
  }
  return words;
}

// The alignment head's rows of cross-attention [steps][L_d][h][S] as [steps][S].
std::vector<float> alignment_rows(const TransformerModel& model, const std::vector<float>& per_step, int steps, int S) {
  const TransformerArchitecture& a = model.architecture();
  std::vector<float> rows(static_cast<std::size_t>(steps) * S);
  for (int t = 0; t < steps; ++t) {
    const float* from =
        per_step.data() +
        ((static_cast<std::size_t>(t) * a.decoder_layers + a.alignment_layer) * a.heads + a.alignment_head) * S;
    std::copy(from, from + S, rows.begin() + static_cast<std::size_t>(t) * S);
  }
  return rows;
}

std::string join(const std::vector<std::string>& names, const char* separator) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : separator) + name;
  return out;
}

}  // namespace

TranslationModel TranslationModel::load(std::string bytes) { return load(SafeTensors::parse(std::move(bytes))); }

TranslationModel TranslationModel::load(const SafeTensors& file) {
  const auto found = file.metadata().find("format");
  const std::string format = found == file.metadata().end() ? "" : found->second;
  if (format == "attnscope-transformer-v1") return TransformerModel::load(file);
  if (format == "attnscope-rnn-v1" || format.empty()) return RnnModel::load(file);  // which names what is missing
  fail("not a translation model: format '", format, "' (expected attnscope-rnn-v1 or attnscope-transformer-v1)");
}

TranslationModel::TranslationModel(RnnModel model) : rnn_(std::make_shared<const RnnModel>(std::move(model))) {}

TranslationModel::TranslationModel(TransformerModel model)
    : transformer_(std::make_shared<const TransformerModel>(std::move(model))) {}

int TranslationModel::layers() const { return transformer_ ? transformer_->architecture().decoder_layers : 1; }
int TranslationModel::heads() const { return transformer_ ? transformer_->architecture().heads : 1; }
int TranslationModel::encoder_layers() const { return transformer_ ? transformer_->architecture().encoder_layers : 0; }

const Bpe& TranslationModel::tokenizer() const { return transformer_ ? transformer_->tokenizer() : rnn_->tokenizer(); }

std::string TranslationModel::metadata_value(const std::string& key) const {
  return transformer_ ? transformer_->metadata_value(key) : rnn_->metadata_value(key);
}

bool TranslationModel::multilingual() const { return transformer_ && !transformer_->language_tags().empty(); }

std::vector<std::string> TranslationModel::languages() const {
  std::vector<std::string> out;
  if (!multilingual()) return out;
  out.emplace_back("en");
  for (const auto& [language, id] : transformer_->language_tags())
    if (language != "en") out.push_back(language);
  return out;
}

TranslationModel TranslationModel::for_target(const std::string& language) const {
  if (!multilingual()) {
    const std::string own = metadata_value("target_language");
    if (!own.empty() && language != own) fail("this model translates into '", own, "' only, not '", language, "'");
    return *this;
  }
  if (transformer_->language_tags().count(language) == 0)
    fail("this multilingual model does not write '", language, "' (it writes: ", join(languages(), ", "), ")");
  TranslationModel model = *this;
  model.target_ = language;
  return model;
}

std::string TranslationModel::target_language() const {
  return multilingual() ? target_ : metadata_value("target_language");
}

int TranslationModel::start_id() const {
  if (!multilingual()) return Bpe::start_id;
  if (target_.empty())
    fail("this model is multilingual: choose the language to translate into (", join(languages(), ", "), ")");
  return transformer_->language_tags().at(target_);
}

WordAttention align_words(const TranslationModel& model, const std::vector<std::string>& source_words,
                          const std::vector<std::string>& target_words, bool shift, bool with_log_prob) {
  detail::check_words(source_words, "source");
  detail::check_words(target_words, "target");
  const Pieces source = detail::encode_given_words(model.tokenizer(), source_words);
  const Pieces target = detail::encode_given_words(model.tokenizer(), target_words);
  const int S = static_cast<int>(source.ids.size()) + 1, T = static_cast<int>(target.ids.size()) + 1;
  std::vector<float> pieces;  // the alignment attention [T][S]
  double log_prob = 0.0;
  if (model.rnn()) {
    // attention alone skips the output layer, most of a decoder step's work
    const RnnModel& rnn = *model.rnn();
    pieces = rnn.force(rnn.encode(source.ids), target.ids, with_log_prob ? &log_prob : nullptr);
  } else {
    const TransformerModel& transformer = *model.transformer();
    const TransformerArchitecture& a = transformer.architecture();
    // without the sentence's probability, the decoder stops at the alignment head's layer
    const TransformerModel::Forced forced = transformer.force(
        source.ids, target.ids, with_log_prob, with_log_prob ? 0 : a.alignment_layer + 1, model.start_id());
    const float* head = map_at(forced.cross, a.heads, a.alignment_layer, a.alignment_head, T, S);
    pieces.assign(head, head + static_cast<std::size_t>(T) * S);
    log_prob = forced.log_prob;
    shift = shift || a.alignment_shift != 0;  // a head trained on the shifted rows is always read there
  }
  WordAttention words = detail::aggregate(pieces, S, source.word_of_piece, static_cast<int>(source_words.size()),
                                          target.word_of_piece, static_cast<int>(target_words.size()), shift);
  words.source_words = nfc(source_words);  // as the pieces were encoded
  words.target_words = nfc(target_words);
  words.log_prob = log_prob;
  return words;
}

namespace {

// A translation's pieces with its attention at every step: the alignment attention [steps][S]
// and, for a Transformer, every cross-attention map, [layers][heads][steps][S] (an RNN's one map
// is its alignment attention).
struct PieceTranslation {
  std::vector<int> ids;
  std::vector<float> alignment, cross;
  int layers = 1, heads = 1;
  double log_prob = 0.0;
  bool shifted = false;  // the alignment rows are read where a piece is the decoder's input
};

PieceTranslation translate_pieces(const TranslationModel& model, const std::vector<int>& source_ids, int S, int beam) {
  PieceTranslation out;
  if (model.rnn()) {
    const RnnModel& rnn = *model.rnn();
    RnnModel::Translation translation = rnn.translate(rnn.encode(source_ids), beam);
    out.ids = std::move(translation.ids);
    out.alignment = std::move(translation.attention);
    out.log_prob = translation.log_prob;
    return out;
  }
  const TransformerModel& transformer = *model.transformer();
  const TransformerArchitecture& a = transformer.architecture();
  TransformerModel::Translation translation =
      transformer.translate(transformer.encode(source_ids), beam, 0, model.start_id());
  const int steps =
      static_cast<int>(translation.cross.size() / (static_cast<std::size_t>(a.decoder_layers) * a.heads * S));
  out.ids = std::move(translation.ids);
  out.alignment = alignment_rows(transformer, translation.cross, steps, S);
  // every layer's and head's rows, [steps][L][h][S] as [L][h][steps][S]
  out.cross.resize(translation.cross.size());
  for (int t = 0; t < steps; ++t) {
    for (int m = 0; m < a.decoder_layers * a.heads; ++m) {
      const float* from = translation.cross.data() + (static_cast<std::size_t>(t) * a.decoder_layers * a.heads + m) * S;
      std::copy(from, from + S, out.cross.begin() + (static_cast<std::size_t>(m) * steps + t) * S);
    }
  }
  out.layers = a.decoder_layers;
  out.heads = a.heads;
  out.log_prob = translation.log_prob;
  out.shifted = a.alignment_shift != 0;
  return out;
}

}  // namespace

WordTranslation translate_words(const TranslationModel& model, const std::vector<std::string>& source_words, int beam,
                                bool shift) {
  detail::check_words(source_words, "source");
  const Bpe& bpe = model.tokenizer();
  const Pieces source = detail::encode_given_words(bpe, source_words);
  const int S = static_cast<int>(source.ids.size()) + 1, Sw = static_cast<int>(source_words.size());
  const PieceTranslation translation = translate_pieces(model, source.ids, S, beam);
  const int steps = static_cast<int>(translation.alignment.size() / S);
  std::vector<std::string> target_words = bpe.decode_words(translation.ids);
  std::vector<int> target_word_of = bpe.word_of_pieces(translation.ids);
  const auto aggregate = [&] {
    return detail::aggregate(translation.alignment, S, source.word_of_piece, Sw, target_word_of,
                             static_cast<int>(target_words.size()), translation.shifted);
  };
  WordTranslation result;
  result.attention = aggregate();
  if (detail::restore_unknown_words(bpe, translation.ids, source, source_words, result.attention.weights, target_words,
                                    target_word_of)) {
    result.attention = aggregate();
  }
  const int Tw = static_cast<int>(target_words.size());
  result.attention.source_words = nfc(source_words);
  result.attention.target_words = target_words;
  result.attention.log_prob = translation.log_prob;
  result.layers = translation.layers;
  result.heads = translation.heads;
  result.cross = model.rnn() ? result.attention.weights
                             : word_maps(translation.cross, translation.layers, translation.heads, steps, S,
                                         shift ? detail::input_rows(target_word_of) : target_word_of, Tw,
                                         source.word_of_piece, Sw);
  for (const std::string& word : target_words) result.text += (result.text.empty() ? "" : " ") + word;
  return result;
}

AttentionMaps attention_maps(const TranslationModel& model, const std::vector<std::string>& source_words,
                             const std::vector<std::string>& target_words, bool pieces, bool with_log_probs,
                             bool shift) {
  detail::check_words(source_words, "source");
  detail::check_words(target_words, "target");
  const Bpe& bpe = model.tokenizer();
  const Pieces source = detail::encode_given_words(bpe, source_words);
  const Pieces target = detail::encode_given_words(bpe, target_words);
  const int S = static_cast<int>(source.ids.size()) + 1, T = static_cast<int>(target.ids.size()) + 1;
  const int Sw = static_cast<int>(source_words.size()), Tw = static_cast<int>(target_words.size());
  AttentionMaps maps;
  maps.layers = model.layers();
  maps.heads = model.heads();
  maps.encoder_layers = model.encoder_layers();
  std::vector<float> cross, encoder, decoder;
  std::vector<float> log_probs;  // [T]
  if (model.rnn()) {
    const RnnModel& rnn = *model.rnn();
    cross = rnn.force(rnn.encode(source.ids), target.ids, with_log_probs ? &maps.log_prob : nullptr,
                      with_log_probs ? &log_probs : nullptr);
  } else {
    TransformerModel::Forced forced =
        model.transformer()->force(source.ids, target.ids, with_log_probs, 0, model.start_id());
    cross = std::move(forced.cross);
    encoder = std::move(forced.encoder);
    decoder = std::move(forced.decoder);
    log_probs = std::move(forced.log_probs);
    maps.log_prob = forced.log_prob;
  }
  if (pieces || log_probs.empty()) {
    maps.log_probs = std::move(log_probs);
  } else {  // a word's is the sum of its pieces'; </s> last
    maps.log_probs.assign(static_cast<std::size_t>(Tw) + 1, 0.0f);
    for (int t = 0; t + 1 < T; ++t) maps.log_probs[target.word_of_piece[t]] += log_probs[t];
    maps.log_probs[Tw] = log_probs[T - 1];
  }
  if (pieces) {
    maps.source = piece_texts(bpe, source.ids, "</s>");
    maps.target = piece_texts(bpe, target.ids, "</s>");
    maps.cross = std::move(cross);
    maps.encoder = std::move(encoder);
    maps.decoder = std::move(decoder);
    return maps;
  }
  maps.source = nfc(source_words);
  maps.target = nfc(target_words);
  // the decoder's key j is its input: <s> at 0, then target piece j - 1 (and so is row j, with shift)
  const std::vector<int> input_word_of = detail::input_rows(target.word_of_piece);
  const std::vector<int>& row_word_of = shift ? input_word_of : target.word_of_piece;
  maps.cross = word_maps(cross, maps.layers, maps.heads, T, S, row_word_of, Tw, source.word_of_piece, Sw);
  maps.encoder =
      word_maps(encoder, maps.encoder_layers, maps.heads, S, S, source.word_of_piece, Sw, source.word_of_piece, Sw);
  if (!decoder.empty()) {
    maps.decoder = word_maps(decoder, maps.layers, maps.heads, T, T, row_word_of, Tw, input_word_of, Tw);
  }
  return maps;
}

}  // namespace attn
