// The classic examples in Debian's Chromium (#presets, web/page/examples.mjs PRESETS): choosing one sets
// the pair and both sentences, says what to look for, and the figure shows what the paper shows.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PRESETS } from '../../web/page/examples.mjs';
import { SCREENSHOTS, figureOf, openPage, redrawn, useBrowser } from './browser.mjs';

useBrowser();

// Waits until the alignment view has answered for the preset's sentences (the words as the
// library splits them: "L' accord" is three, "L", "'" and "accord"; Chinese typed without spaces
// as jieba cuts it), and returns its figure.
async function aligned(page, preset) {
  const first = preset.source.split(' ')[0];
  for (let tries = 0; tries < 300; tries++) {
    const state = await page.getAttribute('#align-view', 'data-state');
    const figure = state === 'ok' ? await figureOf(page, 'heatmap') : null;
    if (figure && figure.colLabels[0] === first && figure.rowLabels.join('') === preset.target.replace(/ /g, '') &&
        figure.colLabels.join(' ').replace(/ /g, '') === preset.source.replace(/ /g, '')) return figure;
    await page.waitForTimeout(100);
  }
  throw new Error(`the alignment view never showed ${preset.id}`);
}

describe('presets', () => {
  test('Bahdanau Figure 3(a) sets en-fr and both sentences, and its heatmap shows the reordered block', async () => {
    const { page, problems } = await openPage();
    const labels = await page.$$eval('#presets option', (options) => options.map((option) => option.textContent));
    assert.ok(labels.some((label) => label.includes('Bahdanau')), labels.join(' | '));
    const preset = PRESETS.find((p) => p.id === 'bahdanau-3a');
    await page.selectOption('#presets', preset.id);
    assert.equal(await page.inputValue('#pair'), 'en-fr');
    assert.equal(await page.inputValue('#source'), preset.source);
    assert.equal(await page.inputValue('#target'), preset.target);
    assert.match(await page.textContent('#preset-note'), /zone économique européenne/);
    await page.waitForFunction(() => /pair=en-fr/.test(location.hash));
    let figure = await aligned(page, preset);
    // source words across, generated (French) words down, as the paper draws them
    assert.equal(figure.colLabels.join(''), preset.source.replace(/ /g, ''));
    assert.equal(figure.rowLabels.join(''), preset.target.replace(/ /g, ''));
    // the pair's default method (the hybrid) links the reordered block
    const linked = (links, french, english) =>
      links.some(([s, t]) => figure.rowLabels[t] === french && figure.colLabels[s] === english);
    for (const [french, english] of [['zone', 'Area'], ['économique', 'Economic'], ['européenne', 'European']]) {
      assert.ok(linked(figure.links, french, english), `${french} - ${english} in ${JSON.stringify(figure.links)}`);
    }
    // and its cells, the multilingual Transformer's attention, draw it as the paper does: each row's
    // strongest cell (since the sixth release; the fifth put économique on European), as do the
    // HMM's posteriors
    const strongest = (word) => {
      const row = figure.rowLabels.indexOf(word);
      const cells = figure.weights.slice(row * figure.cols, (row + 1) * figure.cols);
      return figure.colLabels[cells.indexOf(Math.max(...cells))];
    };
    const block = () => ['zone', 'économique', 'européenne'].map(strongest);
    assert.deepEqual(block(), ['Area', 'Economic', 'European'], 'the attention');
    await redrawn(page, 'heatmap', () => page.selectOption('#method', 'hmm'));
    figure = await aligned(page, preset);
    assert.deepEqual(block(), ['Area', 'Economic', 'European'], 'the HMM');
    await page.screenshot({ path: new URL('presets-bahdanau-3a.png', SCREENSHOTS).pathname, fullPage: false });
    // editing a sentence leaves the preset
    await page.fill('#source', `${preset.source} `);
    assert.equal(await page.inputValue('#presets'), '');
    assert.equal(await page.textContent('#preset-note'), '');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the presets beside the classics: a long sentence, an idiom, a non-translation, everyday and software side by side', async () => {
    const { page, problems } = await openPage();
    const ids = await page.$$eval('#presets option', (options) => options.map((option) => option.value));
    for (const id of ['long', 'idiom', 'not-a-translation', 'everyday', 'software']) assert.ok(ids.includes(id), id);
    assert.equal(ids.indexOf('software'), ids.indexOf('everyday') + 1, 'side by side');
    const familiarity = async (id) => {
      const preset = PRESETS.find((p) => p.id === id);
      await page.selectOption('#presets', id);
      assert.equal(await page.inputValue('#pair'), 'en-es');
      assert.ok((await page.textContent('#preset-note')).length > 20, id);
      await aligned(page, preset);
      await page.waitForSelector('#align-familiarity:not([hidden])');
      return page.getAttribute('#align-familiarity', 'data-level');
    };
    // the model's forced decoding says what the presets are for: unrelated sentences and an idiom
    // are far from what it learned, a software sentence is not
    assert.equal(await familiarity('not-a-translation'), 'far');
    assert.equal(await familiarity('idiom'), 'far');
    assert.equal(await familiarity('software'), 'familiar');
    // the side-by-side pair's notes point at the translation view: their sentence is translated there
    for (const id of ['everyday', 'software']) {
      const preset = PRESETS.find((p) => p.id === id);
      await page.evaluate(() => { document.getElementById('translate-view').dataset.state = 'asked'; });
      await page.selectOption('#presets', id);
      await page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok', null, { timeout: 60000 });
      assert.equal(await page.inputValue('#translate-source'), preset.source);
      const translation = await page.textContent('#translation');
      assert.ok(preset.note.includes(translation), `the note quotes "${translation}"`);
    }
    await page.selectOption('#presets', 'long');
    const long = await aligned(page, PRESETS.find((p) => p.id === 'long'));
    assert.equal(long.cols, 40);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('every classic sentence aligns in its pair with no console error', async () => {
    const { page, problems } = await openPage();
    for (const preset of PRESETS) {
      await page.selectOption('#presets', preset.id);
      await aligned(page, preset);
      assert.equal(await page.inputValue('#pair'), preset.pair, preset.id);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
});
