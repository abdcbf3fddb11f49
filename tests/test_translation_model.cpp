// TranslationModel: either architecture from the file's own metadata, and the word- and
// piece-level attention maps of both (attention_maps, align_words, translate_words), checked
// against the models' own piece-level outputs on the tiny fixtures.
#include <catch2/catch.hpp>

#include <cmath>

#include "attn/models/text.hpp"
#include "attn/models/tokenizer.hpp"
#include "attn/models/translation_model.hpp"
#include "fixtures.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

const TranslationModel& transformer() {
  static const TranslationModel model = TranslationModel::load(read_file("tiny-transformer.safetensors"));
  return model;
}

const TranslationModel& rnn() {
  static const TranslationModel model = TranslationModel::load(read_file("tiny-additive.safetensors"));
  return model;
}

// "cat" and "gato" take several pieces in the fixtures' vocabulary, so words and pieces differ.
const std::vector<std::string> source{"the", "cat", "sleeps", "."};
const std::vector<std::string> target{"el", "gato", "duerme", "."};

const float* map_of(const std::vector<float>& maps, int heads, int layer, int head, int rows, int cols) {
  return maps.data() + ((std::size_t(layer) * heads + head) * rows) * cols;
}

}  // namespace

TEST_CASE("TranslationModel reads the architecture from the file", "[translation_model]") {
  CHECK(transformer().architecture() == Architecture::transformer);
  CHECK(std::string(to_string(transformer().architecture())) == "transformer");
  CHECK(transformer().layers() == transformer().transformer()->architecture().decoder_layers);
  CHECK(transformer().heads() == transformer().transformer()->architecture().heads);
  CHECK(transformer().encoder_layers() == transformer().transformer()->architecture().encoder_layers);
  CHECK(transformer().rnn() == nullptr);
  CHECK(rnn().architecture() == Architecture::rnn);
  CHECK(rnn().layers() == 1);
  CHECK(rnn().heads() == 1);
  CHECK(rnn().encoder_layers() == 0);
  CHECK(rnn().transformer() == nullptr);
  CHECK_THROWS_WITH(TranslationModel::load("not a model"), Contains("safetensors") || Contains("header"));
  CHECK_THROWS_WITH(TranslationModel::load(read_file("tiny-hmm.safetensors")),
                    Contains("attnscope-rnn-v1") && Contains("attnscope-transformer-v1"));
}

TEST_CASE("piece-level maps are the model's own: rows sum to 1, decoder self-attention causal",
          "[translation_model][transformer]") {
  const TransformerModel& model = *transformer().transformer();
  const AttentionMaps maps = attention_maps(transformer(), source, target, true);
  const Pieces source_pieces = model.tokenizer().encode(source), target_pieces = model.tokenizer().encode(target);
  const int S = int(source_pieces.ids.size()) + 1, T = int(target_pieces.ids.size()) + 1;
  REQUIRE(int(maps.source.size()) == S);
  REQUIRE(int(maps.target.size()) == T);
  CHECK(maps.source.back() == "</s>");
  CHECK(maps.target.back() == "</s>");
  CHECK(maps.source[0] == model.tokenizer().piece(source_pieces.ids[0]));
  const TransformerModel::Forced forced = model.force(source_pieces.ids, target_pieces.ids, false);
  CHECK(maps.cross == forced.cross);
  CHECK(maps.encoder == forced.encoder);
  CHECK(maps.decoder == forced.decoder);
  const int H = maps.heads;
  for (int l = 0; l < maps.layers; ++l) {
    for (int h = 0; h < H; ++h) {
      for (int t = 0; t < T; ++t) {
        double cross = 0.0, self = 0.0;
        for (int s = 0; s < S; ++s) cross += map_of(maps.cross, H, l, h, T, S)[t * S + s];
        for (int u = 0; u < T; ++u) {
          const float w = map_of(maps.decoder, H, l, h, T, T)[t * T + u];
          self += w;
          if (u > t) CHECK(w == 0.0f);
        }
        CHECK(cross == Approx(1.0).margin(1e-5));
        CHECK(self == Approx(1.0).margin(1e-5));
      }
    }
  }
}

