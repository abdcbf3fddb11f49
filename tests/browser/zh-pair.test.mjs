// English–Chinese in Debian's Chromium: the pair aligns by the hybrid of its Transformer (the one
// that learned Chinese) and its HMM, as `attn align --pair en-zh` does; it translates both ways
// and shows its heads; Chinese typed without spaces is cut into words in the
// worker as `attn segment --lang zh` cuts it (tests/data/zh-segmentation.jsonl's model_words), its
// data fetched once and only for this pair; the URL keeps the pair and the typed text, and links to
// the other pairs fetch nothing of Chinese. Screenshots go to build/screenshots/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { EXAMPLES } from '../../web/page/examples.mjs';
import { PAIR_EXAMPLES } from '../data/pair_examples.mjs';
import { ROOT, SCREENSHOTS, figureOf, openPage, recordFetches, useBrowser } from './browser.mjs';

const session = useBrowser();

const index = JSON.parse(readFileSync(new URL('web/dist/models/index.json', ROOT), 'utf8'));
const fixture = readFileSync(new URL('tests/data/zh-segmentation.jsonl', ROOT), 'utf8')
  .split('\n').filter((line) => line).map((line) => JSON.parse(line));
const SEGMENTER = 'zh-jieba.txt.gz';

// Waits until the alignment view has answered for the target words `words` (its rows as drawn).
async function showsRows(page, words) {
  await page.waitForFunction((expected) => document.getElementById('align-view').dataset.state === 'ok' &&
    document.getElementById('heatmap').dataset.rows === String(expected.length), words, { timeout: 30000 });
  for (let tries = 0; tries < 200 && JSON.stringify((await figureOf(page, 'heatmap'))?.rowLabels) !== JSON.stringify(words); tries++) {
    await page.waitForTimeout(50);  // the latest answer's figure, not an earlier one of as many rows
  }
  return figureOf(page, 'heatmap');
}

// Waits until the translation view has answered for the input words `words` (its columns as drawn).
async function translated(page, words) {
  await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok', null, { timeout: 30000 });
  for (let tries = 0; tries < 400 && JSON.stringify((await figureOf(page, 'translate-heatmap'))?.colLabels) !== JSON.stringify(words); tries++) {
    await page.waitForTimeout(50);
  }
  assert.deepEqual((await figureOf(page, 'translate-heatmap')).colLabels, words);
}

