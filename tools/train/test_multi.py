"""Tests of multi.py (the multilingual model's data, supervision and AER):

  /usr/bin/python3 -m pytest tools/train/test_multi.py      (needs python3-torch and python3-numpy)
"""
from pathlib import Path

import numpy as np

from tools.train import bpe as B, multi


def tiny_bpe():
    learned = B.learn({"the": 5, "cat": 4, "sleeps": 3, "el": 5, "gato": 4, "duerme": 3}, 280, min_char_count=1)
    return B.BPE(learned.vocab + [multi.tag("en"), multi.tag("es")], learned.merges)


def corpus_of(pairs, links):
    bpe = tiny_bpe()
    corpus = multi.Corpus(bpe)
    for (en, xx), link in zip(pairs, links):
        corpus.pairs.append((*corpus.encode(en), *corpus.encode(xx), "es"))
        corpus.links.append(np.array(link, dtype=np.int32).reshape(-1, 2))
    return corpus


def test_the_decoder_starts_from_the_target_language_tag_in_each_direction():
    corpus = corpus_of([("the cat", "el gato")], [[(0, 0), (1, 1)]])
    for to_english, tag in ((False, "es"), (True, "en")):
        _, _, target_in, target_out, _ = multi.tensors_for(corpus, [(0, to_english)])
        assert int(target_in[0, 0]) == corpus.bpe.ids[multi.tag(tag)]
        assert int(target_out[0, -1]) == B.EOS


def test_a_target_piece_attends_uniformly_to_the_pieces_of_its_linked_source_words():
    # "sleeps" may be several pieces: each piece of "duerme" spreads over all of them
    corpus = corpus_of([("the cat sleeps", "el gato duerme")], [[(0, 0), (1, 1), (2, 2), (1, 2)]])
    source, mask, target_in, target_out, gold = multi.tensors_for(corpus, [(0, False)])
    en_ids, en_words, xx_ids, xx_words, _ = corpus.pairs[0]
    for t, j in enumerate(xx_words):
        linked = {i for i, jj in [(0, 0), (1, 1), (2, 2), (1, 2)] if jj == j}
        expected = np.array([1.0 if en_words[s] in linked else 0.0 for s in range(len(en_ids))])
        assert np.array_equal(gold[0, t, :len(en_ids)].numpy(), expected), (t, gold[0, t])
        assert float(gold[0, t, len(en_ids)]) == 0.0  # never </s>
    assert float(gold[0, len(xx_ids)].sum()) == 0.0  # the </s> row is unsupervised
    # the other direction: the same links, transposed
    _, _, _, _, back = multi.tensors_for(corpus, [(0, True)])
    for t, i in enumerate(en_words):
        linked = {j for ii, j in [(0, 0), (1, 1), (2, 2), (1, 2)] if ii == i}
        expected = np.array([1.0 if xx_words[s] in linked else 0.0 for s in range(len(xx_ids))])
        assert np.array_equal(back[0, t, :len(xx_ids)].numpy(), expected)


def test_with_shift_a_target_piece_is_supervised_where_it_is_the_decoder_input():
    corpus = corpus_of([("the cat sleeps", "el gato duerme")], [[(0, 0), (1, 1), (2, 2)]])
    *_, gold = multi.tensors_for(corpus, [(0, False)])
    *_, shifted = multi.tensors_for(corpus, [(0, False)], shift=1)
    xx_len = len(corpus.pairs[0][2])
    assert float(shifted[0, 0].sum()) == 0.0  # the row of the language tag aligns nothing
    assert np.array_equal(shifted[0, 1:xx_len + 1].numpy(), gold[0, :xx_len].numpy())
    assert float(gold[0, :xx_len].sum()) > 0


def test_word_attention_averages_a_words_rows_and_sums_its_columns():
    # two source words of 1 and 2 pieces, then </s>; two target words of 2 and 1 pieces, then </s>
    pieces = np.array([[0.1, 0.2, 0.3, 0.4],
                       [0.3, 0.3, 0.2, 0.2],
                       [0.5, 0.1, 0.1, 0.3],
                       [0.0, 0.0, 0.0, 1.0]])
    words = multi.word_attention(pieces, [0, 1, 1], [0, 0, 1], 2, 2)
    assert np.allclose(words, [[0.2, 0.5, 0.3], [0.5, 0.2, 0.3]]), words


