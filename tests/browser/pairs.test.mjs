// The language pairs in Debian's Chromium: the #pair select lists the model index's pairs; each
// switch shows that language's example aligned by the pair's default method, with its links, its
// labels (Cyrillic and diacritics as typed) and working exports; the URL remembers the pair; a link
// to a pair fetches only that pair's files; and a pair of the multilingual Transformer translates
// and shows its heads (en-zh, whose Transformer is a file of its own, is tests/browser/zh-pair.test.mjs's
// too). Screenshots go to build/screenshots/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { PAIR_EXAMPLES } from '../data/pair_examples.mjs';
import { ROOT, SCREENSHOTS, figureOf, openPage, recordFetches, useBrowser } from './browser.mjs';

useBrowser();

const index = JSON.parse(readFileSync(new URL('web/dist/models/index.json', ROOT), 'utf8'));

// The links `attn align --pair NAME` gives for a sentence pair, sorted.
function commandLineLinks(name, source, target) {
  const result = spawnSync(new URL('build/bin/attn', ROOT).pathname, ['align', '--pair', name],
    { input: `${source} ||| ${target}\n`, encoding: 'utf8', env: { ...process.env, ATTN_MODELS: new URL('models', ROOT).pathname } });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim().split(' ').filter(Boolean).sort();
}

const save = async (page, button) => {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return readFile(await download.path(), 'utf8');
};

// Waits until the alignment view shows the example of `language` (its words as rows), answered.
async function showsExample(page, language) {
  const rows = PAIR_EXAMPLES[language].target.split(' ').length;
  await page.waitForFunction((r) => {
    const view = document.getElementById('align-view'), heatmap = document.getElementById('heatmap');
    return view.dataset.state === 'ok' && heatmap.dataset.rows === String(r) && heatmap.dataset.cols === '10';
  }, rows, { timeout: 20000 });
}