TEST_CASE("word-level maps: a word's row is the mean of its pieces' rows, its column their sum",
          "[translation_model][transformer]") {
  const Bpe& bpe = transformer().tokenizer();
  const AttentionMaps pieces = attention_maps(transformer(), source, target, true);
  const AttentionMaps words = attention_maps(transformer(), source, target, false);
  CHECK(words.source == source);
  CHECK(words.target == target);
  const Pieces sp = bpe.encode(source), tp = bpe.encode(target);
  REQUIRE(sp.ids.size() > source.size());  // the fixture splits a word, or this test proves little
  const int S = int(sp.ids.size()) + 1, T = int(tp.ids.size()) + 1, Sw = 4, Tw = 4, H = words.heads;
  REQUIRE(words.cross.size() == std::size_t(words.layers) * H * Tw * Sw);
  REQUIRE(words.encoder.size() == std::size_t(words.encoder_layers) * H * Sw * Sw);
  REQUIRE(words.decoder.size() == std::size_t(words.layers) * H * Tw * Tw);
  const int layer = words.layers - 1, head = H - 1;
  const float* cross_pieces = map_of(pieces.cross, H, layer, head, T, S);
  const float* decoder_pieces = map_of(pieces.decoder, H, layer, head, T, T);
  for (int tw = 0; tw < Tw; ++tw) {
    for (int sw = 0; sw < Sw; ++sw) {
      double sum = 0.0;
      int rows = 0;
      for (int t = 0; t + 1 < T; ++t) {
        if (tp.word_of_piece[t] != tw) continue;
        ++rows;
        for (int s = 0; s + 1 < S; ++s)
          if (sp.word_of_piece[s] == sw) sum += cross_pieces[t * S + s];
      }
      CHECK(map_of(words.cross, H, layer, head, Tw, Sw)[tw * Sw + sw] == Approx(sum / rows).margin(1e-6));
    }
    for (int uw = 0; uw < Tw; ++uw) {  // the decoder's key u is its input: <s>, then target piece u - 1
      double sum = 0.0;
      int rows = 0;
      for (int t = 0; t + 1 < T; ++t) {
        if (tp.word_of_piece[t] != tw) continue;
        ++rows;
        for (int u = 1; u < T; ++u)
          if (tp.word_of_piece[u - 1] == uw) sum += decoder_pieces[t * T + u];
      }
      CHECK(map_of(words.decoder, H, layer, head, Tw, Tw)[tw * Tw + uw] == Approx(sum / rows).margin(1e-6));
    }
  }
}