describe('English–Chinese', () => {
  test('the pair list shows it; choosing it aligns by its default with the Chinese Transformer, which translates both ways and shows its heads', async () => {
    const { page, problems } = await openPage();
    const option = await page.$eval('#pair option[value="en-zh"]', (o) => o.textContent);
    assert.equal(option, 'English–Chinese');
    assert.equal(await page.isVisible('[data-pair-language="zh"]'), false);
    await page.selectOption('#pair', 'en-zh');
    const pair = index.pairs['en-zh'];
    assert.equal(pair.files.forward, 'multilingual-zh-transformer.safetensors');
    const figure = await showsRows(page, EXAMPLES.zh.split(' '));
    assert.equal(await page.inputValue('#target'), EXAMPLES.zh);
    assert.equal(await page.textContent('label[for="target"]'), 'Chinese');
    assert.equal(await page.getAttribute('#target', 'lang'), 'zh');
    assert.ok(figure.links.length >= 5, JSON.stringify(figure.links));
    // the pair's default, the same links as `attn align --pair en-zh`
    assert.equal(await page.inputValue('#method'), pair.method);
    assert.equal(pair.method, 'hybrid');
    const cli = spawnSync(new URL('build/bin/attn', ROOT).pathname, ['align', '--pair', 'en-zh'],
      { input: `${PAIR_EXAMPLES.zh.source} ||| ${PAIR_EXAMPLES.zh.target}\n`, encoding: 'utf8', env: { ...process.env, ATTN_MODELS: new URL('models', ROOT).pathname } });
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(PAIR_EXAMPLES.zh.target, EXAMPLES.zh);
    assert.deepEqual((await page.textContent('#pharaoh')).split(' ').filter(Boolean).sort(), cli.stdout.trim().split(' ').sort());
    // every method is offered but IBM Model 2, which says what it needs
    const options = await page.$$eval('#method option', (all) => all.map((o) => ({ value: o.value, disabled: o.disabled, text: o.textContent })));
    assert.deepEqual(options.filter((o) => o.disabled).map((o) => o.value), ['ibm2']);
    assert.match(options.find((o) => o.value === 'ibm2').text, /needs IBM Model 2, not shipped for en-zh$/);
    // the line under the figure names both models, the method and its dev-set AER
    await page.locator('#align-model summary').click();
    const line = await page.textContent('#align-model');
    for (const file of [pair.files.forward, pair.files.hmm]) assert.ok(line.includes(index.facts[file].kind), `${file} in ${line}`);
    assert.match(index.facts[pair.files.forward].kind, /English ↔ 13 languages/);
    assert.ok(line.includes(`method hybrid · dev AER ${pair.devAer.hybrid.toFixed(3)} on en-zh’s gold dev set`), line);
    assert.match(await page.textContent('#build'), / · the en-zh aligner and its attention model loaded/);
    // how typed Chinese is cut; the HMM-only hint is gone
    assert.equal(await page.isVisible('[data-pair-language="zh"]'), true);
    assert.equal(await page.isVisible('[data-pair-kind="statistical"]'), false);
    await page.screenshot({ path: new URL('pair-en-zh.png', SCREENSHOTS).pathname, fullPage: true });
    // the translation view: English into Chinese, then Chinese typed without spaces into English
    await page.locator('#tab-translate').click();
    assert.equal(await page.isVisible('#translate-none'), false);
    assert.equal(await page.inputValue('#translate-model'), 'en-zh-transformer');
    await page.fill('#translate-source', 'I love you .');
    await page.click('#translate');
    await translated(page, ['I', 'love', 'you', '.']);
    assert.match(await page.textContent('#translation'), /\p{Script=Han}/u);
    assert.equal(await page.getAttribute('#translation', 'lang'), 'zh');
    await page.screenshot({ path: new URL('pair-en-zh-translate.png', SCREENSHOTS).pathname });
    await page.selectOption('#translate-model', 'zh-en-transformer');
    await page.fill('#translate-source', '我爱你。');
    await page.click('#translate');
    // typed without spaces, read as jieba cuts it (`attn segment --lang zh`)
    const cut = spawnSync(new URL('build/bin/attn', ROOT).pathname, ['segment', '--lang', 'zh'], { input: '我爱你。\n', encoding: 'utf8' });
    assert.equal(cut.status, 0, cut.stderr);
    await translated(page, cut.stdout.trim().split(' '));
    assert.equal(await page.getAttribute('#translate-view', 'data-direction'), 'zh-en');
    assert.match(await page.textContent('#translation'), /^[^\p{Script=Han}]*[A-Za-z][^\p{Script=Han}]*$/u);
    assert.equal(await page.getAttribute('#translate-source', 'lang'), 'zh');
    // the command line writes the same translation for the same typed line
    const english = spawnSync(new URL('build/bin/attn', ROOT).pathname, ['translate', '--pair', 'zh-en'],
      { input: '我爱你。\n', encoding: 'utf8', env: { ...process.env, ATTN_MODELS: new URL('models', ROOT).pathname } });
    assert.equal((await page.textContent('#translation')).trim(), english.stdout.trim());
    // the model view: the Chinese Transformer's layers and heads
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => document.getElementById('model').options.length > 0, null, { timeout: 30000 });
    assert.equal(await page.$eval('#model', (select) => select.disabled), false);
    // in Chinese
    await page.selectOption('#ui-language', 'zh');
    await page.locator('#tab-align').click();
    assert.match(await page.textContent('[data-pair-language="zh"]'), /jieba/);
    assert.doesNotMatch(await page.textContent('[data-pair-language="zh"]'), /Chinese is written/);
    assert.match(await page.textContent('#align-model'), /13 种语言/);
    await page.selectOption('#ui-language', 'en');
    // and back to en-es: its own Transformer, the hint gone
    await page.selectOption('#pair', 'en-es');
    await showsRows(page, EXAMPLES.es.split(' '));
    assert.equal(await page.isVisible('[data-pair-language="zh"]'), false);
    assert.doesNotMatch(await page.textContent('#align-model'), /13 languages/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('typed Chinese is cut into the words attn segment --lang zh gives, the segmenter fetched once, and aligned', async () => {
    const fetched = [];
    const { page, problems } = await openPage('#pair=en-zh', { routes: [recordFetches(fetched)] });
    await showsRows(page, EXAMPLES.zh.split(' '));
    await page.fill('#source', 'I came to Beijing .');
    const cases = fixture.filter(({ text }) => !/\s/.test(text)).slice(0, 5);
    assert.equal(cases.length, 5);
    for (const { text, model_words: words } of cases) {
      await page.fill('#target', text);
      const figure = await showsRows(page, words);
      assert.deepEqual(figure.rowLabels, words, text);
      assert.deepEqual(figure.colLabels, ['I', 'came', 'to', 'Beijing', '.']);
      assert.ok(figure.links.length > 0, `${text}: links drawn`);
      assert.ok((await page.textContent('#pharaoh')).trim().length > 0, text);
    }
    // the reader's spaces between Han characters are taken as given
    await page.fill('#target', '我 来到 北 京 。');
    assert.deepEqual((await showsRows(page, ['我', '来到', '北', '京', '。'])).rowLabels, ['我', '来到', '北', '京', '。']);
    // the typed text stays as typed; only the figure shows the words
    assert.equal(await page.inputValue('#target'), '我 来到 北 京 。');
    await page.fill('#target', '我来到北京。');
    const lines = await showsRows(page, ['我', '来到', '北京', '。']);
    assert.deepEqual(lines.links.length > 0, true);
    await page.screenshot({ path: new URL('pair-en-zh-typed.png', SCREENSHOTS).pathname, fullPage: true });
    assert.equal(fetched.filter((path) => path.endsWith(`/${SEGMENTER}`)).length, 1, 'one download of the segmenter');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the URL keeps pair=en-zh and the typed Chinese; the presets open the pair; links to other pairs fetch nothing Chinese', async () => {
    const { page, problems } = await openPage();
    const presets = await page.$$eval('#presets option', (all) => all.map((o) => o.value));
    assert.ok(presets.includes('zh-love') && presets.includes('zh-news'), presets.join(' '));
    await page.selectOption('#presets', 'zh-love');
    assert.equal(await page.inputValue('#pair'), 'en-zh');
    assert.equal(await page.inputValue('#target'), '我爱你。');
    // jieba's dictionary holds 我爱你 as one word
    const love = await showsRows(page, ['我爱你', '。']);
    assert.ok(love.links.length >= 2);
    assert.match(await page.textContent('#preset-note'), /jieba/);
    await page.selectOption('#presets', 'zh-news');
    const news = await showsRows(page, ['外交部', '发言人', '今天', '表示', '，', '中国', '欢迎', '新', '的', '贸易协定', '。']);
    assert.equal(news.cols, 16);
    await page.waitForFunction(() => location.hash.includes('pair=en-zh'));
    const hash = await page.evaluate(() => location.hash);
    assert.match(decodeURIComponent(hash), /外交部发言人今天表示，中国欢迎新的贸易协定。/);
    // the link opens the same pair, sentences and words
    const { page: again, problems: againProblems } = await openPage(hash);
    assert.equal(await again.inputValue('#pair'), 'en-zh');
    assert.equal(await again.inputValue('#target'), '外交部发言人今天表示，中国欢迎新的贸易协定。');
    assert.deepEqual((await showsRows(again, news.rowLabels)).rowLabels, news.rowLabels);
    assert.deepEqual(againProblems, []);
    await again.close();
    // links of the other pairs, old and new, open as before and never fetch the segmenter
    for (const link of ['', '#pair=en-fr', `#pair=en-de&t=${encodeURIComponent(EXAMPLES.de)}`]) {
      const fetched = [];
      const { page: other, problems: otherProblems } = await openPage(link, { routes: [recordFetches(fetched)] });
      const language = link.includes('en-fr') ? 'fr' : link.includes('en-de') ? 'de' : 'es';
      // its first figure (the HMM's, drawn while the hybrid's Transformer downloads, is enough here)
      await other.waitForFunction((rows) => document.getElementById('heatmap').dataset.rows === String(rows),
        EXAMPLES[language].split(' ').length, { timeout: 60000 });
      assert.equal(await other.inputValue('#pair'), `en-${language}`);
      assert.deepEqual(fetched.filter((path) => path.includes('jieba') || path.includes('en-zh')), [], link);
      assert.deepEqual(otherProblems, [], link);
      await other.close();
    }
    assert.deepEqual(problems, []);
    await page.close();
    assert.ok(session);
  });
});
