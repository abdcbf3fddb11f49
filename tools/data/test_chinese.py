"""Tests of the data pipeline's Chinese: jieba's words (tools/data/words.py), sentences, the gold set kept
out whatever its segmentation. Needs Debian's python3-jieba.

    /usr/bin/python3 -m pytest tools/data/test_chinese.py
"""
import tempfile
import unittest
from pathlib import Path

from tools.data import pairs, sentences, words


class Words(unittest.TestCase):
    def test_han_runs_are_cut_by_jieba_and_the_rest_tokenized_as_every_language(self):
        self.assertEqual(words.tokenize("我们在花园里玩。Hello, world", "zh"),
                         ["我们", "在", "花园里", "玩", "。", "Hello", ",", "world"])
        import jieba
        self.assertEqual(words.tokenize("印度尼西亚外交部发表新闻公报", "zh"),
                         jieba.lcut("印度尼西亚外交部发表新闻公报", HMM=True))

    def test_text_already_segmented_is_taken_as_given(self):
        self.assertEqual(words.tokenize("印 尼 重申 反对", "zh"), ["印", "尼", "重申", "反对"])

    def test_other_languages_and_no_language_are_not_segmented(self):
        self.assertEqual(words.tokenize("我们在花园里玩。"), ["我们在花园里玩", "。"])
        self.assertEqual(words.tokenize("l'homme 1,250", "fr"), ["l'homme", "1,250"])


class Sentences(unittest.TestCase):
    def test_chinese_sentences_end_at_full_width_marks_without_a_space(self):
        self.assertEqual(sentences.split("你好！我是学生。“对吗？”他问", "zh"), ["你好！", "我是学生。", "“对吗？”", "他问"])
        self.assertEqual(sentences.split_pair("Hello! I am a student.", "你好！我是学生。", "zh"),
                         [("Hello!", "你好！"), ("I am a student.", "我是学生。")])


class GoldSet(unittest.TestCase):
    def test_a_gold_sentence_is_kept_out_in_another_segmentation(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "dev.tsv"
            path.write_text("Indonesia reiterated its opposition\t印 尼 重申 反对\t0-0\n", encoding="utf-8")
            gold = pairs.XlWa(path, "zh")
            stats = {"non_ascii_letters": {}}
            kept = list(pairs.filtered([("x/y", "The army left .", "印尼重申反对"),
                                        ("x/y", "The army left .", "军队离开了")], gold, stats, "zh"))
        self.assertEqual(kept, [("x/y", "The army left .", "军队 离开 了")])
        self.assertEqual(stats["filters"]["x"]["dropped: sentence of the XL-WA gold set"], 1)
