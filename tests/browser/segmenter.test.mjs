// The Chinese segmenter in Debian's Chromium: the module fetched from the site with the gzipped
// data file the page serves (dist/models/zh-jieba.txt.gz, inflated by the browser's
// DecompressionStream), giving python3-jieba's tokens on every sentence of
// tests/data/zh-segmentation.jsonl, in the SIMD and the scalar build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ROOT, useBrowser } from './browser.mjs';

const session = useBrowser();
const cases = readFileSync(new URL('tests/data/zh-segmentation.jsonl', ROOT), 'utf8')
  .split('\n').filter((line) => line).map((line) => JSON.parse(line));

test('Chromium splits the fixture sentences as python3-jieba does, from the gzipped file', async () => {
  const page = await session.browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(session.base + 'dist/models/index.json');  // same origin as the module, no page around it
  const results = await page.evaluate(async (texts) => {
    const { default: loadAttn } = await import('/dist/attn.mjs');
    const bytes = new Uint8Array(await (await fetch('/dist/models/zh-jieba.txt.gz')).arrayBuffer());
    const out = {};
    for (const simd of [true, false]) {
      const attn = await loadAttn({ simd, threads: 1, warmUp: false });
      const segmenter = await attn.loadSegmenter(bytes);
      out[simd ? 'simd' : 'scalar'] = { tokens: texts.map((text) => segmenter.cut(text)), words: segmenter.words('我 爱 你。') };
      segmenter.delete();
    }
    return out;
  }, cases.map(({ text }) => text));
  for (const build of ['simd', 'scalar']) {
    const different = cases.filter(({ words }, i) => JSON.stringify(results[build].tokens[i]) !== JSON.stringify(words));
    assert.deepEqual(different.map(({ text }) => text).slice(0, 3), [], build);
    assert.deepEqual(results[build].words, ['我', '爱', '你', '。']);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
