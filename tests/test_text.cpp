// Unicode text (attn/models/text.hpp): NFC, case folding and the UTF-8 decoder, and what they
// promise at the entry points: NFD and NFC text give the same words, pieces and links, whether the
// tokenizer, the attention models or the statistical aligners read them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/hmm.hpp"
#include "attn/align/ibm2.hpp"
#include "attn/core/threads.hpp"
#include "attn/models/rnn.hpp"
#include "attn/models/text.hpp"
#include "fixtures.hpp"

using namespace attn;

namespace {

const std::string fffd = "\xEF\xBF\xBD";  // U+FFFD

// decomposed: é = e + U+0301, ñ = n + U+0303, й = и + U+0306, ё = е + U+0308
const std::string nfd_ecole =
                      "E\xCC\x81"
                      "COLE",
                  nfd_pequena =
                      "peque"
                      "n\xCC\x83"
                      "a";

}  // namespace

TEST_CASE("NFC composes decomposed text and returns ASCII as it is", "[text]") {
  CHECK(nfc("e\xCC\x81"
            "cole") == "école");
  CHECK(nfc(nfd_pequena) == "pequeña");
  CHECK(nfc("\xE1\x84\x80\xE1\x85\xA1") == "가");  // Hangul jamo compose too
  CHECK(nfc("Fokker, 3.5%") == "Fokker, 3.5%");
  CHECK(nfc("") == "");
  CHECK(nfc("Straße") == "Straße");  // NFC keeps ß; only case folding expands it
  CHECK(nfc(std::vector<std::string>{"se\xCC\x81", "ya"}) == std::vector<std::string>{"sé", "ya"});
}

TEST_CASE("the Penn Treebank's bracket and quote escapes read back as brackets and quotes", "[text]") {
  CHECK(treebank_unescaped(std::vector<std::string>{"-LRB-", "Reporter", "-RRB-", "``", "Yes", "''", "-LSB-", "-RSB-",
                                                    "-LCB-", "-RCB-"}) ==
        std::vector<std::string>{"(", "Reporter", ")", "\"", "Yes", "\"", "[", "]", "{", "}"});
  // only the whole escapes: other words, lowercase look-alikes and a dash word stay as they are
  for (const std::string word : {"-lrb-", "-LRB", "LRB", "--", "`", "'", "a-LRB-", "", "（"})
    CHECK(treebank_unescaped(word) == word);
}

TEST_CASE("Cyrillic and Latin diacritics survive NFC and case folding", "[text]") {
  CHECK(case_folded("ИВАН") == "иван");
  CHECK(case_folded("ЖИВОТЪТ Е ХУБАВ") == "животът е хубав");  // Bulgarian
  CHECK(case_folded("ЁЛКА") == "ёлка");                        // Russian
  CHECK(case_folded("\xD0\x98\xCC\x86"
                    "ОРДАН") == "йордан");  // Й in NFD: И + U+0306
  CHECK(case_folded("\xD0\x95\xCC\x88"
                    "ЛКА") == "ёлка");  // Ё in NFD
  CHECK(case_folded("ÉCOLE") == "école");
  CHECK(case_folded(nfd_ecole) == "école");
  CHECK(case_folded("PEQUEÑA") == "pequeña");
  CHECK(case_folded("Straße") == "strasse");  // full case folding: ß and SS meet
  CHECK(case_folded("STRASSE") == "strasse");
  CHECK(case_folded("ΟΔΥΣΣΕΥΣ") == case_folded("οδυσσευς"));  // final sigma folds to σ
  CHECK(case_folded("HeLLo 42") == "hello 42");
  CHECK(case_folded(std::vector<std::string>{"ИВАН", "É"}) == std::vector<std::string>{"иван", "é"});
}

