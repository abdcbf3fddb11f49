#!/usr/bin/python3
"""Writes tests/data/zh-segmentation.jsonl: Chinese sentences and the tokens python3-jieba's
jieba.cut(text, HMM=True) gives for them, and the words the models read (tools/data/words.py's tokenize(text, "zh"),
which split the training text), one JSON object a line ({"text": ..., "words": [...], "model_words": [...]}),
which the segmenter's tests (tests/test_segmenter.cpp, tests/js/segmenter.test.mjs) compare with.

The sentences: every zh_CN message catalog of this machine (Debian bookworm's, read with gettext),
their translations that hold a Han character, 4 to 120 characters long, a fixed sample of them (by a
hash of the text, so the same catalogs give the same sample), and a few written here for the cases
the catalogs lack (Latin words, numbers, decimals, whitespace of every kind, characters outside
jieba's Han range, Han characters the HMM never saw).

usage: make_segmenter_fixture.py [COUNT] [OUTPUT]   (default 400 catalog sentences, tests/data/zh-segmentation.jsonl)
"""
import glob
import gettext
import hashlib
import json
import re
import sys
import unicodedata

import jieba

from tools.data.words import tokenize  # the words the training text was split into

HAN = re.compile('[\u4e00-\u9fd5]')

WRITTEN = [
    '我来到北京清华大学',
    '他来到了网易杭研大厦',
    '小明硕士毕业于中国科学院计算所，后在日本京都大学深造',
    '我爱Python和C++，也用C#写过3.5%的代码。',
    '2023年GDP增长了5.2%，iPhone 15售价5999元',
    '下载速度：12.5MB/s，剩余时间 3:45',
    '这是一个测试\r\n第二行\n第三行\t制表符',
    '全角空格\u3000分开的句子',
    '中英混合 English words inside 中文句子 end.',
    '电子邮件 user_name@example.com 和网址 https://example.org/a-b?c=1&d=2',
    '扩展A区的字\u3400\u3401和兼容汉字\uf900，还有表情😀',
    '一二三四五六七八九十百千万亿',
    '。，、；：？！“”‘’（）《》【】',
    'abc.def 1.2.3 v2.0-beta_1 #tag 100%',
    '他说："你好吗？"我说：\'很好\'',
    '  前后都有空格  ',
    '韩冰和郭晶晶在北京奥运会上获得金牌',
    '结婚的和尚未结婚的',
    '南京市长江大桥',
    '工信处女干事每月经过下属科室都要亲口交代24口交换机等技术性器件的安装工作',
    # characters the HMM has no emission for: every path equally improbable, jieba's tie-breaks decide
    '龘龘龘',
    '我爱龘龘龘和齉',
    '鱻靐齉麤爨',
    '中测测测们',  # the HMM's tie between two previous states: the later of B, E, M, S wins
]


def catalog_sentences():
    sentences = set()
    for path in sorted(glob.glob('/usr/share/locale/zh_CN/LC_MESSAGES/*.mo')):
        with open(path, 'rb') as f:
            try:
                catalog = gettext.GNUTranslations(f)._catalog
            except Exception:  # a damaged catalog: skipped
                continue
        for text in catalog.values():
            if isinstance(text, str) and 4 <= len(text) <= 120 and HAN.search(text):
                sentences.add(text)
    return sorted(sentences, key=lambda text: hashlib.sha1(text.encode('utf-8')).hexdigest())


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    output = sys.argv[2] if len(sys.argv) > 2 else 'tests/data/zh-segmentation.jsonl'
    sentences = WRITTEN + catalog_sentences()[:count]
    with open(output, 'w', encoding='utf-8', newline='\n') as f:
        for text in sentences:
            record = {'text': text, 'words': list(jieba.cut(text, HMM=True)),
                      'model_words': tokenize(unicodedata.normalize('NFC', text), 'zh')}
            f.write(json.dumps(record, ensure_ascii=False) + '\n')
    print(f'{output}: {len(sentences)} sentences', file=sys.stderr)


if __name__ == '__main__':
    main()