def test_aer_counts_a_possible_link_as_correct_and_recall_against_sure_ones():
    predicted = {(0, 0), (1, 1), (2, 2)}
    sure, possible = {(0, 0)}, {(0, 0), (1, 1)}
    counts = [multi.aer(predicted, sure, possible)]
    # 1 - (|A∩S| + |A∩P|) / (|A| + |S|) = 1 - (1 + 2) / (3 + 1)
    assert abs(multi.score(counts) - 0.25) < 1e-12


def test_europarl_gold_reads_possible_links_written_ipj():
    # a gold file in europarl-gold's format, in a folder of its own: the test needs no ../shared
    import tempfile
    saved = multi.SHARED
    with tempfile.TemporaryDirectory() as folder:
        multi.SHARED = Path(folder)
        try:
            (multi.SHARED / "europarl-gold" / "fr").mkdir(parents=True)
            multi.gold_path("fr").write_text("the cat\tle chat\t0-0 1-1\n"
                                             "the old cat sleeps\tle vieux chat dort\t0-0 2-2 3-3 1p1\n"
                                             "yes\toui\t0-0\n" "no\tnon\t0-0\n", encoding="utf-8")
            gold = multi.read_gold("fr", limit=3)
        finally:
            multi.SHARED = saved
    assert len(gold) == 3
    _, _, sure, possible = gold[1]  # "... 1p1" in the file's second line
    assert (1, 1) in possible and (1, 1) not in sure and sure <= possible and (3, 3) in sure


def test_encoding_in_worker_processes_gives_what_encoding_here_gives():
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "a.en").write_text("the cat sleeps\nthe cat\n", encoding="utf-8")
        (folder / "a.es").write_text("el gato duerme\nel gato\n", encoding="utf-8")
        (folder / "a.align").write_text("0-0 1-1 2-2\n0-0\n", encoding="utf-8")
        (folder / "b.en").write_text("cat\n", encoding="utf-8")
        (folder / "b.es").write_text("gato\n", encoding="utf-8")
        jobs = [(folder / "a.en", folder / "a.es", "es", folder / "a.align"), (folder / "b.en", folder / "b.es", "es")]
        here, there = multi.Corpus(tiny_bpe()), multi.Corpus(tiny_bpe())
        assert [list(r) for r in here.add_many(jobs, 1)] == [list(r) for r in there.add_many(jobs, 2)] == [[0, 1], [2]]
        assert here.pairs == there.pairs
        assert [None if x is None else x.tolist() for x in here.links] == \
            [None if x is None else x.tolist() for x in there.links] == [[[0, 0], [1, 1], [2, 2]], [[0, 0]], None]


def test_batches_made_ahead_in_workers_are_the_batches_made_here_and_resume_where_the_state_says():
    import random
    from tools.train import train_multi
    corpus = corpus_of([("the cat sleeps", "el gato duerme"), ("the cat", "el gato"), ("cat", "gato")],
                       [[(0, 0), (1, 1), (2, 2)], [(0, 0), (1, 1)], [(0, 0)]])
    examples = [(i, to_en) for i in range(3) for to_en in (False, True)]

    def draw(chunk):
        rng = random.Random(chunk)
        return multi.batches(corpus, rng.sample(examples, 4), 12, rng, 100)

    def stream(state, workers, count):
        made = train_multi.batch_stream(train_multi.BatchMaker(corpus, 1), draw, state, workers)
        out = [next(made) for _ in range(count)]
        made.close()
        return [(chunk, index, [a.tolist() for a in arrays]) for chunk, index, arrays in out]

    here = stream({"chunk": 0, "batch": 0}, 0, 12)
    assert stream({"chunk": 0, "batch": 0}, 2, 12) == here
    chunk, index, _ = here[5]
    assert stream({"chunk": chunk, "batch": index}, 2, 4) == here[5:9]
    assert stream({"chunk": chunk, "batch": index}, 0, 4) == here[5:9]


def test_a_corpus_beside_the_splits_is_drawn_as_a_source_of_its_own_weighted_by_its_factor():
    from tools.train import train_multi
    factors = train_multi.corpus_factors("extra,prose:3")
    assert factors == {"extra": 1.0, "prose": 3.0}
    weights = train_multi.language_weights({"es": 400, "es:extra": 1600, "es:prose": 100, "fr": 400}, factors)
    # n^0.5 times the factor: 20, 40, 30, 20 of 110
    assert [round(weights[k] * 110, 6) for k in ("es", "es:extra", "es:prose", "fr")] == [20, 40, 30, 20]
    assert train_multi.language_weights({"es": 1, "fr": 4}) == {"es": 1 / 3, "fr": 2 / 3}
    for bad in ("train", "prose:x", ":2", "a/b"):
        try:
            train_multi.corpus_factors(bad)
        except SystemExit as error:
            assert bad in str(error)
        else:
            raise AssertionError(f"--corpora {bad} was accepted")