describe('language pairs', () => {
  test('switching through every pair of the index aligns its example by its default method, with its labels and links', async () => {
    const { page, problems } = await openPage();
    const values = await page.$$eval('#pair option', (options) => options.map((option) => option.value));
    assert.deepEqual(values, Object.keys(index.pairs));
    assert.equal(values[0], 'en-es');
    assert.equal(values.length, 13);  // twelve with the multilingual Transformer, en-zh with the one that learned Chinese
    for (const name of [...values.slice(1), 'en-es']) {
      const pair = index.pairs[name], example = PAIR_EXAMPLES[pair.language];
      await page.selectOption('#pair', name);
      await showsExample(page, pair.language);
      assert.equal(await page.inputValue('#target'), example.target, name);
      // the pair's default, its best measured method: the same links as `attn align --pair`
      assert.equal(await page.inputValue('#method'), pair.method, name);
      assert.deepEqual((await page.textContent('#pharaoh')).split(' ').filter(Boolean).sort(),
        commandLineLinks(name, example.source, example.target), `${name}: the page's links are attn align --pair's`);
      // the line under the figure names what drew it, the method and its dev-set AER (models/dev-aer.tsv;
      // every pair with a Transformer has one, and a pair measured since shows its own)
      const line = await page.textContent('#align-model');
      const aer = pair.devAer?.[pair.method];
      if (pair.files.forward) assert.ok(aer !== undefined, `${name}: no dev AER for ${pair.method}`);
      assert.ok(line.includes(`method ${pair.method}`) &&
        line.includes(aer === undefined ? 'no dev-set AER measured' : `dev AER ${aer.toFixed(3)}`), `${name}: ${line}`);
      for (const file of [pair.files.forward, pair.files.hmm].filter(Boolean)) {
        assert.ok(line.includes(index.facts[file].kind), `${name}: ${file} (${index.facts[file].kind}) in ${line}`);
      }
      if (pair.files.forward) {
        assert.match(line, /parameters, \d+ CPU (and \d+ GPU )?minutes on /, `${name}: ${line}`);
        assert.match(line, /cells show attention, links come from the mix/, `${name}: ${line}`);
      }
      // the pairs that attach English articles say so (models/pairs.json's attachArticles)
      assert.equal(/an English article left unlinked takes the next word’s links/.test(line), index.pairs[name].attachArticles, `${name}: ${line}`);
      // and the pairs whose hybrid links words that are each other's best (mutualBest), under the hybrid
      assert.equal(/words that are each other’s best are linked too/.test(line), index.pairs[name].mutualBest && pair.method === 'hybrid', `${name}: ${line}`);
      const chosen = await page.$eval('#method', (select) => select.selectedOptions[0].textContent);
      if (aer !== undefined) assert.ok(chosen.includes(`dev AER ${aer.toFixed(3)}`), `${name}: ${chosen}`);
      assert.match(await page.evaluate(() => location.hash), name === 'en-es' ? /^$|^#(?!.*pair=)/ : new RegExp(`pair=${name}`));
      assert.equal(await page.textContent('label[for="target"]'), pair.languageName);
      // the line under the title speaks of the chosen pair, not of the one the page started with,
      // and of what is loaded now that its figure is drawn (the shared Transformer and its HMM)
      const status = await page.textContent('#build');
      assert.match(status, new RegExp(pair.files.forward ? ` · the ${name} aligner and its attention model loaded`
        : ` · the ${name} aligner loaded \\(${name} has no attention model yet\\)`), name);
      assert.doesNotMatch(status, /follows|load the first time|loads when/, name);
      const figure = await figureOf(page, 'heatmap');
      assert.deepEqual(figure.rowLabels, example.target.split(' '), `${name}: the words as typed`);
      if (!pair.files.forward) {
        const links = (await page.textContent('#pharaoh')).split(' ');
        for (const link of example.links) assert.ok(links.includes(link), `${name}: ${link} in ${links.join(' ')}`);
      }
      if (name === 'en-ru') await page.screenshot({ path: new URL('pair-en-ru.png', SCREENSHOTS).pathname, fullPage: true });
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('each pair\'s exports (links, matrix JSON, SVG) hold its words and links; a link opens the pair', async () => {
    // one page: a link opens the first pair, the select switches to the others (a fresh page per
    // pair cost a minute of the suite; a link to each pair is the next test's)
    const [first, ...others] = Object.keys(index.pairs).reverse();
    const { page, problems } = await openPage(`#pair=${first}`);
    assert.equal(await page.inputValue('#pair'), first);
    for (const name of [first, ...others]) {
      const pair = index.pairs[name], example = PAIR_EXAMPLES[pair.language];
      if (name !== first) await page.selectOption('#pair', name);
      await showsExample(page, pair.language);
      for (let tries = 0; tries < 200 && (await figureOf(page, 'heatmap'))?.rowLabels.join(' ') !== example.target; tries++) {
        await page.waitForTimeout(50);  // the switched pair's own figure, not the last pair's of as many rows
      }
      await page.waitForFunction((method) => document.getElementById('align-model').textContent.includes(`method ${method}`), pair.method);
      const links = await page.textContent('#pharaoh');
      assert.equal(await save(page, '#export-links'), `${links}\n`, `${name}: the links export`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
      assert.equal(download.suggestedFilename(), `attention-${name}-${pair.method}.json`);
      const json = JSON.parse(await readFile(await download.path(), 'utf8'));
      // what drew it goes with the matrix
      assert.equal(json.about.pair, name);
      assert.equal(json.about.method, pair.method);
      assert.ok(json.about.models.includes(pair.files.hmm), JSON.stringify(json.about));
      // the line's details, a click away from its plain sentence, are the technical line the export carries
      const technical = await page.$eval('#align-model details', (d) => [...d.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('').trim());
      assert.equal(json.about.caption, technical);
      assert.deepEqual(json.target, example.target.split(' '), `${name}: the matrix export's rows`);
      assert.deepEqual(json.source, example.source.split(' '));
      assert.equal(json.weights.length, json.target.length);
      const svg = await save(page, '#export-svg');
      assert.match(svg, new RegExp(`${pair.languageName} rows`), `${name}: the SVG's title`);
      // the line saying what drew it, wrapped over several lines of the SVG
      const caption = [...svg.toString().matchAll(/class="caption">([^<]*)</g)].map((line) => line[1]).join(' ');
      const aer = pair.devAer?.[pair.method];
      assert.match(caption, new RegExp(`method ${pair.method} · ${aer === undefined ? 'no dev-set AER measured' : `dev AER ${aer.toFixed(3)}`}`),
        `${name}: the SVG's model line`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a pair of the multilingual Transformer translates, shows its heads and aligns by attention; en-es comes back whole', async () => {
    const { page, problems } = await openPage();
    await page.selectOption('#pair', 'en-it');
    await showsExample(page, 'it');
    assert.equal(await page.inputValue('#method'), index.pairs['en-it'].method);  // the HMM's links first
    assert.equal(await page.isVisible('#translate-none'), false);
    assert.equal(await page.inputValue('#translate-model'), 'en-it-transformer');
    await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok' &&
      document.getElementById('translation').textContent.length > 0, null, { timeout: 30000 });
    await page.locator('#tab-model').click();
    const options = await page.$$eval('#model option', (all) => all.map((o) => o.value));
    assert.deepEqual(options, ['en-it-transformer', 'it-en-transformer']);
    // (a grid drawn for en-es's RNN before the switch may still be there until the view answers for en-it)
    await page.waitForFunction(() => /Transformer/.test(document.getElementById('model-status').textContent), null, { timeout: 30000 });
    assert.equal(await page.getAttribute('#model-view', 'data-layers'), '3');
    assert.equal(await page.getAttribute('#model-view', 'data-heads'), '4');
    // the attention methods are offered, and 'attention' (the pair's best extraction) aligns
    const attention = await page.$eval('#method option[value="attention"]', (option) => option.disabled);
    assert.equal(attention, false);
    await page.selectOption('#method', 'attention');
    await page.waitForFunction(() => document.getElementById('align-view').dataset.state === 'ok' &&
      document.getElementById('pharaoh').textContent.length > 0, null, { timeout: 30000 });
    await page.screenshot({ path: new URL('pair-en-it.png', SCREENSHOTS).pathname, fullPage: true });
    await page.selectOption('#pair', 'en-es');
    await showsExample(page, 'es');
    assert.equal(await page.inputValue('#method'), index.pairs['en-es'].method);
    assert.equal(await page.isVisible('#translate-none'), false);
    await page.waitForFunction(() => document.getElementById('translation').textContent.length > 0, null, { timeout: 20000 });
    await page.waitForFunction(() => document.getElementById('model').options.length > 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a link to a pair opens it, fetching only its own files; typed sentences survive a switch', async () => {
    const fetched = [];
    const { page, problems } = await openPage('#pair=en-ru', {
      routes: [recordFetches(fetched)],
    });
    await showsExample(page, 'ru');
    assert.equal(await page.inputValue('#pair'), 'en-ru');
    const heavy = fetched.filter((path) => path.endsWith('.safetensors')).map((path) => path.split('/').pop());
    // the aligner first (the figure); the translation view's model, the multilingual file, beside it
    assert.deepEqual(heavy.sort(), [index.pairs['en-ru'].files.hmm, index.pairs['en-ru'].files.forward].sort());
    // the reader's own sentences stay when the pair changes; only an example is replaced
    await page.fill('#source', 'The cat sleeps .');
    await page.fill('#target', 'Кошка спит .');
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.rows === '3');
    await page.selectOption('#pair', 'en-bg');
    await page.waitForFunction(() => document.getElementById('align-view').dataset.state === 'ok' &&
      location.hash.includes('pair=en-bg'));
    assert.equal(await page.inputValue('#target'), 'Кошка спит .');
    assert.match(await page.evaluate(() => location.hash), /pair=en-bg/);
    // the hash changed in the same tab: the page follows it
    await page.evaluate(() => { location.hash = '#pair=en-sl'; });
    await showsExample(page, 'sl');
    assert.equal(await page.inputValue('#pair'), 'en-sl');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
