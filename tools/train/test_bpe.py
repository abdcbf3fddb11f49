"""Tests of the subword vocabulary: /usr/bin/python3 -m pytest tools/train/test_bpe.py."""
import collections

from tools.data.words import tokenize
from tools.train import bpe as B

CORPUS = """
The lower house voted on the new budget on Tuesday .
La cámara baja votó el nuevo presupuesto el martes .
José and María went to Málaga with their neighbours .
José y María fueron a Málaga con sus vecinos .
Lower the volume , then open the newest file .
Baje el volumen y luego abra el archivo más nuevo .
""" * 5


def tiny_bpe(vocab_size=330):
    counts = collections.Counter(w for line in CORPUS.splitlines() for w in tokenize(line))
    return B.learn(counts, vocab_size, min_char_count=1), counts


def hand_made(merges, chars):
    vocab = B.SPECIALS + B.BYTES + [B.MARKER] + list(chars)
    for left, right in merges:
        if left + right not in vocab:
            vocab.append(left + right)
    return B.BPE(vocab, merges)


def test_the_lowest_ranked_pair_is_merged_first_not_the_leftmost():
    bpe = hand_made([("▁", "l"), ("o", "w"), ("▁l", "ow"), ("e", "r")], "lower")
    # ▁ l o w e r -> ▁l o w e r -> ▁l ow e r -> ▁low e r (rank 2 beats (e, r) at rank 3) -> ▁low er
    assert bpe.encode_word("lower") == ["▁low", "er"]


def test_equal_ranks_merge_leftmost_first():
    bpe = hand_made([("a", "a")], "a")
    assert bpe.encode_word("aaa") == ["▁", "aa", "a"]
    assert bpe.encode_word("aaaa") == ["▁", "aa", "aa"]


def test_every_word_starts_with_the_marker_piece():
    bpe, counts = tiny_bpe()
    for word in counts:
        assert bpe.encode_word(word)[0].startswith(B.MARKER), word


def test_names_with_accents_and_unseen_characters_roundtrip():
    bpe, _ = tiny_bpe()
    sentences = [
        "José Martínez-Núñez visited Málaga and Łódź in 2019.",
        "Ærøskøbing, Ångström, naïve café, Dvořák, Nguyễn, Şişli",
        "Zoë's co-worker said «¡hola!» — 🙂 東京 Ελλάδα",
        "a literal marker ▁ and a <0x41> lookalike and <s> and </s>",
        "l'homme d’accord O'Neill don't",
    ]
    for sentence in sentences:
        words = tokenize(sentence)
        ids = bpe.encode(words)
        assert all(0 <= i < len(bpe.vocab) for i in ids)
        assert bpe.decode(ids) == words, (bpe.decode(ids), words)


def test_unseen_characters_fall_back_to_utf8_bytes_not_unknown():
    bpe, _ = tiny_bpe()
    assert bpe.encode_word("Ł") == ["▁", "<0xC5>", "<0x81>"]
    assert bpe.encode_word("▁") == ["▁", "<0xE2>", "<0x96>", "<0x81>"]  # typed marker: bytes
    assert "<unk>" not in bpe.vocab


def test_word_starts_map_each_piece_to_its_word():
    bpe, _ = tiny_bpe()
    words = tokenize("Málaga, Łódź and José")
    ids = bpe.encode(words)
    starts = bpe.word_starts(ids)
    assert starts[0] == 0 and starts[-1] == len(words) - 1
    assert starts == sorted(starts)
    for index, word in enumerate(words):
        pieces = [i for i, s in zip(ids, starts) if s == index]
        assert bpe.decode(pieces) == [word]