TEST_CASE("every language of the shipped pairs keeps its letters through tokenization, NFC and case folding",
          "[text][pairs]") {
  struct Alphabet {
    const char *language, *upper, *lower;
  };
  // the letters beyond ASCII of each language beside English (models/pairs.json), capital and small
  const Alphabet alphabets[] = {
      {"bg", "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЬЮЯ", "абвгдежзийклмнопрстуфхцчшщъьюя"},
      {"da", "ÆØÅÉ", "æøåé"},
      {"es", "ÁÉÍÓÚÜÑ", "áéíóúüñ"},
      {"et", "ÕÄÖÜŠŽ", "õäöüšž"},
      {"hu", "ÁÉÍÓÖŐÚÜŰ", "áéíóöőúüű"},
      {"it", "ÀÈÉÌÍÎÒÓÙÚ", "àèéìíîòóùú"},
      {"nl", "ÁÉÈËÏÓÖÜ", "áéèëïóöü"},
      {"pt", "ÁÂÃÀÇÉÊÍÓÔÕÚ", "áâãàçéêíóôõú"},
      {"ru", "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ", "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"},
      {"sl", "ČŠŽĆĐ", "čšžćđ"},
  };
  for (const Alphabet& alphabet : alphabets) {
    INFO(alphabet.language);
    const std::string upper = alphabet.upper, lower = alphabet.lower;
    CHECK(nfc(upper) == upper);  // already composed: NFC leaves every letter as it is
    CHECK(nfc(lower) == lower);
    CHECK(case_folded(upper) == lower);
    CHECK(case_folded(lower) == lower);
    // a word of them stays one word between punctuation, and whitespace splitting keeps it whole
    CHECK(split_words("«" + upper + lower + "», " + lower + ".") ==
          std::vector<std::string>{"«", upper + lower, "»", ",", lower, "."});
    CHECK(split_on_spaces(upper + " " + lower) == std::vector<std::string>{upper, lower});
  }
}

TEST_CASE("printable text keeps what shows and drops malformed bytes, controls and separators", "[text]") {
  CHECK(printable_utf8("\xF0\x9F\x93\x81") == "\xF0\x9F\x93\x81");  // U+1F4C1, a folder
  CHECK(printable_utf8("\xE2\x82\xAC") == "\xE2\x82\xAC");          // U+20AC, the euro sign
  CHECK(printable_utf8("\xE2\x80\x8B") == "");                      // U+200B zero width space (Cf)
  CHECK(printable_utf8("\xE2\x80\xA8") == "");                      // U+2028 line separator (Zl)
  CHECK(printable_utf8("\xE2\x80\xA9\x07\x1B") == "");              // U+2029 (Zp), BEL, ESC (Cc)
  CHECK(printable_utf8("\xEE\x80\x80") == "");                      // U+E000 private use
  CHECK(printable_utf8(fffd + "a\xF0\x9F" + "b\xFF") == "ab");      // U+FFFD itself, truncated, invalid
  // the emoji joiner (Cf) and the variation selector (Mn) stay: a ZWJ sequence keeps its meaning
  const std::string technologist = "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB", heart = "\xE2\x9D\xA4\xEF\xB8\x8F";
  CHECK(printable_utf8(technologist) == technologist);
  CHECK(printable_utf8(heart) == heart);
  CHECK(printable_utf8("caf\xC3\xA9 \t") == "caf\xC3\xA9 ");  // a space shows, a tab is a control
}

