// The page explains itself in Debian's Chromium: a "How to read this figure" beside each figure,
// closed until asked and then a few plain sentences; AER and the other measures explained where
// they appear; the line under the alignment in plain words, its technical details a click away.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, useBrowser } from './browser.mjs';

useBrowser();

// Each view's explanation: [tab, the details' id, words its text must use].
const EXPLAINED = [
  ['align', 'read-align', /row is a word of the translation.*column a word of the English/s],
  ['align', 'read-measures', /AER \(alignment error rate\).*Lower is better.*precision.*recall/s],
  ['model', 'read-model', /one head of one layer/],
  ['translate', 'read-translate', /one word at a time/],
  ['byo', 'read-byo', /gold corner triangles/],
  ['playground', 'read-playground', /weighted average of the value vectors/],
];

describe('the page explains its figures', () => {
  test('each figure has a "How to read" that opens into plain sentences and closes again', async () => {
    const { page, problems } = await openPage();
    for (const [view, id, words] of EXPLAINED) {
      await page.locator(`#tab-${view}`).click();
      const details = page.locator(`#${id}`);
      assert.equal(await details.evaluate((d) => d.open), false, `${id} starts closed`);
      const closedHeight = await details.evaluate((d) => d.getBoundingClientRect().height);
      await details.locator('summary').click();
      assert.equal(await details.evaluate((d) => d.open), true, `${id} opens`);
      assert.ok(await details.evaluate((d) => d.getBoundingClientRect().height) > closedHeight + 30, `${id} shows its sentences`);
      assert.match(await details.textContent(), words);
      // beside its figure: inside the same part of the view
      assert.equal(await details.evaluate((d) => Boolean(d.closest('.figures, figure'))), true, `${id} sits with the figures`);
      await details.locator('summary').click();
      assert.equal(await details.evaluate((d) => d.open), false, `${id} closes`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the line under the alignment says in plain words what the colours, the outlines and the AER are; the details follow a click away', async () => {
    const { page, problems } = await openPage();
    const line = page.locator('#align-model');
    const shown = await line.evaluate((element) => element.innerText);
    assert.match(shown, /^Colours: where the multilingual Transformer looked while reading each Spanish word; outlined: links that mix this attention with a statistical aligner\. AER 0\.\d\d against people's links \(0 is perfect\)\./);
    assert.doesNotMatch(shown, /3\+3 layers/, 'the technical line is a click away, not shown');
    const details = line.locator('details');
    assert.equal(await details.evaluate((d) => d.open), false);
    await details.locator('summary').click();
    assert.match(await line.evaluate((element) => element.innerText), /Drawn by the multilingual Transformer .*3\+3 layers.* · method hybrid · dev AER 0\.\d{3}/s);
    assert.equal(await line.locator('details a').textContent(), 'model card');
    // another method: the line follows it
    await page.selectOption('#method', 'itermax');
    await page.waitForFunction(() => /outlined: the itermax method's links/.test(document.getElementById('align-model').textContent), null, { timeout: 30000 });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