def test_learned_merges_match_a_naive_recount_of_the_specification():
    counts = collections.Counter(w for line in CORPUS.splitlines() for w in tokenize(line))
    fast = B.learn(counts, 300, min_char_count=1)
    # Naive: recount every pair of the current segmentation each round.
    segmented = {w: B.BPE(fast.vocab[:260 + len(fast.chars)], []).symbols(w) for w in counts}
    merges = []
    while len(merges) < len(fast.merges):
        pairs = collections.Counter()
        for word, symbols in segmented.items():
            for pair in zip(symbols, symbols[1:]):
                if B.mergeable(pair):
                    pairs[pair] += counts[word]
        top = max(pairs.values())
        pair = min(p for p, n in pairs.items() if n == top)
        merges.append(pair)
        bpe = hand_made(merges, fast.chars)
        segmented = {w: bpe.encode_word(w) for w in counts}
    assert merges == fast.merges


def test_merging_to_exhaustion_makes_every_repeated_word_one_piece():
    bpe, counts = tiny_bpe(vocab_size=100000)  # stops when no pair occurs twice
    for word in counts:  # every corpus word occurs at least five times
        assert bpe.encode_word(word) == [B.MARKER + word], (word, bpe.encode_word(word))


def test_json_roundtrip_keeps_the_encoding():
    bpe, _ = tiny_bpe()
    again = B.BPE.from_json(bpe.to_json())
    words = tokenize("José lowered the newest volume in Łódź")
    assert again.encode(words) == bpe.encode(words)
    assert again.vocab == bpe.vocab and again.merges == bpe.merges


def test_user_perceived_characters_stay_whole_as_in_the_cpp_tokenizer():
    heart, family, flag = "\u2764\ufe0f", "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\U0001F1EA\U0001F1F8"
    assert tokenize(f"I {heart} my {family} .") == ["I", heart, "my", family, "."]
    assert tokenize(flag + flag) == [flag, flag]
    assert tokenize("\U0001F44D\U0001F3FD!") == ["\U0001F44D\U0001F3FD", "!"]
    assert tokenize("don't l'homme, 'quoted'") == ["don't", "l'homme", ",", "'", "quoted", "'"]
    assert tokenize("1,250 km, 3.14 and 1.000.000.") == ["1,250", "km", ",", "3.14", "and", "1.000.000", "."]
    assert tokenize("page 5. 7,a .5 5,") == ["page", "5", ".", "7", ",", "a", ".", "5", "5", ","]
    assert tokenize("the na\u00efve caf\u00e9-bar") == ["the", "na\u00efve", "caf\u00e9", "-", "bar"]


def test_special_and_byte_ids_are_fixed():
    bpe, _ = tiny_bpe()
    assert bpe.vocab[:3] == ["<pad>", "<s>", "</s>"]
    assert bpe.vocab[3] == "<0x00>" and bpe.vocab[258] == "<0xFF>" and bpe.vocab[259] == "▁"
    assert bpe.decode([B.BOS] + bpe.encode(["hola"]) + [B.EOS, B.PAD]) == ["hola"]


def test_extending_keeps_old_words_and_learns_the_new_language():
    bpe, counts = tiny_bpe()
    chinese = {"中国": 30, "中文": 25, "我们": 40, "我": 50, "爱": 30, "你": 45, "文字": 21, "龍": 5}
    grown = B.extend(bpe, chinese, 12, min_char_count=20, tags=["<2zh>"])
    assert grown.vocab[:len(bpe.vocab)] == bpe.vocab and grown.merges[:len(bpe.merges)] == bpe.merges
    assert len(grown.vocab) == len(bpe.vocab) + 12 + 1 and grown.vocab[-1] == "<2zh>"
    for word in counts:  # the old language's words: the same pieces
        assert grown.encode_word(word) == bpe.encode_word(word), word
    assert "中" in grown.chars and "字" in grown.chars and "龍" not in grown.chars  # 龍: 5 times, under 20
    assert grown.encode_word("我们") == [B.MARKER + "我们"]  # the most frequent pair, merged first
    assert grown.encode_word("龍")[1:] == ["<0xE9>", "<0xBE>", "<0x8D>"]  # rare: bytes, as before
    assert all(p not in B.BYTES_SET for p in grown.encode_word("我爱你"))
    again = B.BPE.from_json(grown.to_json())
    assert again.encode(["我们", "爱", "中文"]) == grown.encode(["我们", "爱", "中文"])

