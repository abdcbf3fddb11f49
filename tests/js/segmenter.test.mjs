// The Chinese segmenter from JS (attn.loadSegmenter, web/bindings/segmenter_bindings.cpp) in both
// builds: python3-jieba's tokens on the sentences of tests/data/zh-segmentation.jsonl from the
// page's gzipped data file (web/dist/models/zh-jieba.txt.gz), the zh words, and bad input.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { it } from 'node:test';

import { forEachBuild } from './helpers.mjs';

const gzipped = new Uint8Array(readFileSync(new URL('../../web/dist/models/zh-jieba.txt.gz', import.meta.url)));
const cases = readFileSync(new URL('../data/zh-segmentation.jsonl', import.meta.url), 'utf8')
  .split('\n').filter((line) => line).map((line) => JSON.parse(line));

forEachBuild('the Chinese segmenter', (attn) => {
  it('splits every sentence of the fixture as python3-jieba does, from the gzipped file', async () => {
    assert.ok(cases.length >= 400);
    const segmenter = await attn.loadSegmenter(gzipped);
    assert.ok(segmenter.wordCount > 340000, `${segmenter.wordCount} words`);
    const different = cases.filter(({ text, words }) => JSON.stringify(segmenter.cut(text)) !== JSON.stringify(words));
    assert.deepEqual(different.slice(0, 3).map(({ text }) => [text, segmenter.cut(text)]), []);
    segmenter.delete();
  });

  it('reads the file inflated as well, and gives the zh words', async () => {
    const segmenter = await attn.loadSegmenter(new Uint8Array(gunzipSync(gzipped)));
    assert.deepEqual(segmenter.cut('iPhone 15售价'), ['iPhone', ' ', '15', '售价']);
    assert.deepEqual(segmenter.words('iPhone 15售价'), ['iPhone', '15', '售价']);
    assert.deepEqual(segmenter.words('我 爱 你。'), ['我', '爱', '你', '。']);  // already segmented
    assert.deepEqual(segmenter.cut(''), []);
    // a lone surrogate is U+FFFD, as TextEncoder has it (not joined with the next character)
    assert.deepEqual(segmenter.cut('中文\ud800测试'), ['中文', '\ufffd', '测试']);
    assert.deepEqual(segmenter.cut('测\udc00试😀'), ['测', '\ufffd', '试', '😀']);
    segmenter.delete();
  });

  it('refuses a damaged file, a damaged gzip and text that is not a string; leaks no handles', async () => {
    // Embind keeps a handle for each name it looks up the first time: one failed load first
    await assert.rejects(attn.loadSegmenter(new Uint8Array([1, 2, 3])), /not a jieba dictionary file/);
    const before = attn.liveHandles();
    await assert.rejects(attn.loadSegmenter(new TextEncoder().encode('甲乙 3\n')), /not a jieba dictionary file/);
    const text = gunzipSync(gzipped);
    await assert.rejects(attn.loadSegmenter(new Uint8Array(text.subarray(0, 1000))), /line \d+: /);
    await assert.rejects(attn.loadSegmenter(new Uint8Array(gzipSync(text.subarray(0, 1000)))), /line \d+: /);
    await assert.rejects(attn.loadSegmenter(gzipped.subarray(0, 1000)), /gzipped file is damaged/);
    await assert.rejects(attn.loadSegmenter('zh-jieba.txt'), /needs the dictionary file as a Uint8Array/);
    const segmenter = await attn.loadSegmenter(gzipped);
    assert.throws(() => segmenter.cut(['我']), /segmenter\.cut\(text\) needs a string/);
    assert.throws(() => segmenter.words(42), /segmenter\.words\(text\) needs a string/);
    segmenter.delete();
    segmenter.delete();
    assert.throws(() => segmenter.cut('我'), /this segmenter was deleted/);
    assert.equal(attn.liveHandles(), before);
  });
});
