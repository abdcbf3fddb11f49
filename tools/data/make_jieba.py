#!/usr/bin/python3
"""Writes the Chinese segmenter's data file (attnscope-jieba-v1, src/attn/models/segmenter.hpp)
from Debian's python3-jieba: its prefix dictionary (dict.txt, without the part-of-speech tags,
which accurate mode does not read) and its finalseg HMM (prob_start.py, prob_trans.py,
prob_emit.py), the log-probabilities written with Python's repr (they read back to the same doubles).

usage: make_jieba.py OUTPUT [JIEBA_DIRECTORY]   (default /usr/lib/python3/dist-packages/jieba)
OUTPUT ending in .gz is gzipped (level 9, no name or time stamp: the same bytes every build).
"""
import ast
import gzip
import os
import sys

NOTICE = """jieba 0.42.1's prefix dictionary and finalseg HMM (https://github.com/fxsjy/jieba), from
Debian's python3-jieba, rewritten by attnscope's tools/data/make_jieba.py (the tags dropped).
Copyright 2012-2017 Sun Junyi <ccnusjy@gmail.com>. License: Expat (MIT):

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE."""
STATES = 'BEMS'
MIN_FLOAT = -3.14e100  # finalseg's, for a transition the table lacks


def table(path):
    """The dict literal assigned to P in one of finalseg's prob_*.py files, read without running it."""
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ['P']:
            return ast.literal_eval(node.value)
    raise SystemExit(f'{path}: no P = {{...}}')


def lines(jieba):
    start = table(os.path.join(jieba, 'finalseg', 'prob_start.py'))
    trans = table(os.path.join(jieba, 'finalseg', 'prob_trans.py'))
    emit = table(os.path.join(jieba, 'finalseg', 'prob_emit.py'))
    yield 'attnscope-jieba-v1'
    yield from ('# ' + line if line else '#' for line in NOTICE.split('\n'))
    yield 'start ' + ' '.join(repr(float(start[s])) for s in STATES)
    for source in STATES:
        yield f'trans {source} ' + ' '.join(repr(float(trans[source].get(s, MIN_FLOAT))) for s in STATES)
    for state in STATES:
        yield f'emit {state} {len(emit[state])}'
        for character, log_probability in emit[state].items():
            yield f'{character} {float(log_probability)!r}'
    with open(os.path.join(jieba, 'dict.txt'), encoding='utf-8') as f:
        words = [line.strip().split(' ')[:2] for line in f]  # as jieba's gen_pfdict reads a line
    # sorted by their UTF-8 bytes (the loader's order, so it has nothing to sort), stably: a word
    # listed twice keeps its lines' order, and jieba's last-line-wins with it
    words.sort(key=lambda entry: entry[0].encode('utf-8'))
    yield f'words {len(words)}'
    for word, frequency in words:
        yield f'{word} {int(frequency)}'


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    jieba = sys.argv[2] if len(sys.argv) == 3 else '/usr/lib/python3/dist-packages/jieba'
    if not os.path.isfile(os.path.join(jieba, 'dict.txt')):
        raise SystemExit(f'no jieba dictionary in {jieba} (Debian: apt-get install python3-jieba)')
    output = sys.argv[1]
    data = ''.join(line + '\n' for line in lines(jieba)).encode('utf-8')
    if output.endswith('.gz'):
        data = gzip.compress(data, 9, mtime=0)
    with open(output + '.tmp', 'wb') as f:
        f.write(data)
    os.replace(output + '.tmp', output)


if __name__ == '__main__':
    main()
