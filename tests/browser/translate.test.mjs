// The translation view in Debian's Chromium with the shipped models: a word's row is read where the
// model's metadata says its aligning head holds the word (the multilingual Transformer's
// alignment_shift 1), as the alignment view reads it; characters outside the vocabulary come back as
// the input has them; every pair translates both ways.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { figureOf, openPage, useBrowser } from './browser.mjs';

useBrowser();

const translated = (page) => page.waitForFunction(() => document.getElementById('translate-view').dataset.state === 'ok', null, { timeout: 60000 });

// Runs `action`, then waits for the translation it asks for.
async function translating(page, action) {
  await page.evaluate(() => { document.getElementById('translate-view').dataset.state = 'asked'; });
  await action();
  await translated(page);
}

// Each row's most attended column, as "row word←column word".
function argmaxPairs(figure) {
  return figure.rowLabels.map((word, t) => {
    const row = figure.weights.slice(t * figure.cols, (t + 1) * figure.cols);
    return `${word}←${figure.colLabels[row.indexOf(Math.max(...row))]}`;
  });
}

// Code points that are not text a reader can see: U+FFFD, controls, format characters (but the
// emoji joiner), line and paragraph separators, private use.
const BROKEN = /[\uFFFD\p{Cc}\p{Zl}\p{Zp}\p{Co}]|(?!\u200D)\p{Cf}/u;

describe('translation view', () => {
  test('each word\'s row is the one the model aligns it with: Guardar←Save, el←the, archivo←file, as the alignment view reads them', async () => {
    const { page, problems } = await openPage();
    await translated(page);
    const sentence = await page.inputValue('#translate-source');
    assert.equal(sentence, 'Save the file before closing the window .');
    const text = await page.textContent('#translation');
    const shown = await figureOf(page, 'translate-heatmap');
    const pairs = argmaxPairs(shown);
    for (const expected of ['Guardar←Save', 'el←the', 'archivo←file']) assert.ok(pairs.includes(expected), `${expected} in ${pairs.join(' ')}`);
    assert.match(await page.textContent('#translate-model-line'), /decoder’s input.*alignment_shift 1/);
    // the alignment view on the same pair reads the same head at the same rows
    await page.selectOption('#method', 'argmax');
    await page.fill('#source', sentence);
    await page.fill('#target', text);
    await page.waitForFunction((rows) => {
      const view = document.getElementById('align-view');
      return document.getElementById('heatmap').dataset.rows === String(rows) && view.dataset.state === 'ok'
        && /method argmax/.test(document.getElementById('align-model').textContent);
    }, shown.rows, { timeout: 60000 });
    const aligned = await figureOf(page, 'heatmap');
    assert.deepEqual(argmaxPairs(aligned), pairs);
    aligned.weights.forEach((w, i) => assert.ok(Math.abs(w - shown.weights[i]) < 0.02, `cell ${i}: ${w} aligned, ${shown.weights[i]} translated`));
    // the mean of a layer's heads leaves weight on the source's end token: the line says where it went
    await page.selectOption('#translate-head', 'mean');
    await page.waitForFunction(() => document.getElementById('translate-heatmap').dataset.head === 'mean');
    const mean = await figureOf(page, 'translate-heatmap');
    const most = Math.max(...mean.rowLabels.map((_, t) => 1 - mean.weights.slice(t * mean.cols, (t + 1) * mean.cols).reduce((a, b) => a + b, 0)));
    assert.ok(most > 0.01, `a row leaves ${most} to </s>`);
    assert.match(await page.textContent('#translate-model-line'), /the rest \(\d+(–\d+)? % of a row\) went to the end of the English sentence \(its token <\/s>\)/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('emoji and other characters outside the vocabulary come back as typed, never as U+FFFD or control characters', async () => {
    const { page, problems } = await openPage();
    await translated(page);
    // (the model may also write a word of its own for one: "Guarde el archivo de ólico ." for the last)
    for (const [input, kept] of [['I ❤️ 🍕 .', '❤️ 🍕'], ['📁', '📁'], ['Save the file 📁 .', '']]) {
      await translating(page, async () => {
        await page.fill('#translate-source', input);
        await page.click('#translate');
      });
      const text = await page.textContent('#translation');
      assert.ok(!BROKEN.test(text), `"${input}" → ${JSON.stringify(text)} holds broken text`);
      assert.ok(text.includes(kept), `"${input}" → "${text}" keeps ${kept}`);
      assert.ok(!text.includes('€'), `"${input}" → "${text}"`);
      const figure = await figureOf(page, 'translate-heatmap');
      assert.ok(figure.rowLabels.every((word) => word.length > 0 && !BROKEN.test(word)), figure.rowLabels.join('|'));
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a pair longer than the sentences the model learned from is flagged in the line under the figure', async () => {
    const { page, problems } = await openPage();
    await translated(page);
    const words = (n, word) => Array.from({ length: n }, (_, i) => `${word}${i % 7}`).join(' ');
    await page.selectOption('#method', 'argmax');
    await page.fill('#source', `${words(60, 'file')} .`);
    await page.fill('#target', `${words(58, 'archivo')} .`);
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.rows === '59'
      && /method argmax/.test(document.getElementById('align-model').textContent), null, { timeout: 60000 });
    assert.match(await page.textContent('#align-model'), /⚠ 61 words: longer than nearly every sentence the model learned from/);
    await page.fill('#target', 'archivo .');
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.rows === '2', null, { timeout: 60000 });
    assert.match(await page.textContent('#align-model'), /⚠ 61 words/, 'the longer side counts');
    await page.fill('#source', 'the file .');
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.cols === '3', null, { timeout: 60000 });
    assert.doesNotMatch(await page.textContent('#align-model'), /⚠/);
    await page.fill('#beam', '1');
    await translating(page, async () => {
      await page.fill('#translate-source', `${words(90, 'file')} .`);
      await page.click('#translate');
    });
    assert.match(await page.textContent('#translate-model-line'), /⚠ \d+ words: longer than any sentence the model learned from \(at most 80 words\)/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('every pair translates both ways: Spanish → English from the translation, a round trip', async () => {
    const { page, problems } = await openPage();
    await translated(page);
    const models = await page.$$eval('#translate-model option', (all) => all.map((o) => o.value));
    assert.ok(models.includes('en-es-transformer') && models.includes('es-en-transformer'), models.join());
    const spanish = await page.textContent('#translation');
    await translating(page, () => page.selectOption('#translate-model', 'es-en-transformer'));
    assert.equal(await page.inputValue('#translate-source'), spanish, 'the last translation goes back in');
    assert.equal(await page.textContent('#translate-source-language'), 'Spanish');
    assert.equal(await page.getAttribute('#translation', 'lang'), 'en');
    const english = await page.textContent('#translation');
    assert.match(english, /file/i);
    const figure = await figureOf(page, 'translate-heatmap');
    assert.deepEqual(figure.colLabels, spanish.split(' '));
    await page.waitForFunction(() => /tm=es-en-transformer/.test(location.hash));
    // a link to it opens the same direction with its own text
    const again = await openPage(`#tm=es-en-transformer&tr=${encodeURIComponent('Guardar el archivo .')}`);
    await translated(again.page);
    assert.equal(await again.page.inputValue('#translate-source'), 'Guardar el archivo .');
    assert.equal(await again.page.textContent('#translate-source-language'), 'Spanish');
    assert.match(await again.page.textContent('#translation'), /file/i);
    assert.deepEqual([...problems, ...again.problems], []);
    await again.page.close();
    await page.close();
  });
});