TEST_CASE("invalid UTF-8 becomes U+FFFD, one byte at a time", "[text]") {
  CHECK(valid_utf8("a\xFF"
                   "b") == "a" + fffd + "b");
  CHECK(valid_utf8("\xE2\x82") == fffd + fffd);                        // truncated
  CHECK(valid_utf8("\xC0\xAF") == fffd + fffd);                        // overlong '/'
  CHECK(valid_utf8("\xED\xA0\x80") == fffd + fffd + fffd);             // a surrogate
  CHECK(valid_utf8("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);  // beyond U+10FFFF
  CHECK(valid_utf8("\x80"
                   "é") == fffd + "é");                    // a stray continuation byte, then valid text
  CHECK(nfc("e\xFF\xCC\x81") == "e" + fffd + "\xCC\x81");  // the mark after the bad byte stays apart
  CHECK(case_folded("\xC3"
                    "A") == fffd + "a");
  std::size_t position = 0;
  CHECK(next_code_point(fffd, position) == replacement_character);  // a real U+FFFD is three bytes
  CHECK(position == 3);
  position = 0;
  CHECK(next_code_point("\xFF", position) == replacement_character);
  CHECK(position == 1);
  CHECK(split_on_spaces("a\xFF b") == std::vector<std::string>{"a" + fffd, "b"});
}

TEST_CASE("word characters are letters, marks and numbers; spaces are what Python's isspace accepts", "[text]") {
  for (char32_t c : {U'a', U'Z', U'7', U'é', U'\u0301', U'ж', U'ß', U'日', U'\u0663', U'½', U'\U00031350'}) {
    INFO(static_cast<unsigned>(c));
    CHECK(is_word_char(c));
    CHECK_FALSE(is_space(c));
  }
  for (char32_t c : {U'-', U'\'', U'%', U'€', U'«', U'\u200B', U'\u00AD', U'\U0001F642'}) {
    INFO(static_cast<unsigned>(c));
    CHECK_FALSE(is_word_char(c));
    CHECK_FALSE(is_space(c));
  }
  for (char32_t c : {U' ', U'\t', U'\n', U'\x1C', U'\x1F', U'\u0085', U'\u00A0', U'\u1680', U'\u2007', U'\u2028',
                     U'\u2029', U'\u3000'}) {
    INFO(static_cast<unsigned>(c));
    CHECK(is_space(c));
    CHECK_FALSE(is_word_char(c));
  }
  // letters (what a compound's parts are made of) are the word characters without the numbers
  for (char32_t c : {U'a', U'Z', U'é', U'ő', U'\u0301', U'ж', U'ß', U'日'}) CHECK(is_letter(c));
  for (char32_t c : {U'7', U'\u0663', U'½', U'-', U' ', U'\u00AD', U'\U0001F642'}) CHECK_FALSE(is_letter(c));
}

TEST_CASE("the tokenizer gives NFD text the NFC words and pieces of NFC text", "[text][tokenizer]") {
  const std::string composed = "¿Dónde está la estación? Ёлка, école, pequeña.";
  const std::string decomposed =
      "¿Do\xCC\x81nde esta\xCC\x81 la estacio\xCC\x81n? \xD0\x95\xCC\x88лка, e\xCC\x81"
      "cole, " +
      nfd_pequena + ".";
  REQUIRE(decomposed != composed);
  CHECK(split_words(decomposed) == split_words(composed));
  CHECK(split_words(composed)[1] == "Dónde");
  CHECK(split_on_spaces(decomposed) == split_on_spaces(composed));
  const RnnModel model = RnnModel::load(read_file("tiny-additive.safetensors"));
  CHECK(model.tokenizer().encode_word(nfd_pequena) == model.tokenizer().encode_word("pequeña"));
  const WordAttention words = align_words(model, {"the", "house"},
                                          {"la",
                                           "peque"
                                           "n\xCC\x83"
                                           "a"});
  CHECK(words.target_words[1] == "pequeña");  // words come back as they were encoded
}

TEST_CASE("NFD and NFC words give identical links from align_pair and the statistical aligners", "[text][hmm][ibm2]") {
  const TranslationModel forward = RnnModel::load(read_file("tiny-additive.safetensors"));
  const TranslationModel reverse = RnnModel::load(read_file("tiny-general.safetensors"));
  const HmmAligner hmm = HmmAligner::deserialize(read_file("tiny-hmm.safetensors"));
  const Ibm2Aligner ibm2 = Ibm2Aligner::deserialize(read_file("tiny-ibm2.safetensors"));
  const Sentence source = {"the", "red", "house", "is", "small", "."};
  const Sentence composed = {"la", "casa", "roja", "es", "pequeña", "."};
  const Sentence decomposed = {"la", "casa", "roja", "es", nfd_pequena, "."};
  const Sentence shouted = {"LA",
                            "CASA",
                            "ROJA",
                            "ES",
                            "PEQUEN\xCC\x83"
                            "A",
                            "."};  // NFD and upper case

  // the NFD word is the vocabulary's word, not an unknown one
  const int id = hmm.forward().lexicon().target_id("pequeña");
  CHECK(id > 0);
  CHECK(hmm.forward().lexicon().target_id(nfd_pequena) == id);
  CHECK(ibm2.forward().lexicon().target_id(nfd_pequena) == ibm2.forward().lexicon().target_id("pequeña"));

  CHECK(hmm.align(source, decomposed) == hmm.align(source, composed));
  CHECK(hmm.align(source, shouted) == hmm.align(source, composed));  // the fixture folds case
  CHECK(hmm.posteriors(source, decomposed) == hmm.posteriors(source, composed));
  CHECK(hmm.align(source, decomposed, Symmetrization::posterior_mean, 0.35f) ==
        hmm.align(source, composed, Symmetrization::posterior_mean, 0.35f));
  CHECK(hmm.forward().viterbi(source, decomposed) == hmm.forward().viterbi(source, composed));
  CHECK(ibm2.align(source, decomposed) == ibm2.align(source, composed));
  CHECK(ibm2.posteriors(source, decomposed) == ibm2.posteriors(source, composed));

  const AlignmentModels models{&forward, &reverse, &hmm};
  for (const AlignMethod method :
       {AlignMethod::argmax, AlignMethod::grow_diag_final_and, AlignMethod::hybrid, AlignMethod::hmm}) {
    INFO(to_string(method));
    AlignOptions options;
    options.method = method;
    const PairAlignment nfc_pair = align_pair(models, source, composed, options);
    const PairAlignment nfd_pair = align_pair(models, source, decomposed, options);
    CHECK(nfd_pair.links == nfc_pair.links);
    CHECK(nfd_pair.forward.weights == nfc_pair.forward.weights);
    CHECK(nfd_pair.forward.target_words == nfc_pair.forward.target_words);
  }
}

TEST_CASE("an HMM trained on Cyrillic aligns upper-case and NFD input like its lower-case NFC training text",
          "[text][hmm]") {
  // Bulgarian -> English; й appears decomposed (и + U+0306) in one sentence of the corpus
  const std::vector<Sentence> source = {{"иван", "чете", "книга"},
                                        {"мария", "чете", "писмо"},
                                        {"иван", "пише", "писмо"},
                                        {"мария", "пише", "книга"},
                                        {"\xD0\xB8\xCC\x86"
                                         "ордан",
                                         "чете", "книга"},
                                        {"йордан", "пише", "писмо"}};
  const std::vector<Sentence> target = {{"ivan", "reads", "a", "book"},    {"maria", "reads", "a", "letter"},
                                        {"ivan", "writes", "a", "letter"}, {"maria", "writes", "a", "book"},
                                        {"yordan", "reads", "a", "book"},  {"yordan", "writes", "a", "letter"}};
  HmmAligner aligner;
  aligner.train(source, target);
  CHECK(aligner.forward().lexicon().source_vocabulary.count("йордан") == 1);  // one word, not two spellings
  CHECK(aligner.forward().lexicon().source_vocabulary.size() == 7);
  const Sentence english = {"yordan", "writes", "a", "book"};
  const Alignment expected = aligner.align({"йордан", "пише", "книга"}, english);
  CHECK(aligner.align({"ЙОРДАН", "ПИШЕ", "КНИГА"}, english) == expected);
  CHECK(aligner.align({"\xD0\x98\xCC\x86"
                       "ОРДАН",
                       "Пише", "книга"},
                      english) == expected);
  CHECK(aligner.posteriors({"\xD0\x98\xCC\x86"
                            "ОРДАН",
                            "ПИШЕ", "КНИГА"},
                           english) == aligner.posteriors({"йордан", "пише", "книга"}, english));
  CHECK(std::find(expected.begin(), expected.end(), Link{0, 0}) != expected.end());  // йордан - yordan
}

TEST_CASE("words are split into user-perceived characters: emoji sequences and flags stay whole", "[text][tokenizer]") {
  const std::string heart = "\xE2\x9D\xA4\xEF\xB8\x8F";  // ❤ + VS16
  const std::string family =
      "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7";  // 👨‍👩‍👧
  const std::string flag = "\xF0\x9F\x87\xAA\xF0\x9F\x87\xB8";                     // 🇪🇸
  CHECK(split_words("I " + heart + " my " + family + " .") == std::vector<std::string>{"I", heart, "my", family, "."});
  CHECK(split_words(flag + flag) == std::vector<std::string>{flag, flag});
  CHECK(split_words("\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD!") ==  // 👍🏽 (a skin-tone modifier) then !
        std::vector<std::string>{"\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD", "!"});
  // words are as before: apostrophes inside words, punctuation on its own, marks with their letter
  CHECK(split_words("don't l'homme, 'quoted'") ==
        std::vector<std::string>{"don't", "l'homme", ",", "'", "quoted", "'"});
  // numbers as the language writes them: a comma or point between two digits stays inside
  CHECK(split_words("1,250 km, 3.14 and 1.000.000.") ==
        std::vector<std::string>{"1,250", "km", ",", "3.14", "and", "1.000.000", "."});
  CHECK(split_words("page 5. 7,a .5 5,") ==
        std::vector<std::string>{"page", "5", ".", "7", ",", "a", ".", "5", "5", ","});
  CHECK(split_words("the na\xC3\xAFve caf\xC3\xA9-bar") ==
        std::vector<std::string>{"the", "na\xC3\xAFve", "caf\xC3\xA9", "-", "bar"});
}

TEST_CASE("a word's kept pieces are its pieces merged afresh, past the cap and on two threads", "[text][tokenizer]") {
  // encode_word keeps each word's pieces; another load of the model has nothing kept, so it merges
  // every word afresh. Past words_kept words the kept ones are dropped, and the words are still right.
  const RnnModel kept = RnnModel::load(read_file("tiny-additive.safetensors"));
  const RnnModel fresh = RnnModel::load(read_file("tiny-additive.safetensors"));
  const Bpe& bpe = kept.tokenizer();
  const std::vector<std::string> words{"pequeña", nfd_pequena, "école", nfd_ecole, "Ёлка", "house", "the", "\xFF"};
  for (const std::string& word : words) CHECK(bpe.encode_word(word) == fresh.tokenizer().encode_word(word));
  for (const std::string& word : words) CHECK(bpe.encode_word(word) == fresh.tokenizer().encode_word(word));
  for (std::size_t i = 0; i < Bpe::words_kept + 10; ++i) bpe.encode_word("w" + std::to_string(i));
  for (const std::string& word : words) CHECK(bpe.encode_word(word) == fresh.tokenizer().encode_word(word));
  CHECK(bpe.encode_word("w7") == fresh.tokenizer().encode_word("w7"));
  std::vector<std::vector<int>> want;
  for (const std::string& word : words) want.push_back(fresh.tokenizer().encode_word(word));
  std::atomic<int> wrong{0};
  auto encode_all = [&](int offset) {
    for (int round = 0; round < 300; ++round)
      for (std::size_t w = 0; w < words.size(); ++w) {
        const std::string word = round % 3 ? words[w] : words[w] + std::to_string(round + offset);
        if (round % 3 ? bpe.encode_word(word) != want[w] : bpe.encode_word(word).empty()) ++wrong;
      }
  };
  if (threads_supported()) {  // a WebAssembly build without threads has one
    std::thread other(encode_all, 1000);
    encode_all(0);
    other.join();
  } else {
    encode_all(0);
  }
  CHECK(wrong == 0);
}
