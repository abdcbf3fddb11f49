"""Tests of translation.py's chrF and its paired bootstrap.

    /usr/bin/python3 -m pytest tools/eval/test_translation.py
"""
import unittest

from tools.eval import translation as T


class Chrf(unittest.TestCase):
    def test_a_perfect_translation_scores_100_and_an_empty_one_0(self):
        self.assertAlmostEqual(T.chrf(["the cat sleeps"], ["the cat sleeps"]), 100.0)
        self.assertEqual(T.chrf([""], ["the cat sleeps"]), 0.0)

    def test_corpus_chrf_sums_the_statistics_of_its_sentences(self):
        hypotheses, references = ["the cat sleep", "a dog"], ["the cat sleeps", "the dog barks"]
        stats = [T.sentence_stats(h, r) for h, r in zip(hypotheses, references)]
        self.assertAlmostEqual(T.chrf(hypotheses, references), T.chrf_of(T.summed(stats)))
        self.assertLess(T.chrf(hypotheses, references), 100.0)
        # spaces do not count (sacrebleu's chrF): one character bigram "tc" joins the words
        self.assertEqual(T.sentence_stats("the cat", "thecat"), T.sentence_stats("thecat", "thecat"))

    def test_the_paired_bootstrap_prefers_the_better_system_and_never_a_tie(self):
        references = [f"sentence number {i} about cats" for i in range(40)]
        good = [T.sentence_stats(r, r) for r in references]
        bad = [T.sentence_stats(r[: len(r) // 2], r) for r in references]
        self.assertEqual(T.paired_bootstrap([good], [bad], resamples=200), 1.0)
        self.assertEqual(T.paired_bootstrap([bad], [good], resamples=200), 0.0)
        self.assertEqual(T.paired_bootstrap([good], [good], resamples=200), 0.0)  # equal is not better
        # pooled over two directions: the mean of both decides
        self.assertEqual(T.paired_bootstrap([good, good], [bad, good], resamples=200), 1.0)


if __name__ == "__main__":
    unittest.main()