TEST_CASE("align_words reads the alignment head; translate_words its rows while translating",
          "[translation_model][transformer]") {
  const TransformerArchitecture& a = transformer().transformer()->architecture();
  const AttentionMaps words = attention_maps(transformer(), source, target, false);
  const WordAttention aligned = align_words(transformer(), source, target);
  REQUIRE(aligned.weights.size() == 16);
  const float* head = map_of(words.cross, words.heads, a.alignment_layer, a.alignment_head, 4, 4);
  for (int i = 0; i < 16; ++i) CHECK(aligned.weights[i] == Approx(head[i]).margin(1e-6));
  for (int t = 0; t < 4; ++t) {  // with the end-of-sentence column, each target word's row sums to 1
    double total = aligned.null_weights[t];
    for (int s = 0; s < 4; ++s) total += aligned.weights[t * 4 + s];
    CHECK(total == Approx(1.0).margin(1e-5));
  }
  CHECK(align_words(transformer(), source, target, false, true).log_prob < 0.0);

  const WordTranslation translation = translate_words(transformer(), source, 2);
  const std::vector<std::string> words_out = translation.attention.target_words;
  CHECK_FALSE(translation.text.empty());
  REQUIRE(translation.attention.weights.size() == words_out.size() * source.size());
  // the attention is the alignment head's, at the steps that predicted each word's pieces
  const TransformerModel& model = *transformer().transformer();
  const Pieces sp = model.tokenizer().encode(source);
  const TransformerModel::Encoding encoding = model.encode(sp.ids);
  const TransformerModel::Translation pieces = model.translate(encoding, 2);
  const std::vector<int> word_of = model.tokenizer().word_of_pieces(pieces.ids);
  const int S = encoding.length, Sw = int(source.size()), Tw = int(words_out.size());
  std::vector<double> expected(std::size_t(Tw) * Sw, 0.0);
  std::vector<int> rows(Tw, 0);
  for (std::size_t t = 0; t < pieces.ids.size(); ++t) {
    if (word_of[t] < 0) continue;
    ++rows[word_of[t]];
    const float* row =
        pieces.cross.data() + ((t * a.decoder_layers + a.alignment_layer) * a.heads + a.alignment_head) * S;
    for (int s = 0; s + 1 < S; ++s) expected[std::size_t(word_of[t]) * Sw + sp.word_of_piece[s]] += row[s];
  }
  for (int w = 0; w < Tw; ++w)
    for (int s = 0; s < Sw; ++s) expected[std::size_t(w) * Sw + s] /= std::max(rows[w], 1);
  CHECK(testing::max_abs_difference(translation.attention.weights, expected) < 1e-6);
  // every layer's and head's map of the output, the same as forced decoding gives for the pieces
  // it produced: the alignment head's is the attention above
  REQUIRE(translation.layers == a.decoder_layers);
  REQUIRE(translation.heads == a.heads);
  REQUIRE(translation.cross.size() == std::size_t(a.decoder_layers) * a.heads * Tw * Sw);
  const float* aligning = map_of(translation.cross, a.heads, a.alignment_layer, a.alignment_head, Tw, Sw);
  for (int i = 0; i < Tw * Sw; ++i) CHECK(aligning[i] == Approx(translation.attention.weights[i]).margin(1e-6));
  std::vector<int> forced_ids(pieces.ids.begin(), pieces.ids.end() - 1);  // force() appends </s>
  const TransformerModel::Forced forced = model.force(encoding, forced_ids, false);
  const int T = int(pieces.ids.size());
  for (int l = 0; l < a.decoder_layers; ++l) {
    for (int h = 0; h < a.heads; ++h) {
      const float* got = map_of(translation.cross, a.heads, l, h, Tw, Sw);
      const float* rows_of = map_of(forced.cross, a.heads, l, h, T, S);
      for (int w = 0; w < Tw; ++w) {
        for (int s = 0; s < Sw; ++s) {
          double sum = 0.0;
          for (int t = 0; t < T; ++t) {
            if (word_of[t] != w) continue;
            for (int p = 0; p + 1 < S; ++p) sum += sp.word_of_piece[p] == s ? rows_of[t * S + p] : 0.0f;
          }
          CHECK(got[w * Sw + s] == Approx(sum / rows[w]).margin(1e-5));
        }
      }
    }
  }

  // the RNN behind the same interface gives what it gives alone
  const WordAttention rnn_words = align_words(rnn(), source, target);
  CHECK(rnn_words.weights == align_words(*rnn().rnn(), source, target).weights);
  const WordTranslation rnn_translation = translate_words(rnn(), source, 2);
  CHECK(rnn_translation.layers == 1);
  CHECK(rnn_translation.heads == 1);
  CHECK(rnn_translation.cross == rnn_translation.attention.weights);
  const AttentionMaps rnn_maps = attention_maps(rnn(), source, target, false);
  CHECK(rnn_maps.layers == 1);
  CHECK(rnn_maps.heads == 1);
  CHECK(rnn_maps.encoder.empty());
  CHECK(rnn_maps.decoder.empty());
  CHECK(testing::max_abs_difference(rnn_maps.cross, rnn_words.weights) < 1e-6);
  CHECK_THROWS_WITH(attention_maps(transformer(), {}, target), Contains("source sentence is empty"));
}

TEST_CASE("a translation writes characters outside the vocabulary as the input has them, never broken text",
          "[translation_model]") {
  const TranslationModel model =
      TranslationModel::load(read_file("../../models/multilingual-transformer.safetensors"))  // shipped
          .for_target("es");
  const auto shows = [](const std::string& text) { return printable_utf8(text) == text; };
  for (const std::string& sentence :
       {std::string("I \xE2\x9D\xA4\xEF\xB8\x8F \xF0\x9F\x8D\x95 ."), std::string("\xF0\x9F\x93\x81"),
        std::string("Save the file \xF0\x9F\x93\x81 .")}) {
    const WordTranslation translated = translate_words(model, split_words(sentence));
    INFO(sentence << " -> " << translated.text);
    CHECK(shows(translated.text));
    CHECK(translated.text.find("\xE2\x82\xAC") == std::string::npos);  // "€" for a folder
    const std::size_t words = translated.attention.target_words.size();
    CHECK(translated.attention.weights.size() == words * translated.attention.source_words.size());
    for (const std::string& word : translated.attention.target_words) CHECK(!word.empty());
  }
  // the words the model tried to spell in bytes are the input's own, as typed
  const WordTranslation heart = translate_words(model, split_words("I \xE2\x9D\xA4\xEF\xB8\x8F \xF0\x9F\x8D\x95 ."));
  CHECK(heart.text.find("\xE2\x9D\xA4\xEF\xB8\x8F \xF0\x9F\x8D\x95") != std::string::npos);
  // "\xF0\x9F" + "u" (a malformed start of the folder, then a piece of text) is such an attempt too
  CHECK(translate_words(model, split_words("\xF0\x9F\x93\x81")).text == "\xF0\x9F\x93\x81");
}