def test_a_language_factor_weighs_every_source_of_that_language():
    from tools.train import train_multi
    by_language = train_multi.language_factors("es:2", ["es", "fr"])
    assert by_language == {"es": 2.0}
    weights = train_multi.language_weights({"es": 400, "es:prose": 100, "fr": 400},
                                           train_multi.corpus_factors("prose:3"), by_language)
    # n^0.5 times the corpus's factor times the language's: 40, 60, 20 of 120
    assert [round(weights[k] * 120, 6) for k in ("es", "es:prose", "fr")] == [40, 60, 20]
    for bad in ("de:2", "es:x", "es:0", "es"):
        try:
            train_multi.language_factors(bad, ["es", "fr"])
        except SystemExit as error:
            assert bad in str(error)
        else:
            raise AssertionError(f"--language-factors {bad} was accepted")


def test_the_exported_record_names_the_links_the_head_learned_from(tmp_path):
    from tools.train import train_multi
    for lang in ("es", "fr"):
        (tmp_path / f"en-{lang}").mkdir()
    assert train_multi.supervision(tmp_path, ["es", "fr"]) == "hmm"  # links made before the marker
    (tmp_path / "en-es" / "supervision").write_text("hybrid\n")
    assert train_multi.supervision(tmp_path, ["es", "fr"]) == {"es": "hybrid", "fr": "hmm"}
    (tmp_path / "en-fr" / "supervision").write_text("hybrid\n")
    assert train_multi.supervision(tmp_path, ["es", "fr"]) == "hybrid"


def test_a_grown_vocabulary_keeps_the_old_rows_and_starts_new_pieces_from_their_bytes():
    import torch
    from tools.train import train_multi
    old = tiny_bpe()
    grown = B.extend(old, {"中国": 30, "中": 25}, 3, min_char_count=20, tags=[multi.tag("zh")])
    embedding = torch.randn(len(old.vocab), 4)
    bias = torch.randn(len(old.vocab))
    rows, biases = train_multi.grown_rows(embedding, bias, old, grown)
    assert rows.shape == (len(grown.vocab), 4) and torch.equal(rows[:len(old.vocab)], embedding)
    assert torch.equal(biases[:len(old.vocab)], bias) and torch.all(biases[len(old.vocab):] == bias.min())
    byte_rows = [old.ids[b] for b in old.symbols("中")[1:]]  # its three UTF-8 bytes
    assert torch.allclose(rows[grown.ids["中"]], embedding[byte_rows].mean(0))
    tags = [old.ids[multi.tag("en")], old.ids[multi.tag("es")]]
    assert torch.allclose(rows[grown.ids[multi.tag("zh")]], embedding[tags].mean(0))
    assert not torch.isnan(rows).any()



def test_a_back_translated_corpus_is_drawn_only_towards_its_human_side(tmp_path):
    from types import SimpleNamespace

    import pytest

    from tools.train import train_multi
    folder = tmp_path / "en-es"
    folder.mkdir()
    for name, en, es in (("train", "the cat sleeps\nthe cat\n", "el gato duerme\nel gato\n"),
                         ("valid", "cat\n", "gato\n"),
                         ("fortunes", "the cat\ncat sleeps\nsleeps\n", "el gato\ngato duerme\nduerme\n")):
        (folder / f"{name}.en").write_text(en, encoding="utf-8")
        (folder / f"{name}.es").write_text(es, encoding="utf-8")
    args = SimpleNamespace(data=str(tmp_path), corpora="fortunes", no_legacy=True, workers=1, language_factors=None,
                           languages="es")

    def drawn():
        _, by_key, _ = train_multi.load_corpus(args, ["es"], tiny_bpe())
        return {key: sorted({to_en for _, to_en in examples}) for key, examples in by_key.items()}

    assert drawn() == {"es": [False, True], "es:fortunes": [False, True]}
    (folder / "fortunes.synthetic").write_text("en\n", encoding="utf-8")  # the English a model wrote
    assert drawn() == {"es": [False, True], "es:fortunes": [False]}  # English -> Spanish only
    (folder / "fortunes.synthetic").write_text("es\n", encoding="utf-8")
    assert drawn() == {"es": [False, True], "es:fortunes": [True]}
    (folder / "fortunes.synthetic").write_text("fr\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="fortunes.synthetic: names 'fr'"):
        drawn()
