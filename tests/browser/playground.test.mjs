// The playground's set-ups in the page: d2l's worked examples with queries, keys and values of
// their own shapes and a batch with valid lengths, each printing what d2l printed beside the page's
// own output; the masked softmax on scores as given; bad tensors refused in the library's words and
// the message gone once fixed; a link reproducing a set-up; the five tokens as before.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENSHOTS, figureOf, openPage, redrawn, useBrowser } from './browser.mjs';

useBrowser();

const ROW1 = [0.2976, 0.1095, 0.1805, 0.1805, 0.2318];  // the five tokens' first row (explorer.test.mjs)

const playing = (page, action) => redrawn(page, 'playground-heatmap', action);
const weights = async (page) => Array.from((await figureOf(page, 'playground-heatmap')).weights);
const rowOf = (page, id, row) => page.$$eval(`#${id} tr:nth-child(${row}) td`, (cells) => cells.map((c) => Number(c.textContent)));
const visible = (page, selector) => page.isVisible(selector);

async function openPlayground(path = '', options = {}) {
  const opened = await openPage(path, { ready: false, ...options });
  await opened.page.waitForSelector('body[data-playground-ready="true"]', { timeout: 60000 });
  return opened;
}

describe('playground errors', () => {
  test('local-p with D = 0 is explained in plain words beside D; torch.randn is read, seeded; the conventions are stated', async () => {
    const { page, problems } = await openPlayground();
    await page.selectOption('#local', 'predictive');
    await page.fill('#half-width', '0');
    await page.waitForSelector('#half-width-error:not([hidden])');
    const said = await page.textContent('#half-width-error');
    assert.match(said, /D = 0 leaves local-p no window/);
    assert.doesNotMatch(`${said} ${await page.textContent('#error')}`, /halfWidth|half_width|local\./);
    assert.equal(await page.isHidden('#error'), true);
    await playing(page, () => page.fill('#half-width', '1'));
    assert.equal(await page.isHidden('#half-width-error'), true);
    await playing(page, () => page.selectOption('#local', 'none'));
    await playing(page, () => page.selectOption('#playground-setup', 'd2l-dot'));
    await playing(page, () => page.fill('#pg-queries', 'torch.randn((2, 1, 2))'));
    assert.equal(await page.isHidden('#error'), true, await page.textContent('#error'));
    const first = await weights(page);
    await playing(page, () => page.fill('#pg-queries', 'torch.randn((2, 1, 2)) '));
    assert.deepEqual(await weights(page), first, 'the same text draws the same numbers');
    const conventions = await page.textContent('#pg-conventions');
    assert.match(conventions, /valid length of 0 .* row of zeros .* d2l.* uniform row/s);
    assert.match(conventions, /torch\.randn.*seeded/s);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a problem beside a control goes once its cause is switched off (D without a local window, the tokens\' valid length in a tensor set-up)', async () => {
    const { page, problems } = await openPlayground();
    await page.selectOption('#local', 'monotonic');
    await page.fill('#half-width', '');
    await page.waitForSelector('#half-width-error:not([hidden])');
    assert.match(await page.textContent('#half-width-error'), /D needs a number/);
    await playing(page, () => page.selectOption('#local', 'none'));
    assert.equal(await page.isHidden('#half-width-error'), true, 'D is not read without a local window');
    assert.equal(await page.getAttribute('#half-width', 'aria-invalid'), null);
    await page.fill('#valid-length', '9');
    await page.waitForSelector('#valid-length-error:not([hidden])');
    await playing(page, () => page.selectOption('#playground-setup', 'd2l-dot'));
    assert.equal(await page.isHidden('#valid-length-error'), true, 'the five tokens\' valid length is not read by a tensor set-up');
    assert.equal(await page.getAttribute('#pg-verdict', 'data-agrees'), 'true');
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('playground set-ups', () => {
  test('d2l\'s dot-product attention: (2, 1, 2) queries, (2, 10, 2) keys, valid lengths 2 and 6 print [2, 3, 4, 5] and [10, 11, 12, 13]', async () => {
    const { page, problems } = await openPlayground();
    const setups = await page.$$eval('#playground-setup option', (options) => options.map((o) => o.textContent));
    assert.ok(setups.some((text) => /d2l: masked_softmax/.test(text)) && setups.some((text) => /d2l: additive/.test(text)), setups.join(' | '));
    await playing(page, () => page.selectOption('#playground-setup', 'd2l-dot'));
    assert.equal(await page.inputValue('#pg-queries'), 'torch.ones((2, 1, 2))');
    assert.equal(await page.inputValue('#pg-valid-lengths'), 'torch.tensor([2, 6])');
    assert.equal(await visible(page, '#tokens'), false, 'the five-token table is hidden');
    assert.equal(await visible(page, '#heads'), false, 'heads: the batch goes to the library as heads');
    assert.equal(await page.getAttribute('#playground-heatmap', 'data-rows'), '1');
    assert.equal(await page.getAttribute('#playground-heatmap', 'data-cols'), '10');
    const first = await weights(page);
    first.forEach((w, k) => assert.ok(Math.abs(w - (k < 2 ? 0.5 : 0)) < 1e-6, `element 0, key ${k}: ${w}`));
    assert.deepEqual(await rowOf(page, 'output', 1), [2, 3, 4, 5]);
    await playing(page, () => page.fill('#pg-show', '1'));
    (await weights(page)).forEach((w, k) => assert.ok(Math.abs(w - (k < 6 ? 1 / 6 : 0)) < 1e-6, `element 1, key ${k}: ${w}`));
    assert.deepEqual(await rowOf(page, 'output', 1), [10, 11, 12, 13]);
    assert.equal(await page.textContent('#pg-ours'), await page.textContent('#pg-theirs'));
    assert.match(await page.textContent('#pg-theirs'), /\[\[\[2\.0000, 3\.0000, 4\.0000, 5\.0000\]\],\s+\[\[10\.0000, 11\.0000, 12\.0000, 13\.0000\]\]\]/);
    assert.equal(await page.getAttribute('#pg-verdict', 'data-agrees'), 'true');
    assert.match(await page.textContent('#pg-verdict'), /The same as the tutorial's output/);
    await page.screenshot({ path: new URL('playground-d2l.png', SCREENSHOTS).pathname, fullPage: true });

    // changed keys: no longer the tutorial's output, and the page says so
    await playing(page, () => page.fill('#pg-keys', 'torch.arange(40).reshape(2, 10, 2)'));
    assert.equal(await page.getAttribute('#pg-verdict', 'data-agrees'), 'false');
    assert.match(await page.textContent('#pg-verdict'), /Not the tutorial's output: the largest difference is/);

    // the link reproduces the set-up and its tensors in a new page
    await playing(page, () => page.selectOption('#playground-setup', 'd2l-additive'));
    assert.equal(await page.inputValue('#score'), 'additive');
    assert.equal(await page.inputValue('#pg-keys'), 'torch.ones((2, 10, 2))', 'choosing a set-up puts its own tensors back');
    assert.equal(await page.getAttribute('#pg-verdict', 'data-agrees'), 'true');
    const link = new URL(page.url());
    assert.match(link.hash, /playground-setup=d2l-additive/);
    const again = await openPlayground(link.hash);
    assert.equal(await again.page.inputValue('#playground-setup'), 'd2l-additive');
    assert.equal(await again.page.inputValue('#score'), 'additive');
    assert.equal(await again.page.getAttribute('#pg-verdict', 'data-agrees'), 'true');
    assert.deepEqual(await rowOf(again.page, 'output', 1), [2, 3, 4, 5]);
    // a link naming only the set-up fills its tensors
    const bare = await openPlayground('#playground-setup=d2l-dot');
    assert.equal(await bare.page.inputValue('#pg-values'), 'torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)');
    assert.equal(await bare.page.getAttribute('#pg-verdict', 'data-agrees'), 'true');
    assert.deepEqual([...problems, ...again.problems, ...bare.problems], []);
    await Promise.all([page.close(), again.page.close(), bare.page.close()]);
  });

  test('d2l\'s masked_softmax: scores taken as given, zero past each valid length (per element, then per row)', async () => {
    const { page, problems } = await openPlayground();
    await playing(page, () => page.selectOption('#playground-setup', 'd2l-masked-softmax'));
    assert.equal(await page.isDisabled('#score'), true, 'the score function does not apply to given scores');
    assert.match(await page.getAttribute('#score', 'title'), /takes its scores as given/);
    assert.equal(await visible(page, '#pg-queries'), false);
    assert.equal(await visible(page, '#pg-x'), true);
    const element = async (b) => { await playing(page, () => page.fill('#pg-show', String(b))); return weights(page); };
    const keep = [2, 3];
    for (const b of [0, 1]) {
      const w = await element(b);
      for (let r = 0; r < 2; r++) {
        const row = w.slice(r * 4, r * 4 + 4);
        row.forEach((x, c) => assert.ok(c < keep[b] ? x > 0 : x === 0, `element ${b} row ${r} key ${c}: ${x}`));
        assert.ok(Math.abs(row.reduce((a, x) => a + x, 0) - 1) < 1e-5);
      }
    }
    assert.equal(await page.getAttribute('#pg-verdict', 'data-agrees'), 'true');
    // the scores table shows the input X of the element shown
    assert.match(await page.textContent('#scores-caption'), /scores X/);
    await playing(page, () => page.selectOption('#playground-setup', 'd2l-masked-softmax-rows'));
    const rows = await weights(page);  // element 0: valid lengths 1 and 3
    assert.deepEqual(rows.slice(0, 4), [1, 0, 0, 0]);
    assert.ok(rows.slice(4, 7).every((x) => x > 0) && rows[7] === 0);
    await playing(page, () => page.selectOption('#playground-setup', 'tokens'));
    assert.equal(await page.isDisabled('#score'), false);
    assert.equal(await visible(page, '#tokens'), true);
    (await weights(page)).slice(0, 5).forEach((w, s) => assert.ok(Math.abs(w - ROW1[s]) < 1e-4, `five tokens, row 1 col ${s}: ${w}`));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('tensors that cannot be read or do not fit are refused, naming the box; fixing them clears it', async () => {
    const { page, problems } = await openPlayground('#playground-setup=d2l-dot');
    await page.waitForSelector('#pg-verdict[data-agrees="true"]');
    const refusedWith = async (id, text, pattern) => {
      await page.fill(`#${id}`, text);
      // the message for this text (an earlier one may still be shown while the update runs)
      await page.waitForFunction(([source, flags]) => {
        const error = document.getElementById('error');
        return !error.hidden && new RegExp(source, flags).test(error.textContent);
      }, [pattern.source, pattern.flags], { timeout: 5000 }).catch(() => {});
      assert.match(await page.textContent('#error'), pattern);
      assert.equal(await page.getAttribute('#playground-heatmap', 'data-rows'), '0', 'no stale figure stays');
      assert.equal(await page.textContent('#pg-verdict'), '');
    };
    await refusedWith('pg-keys', 'torch.ones((2, 10, 2)', /keys: “\)” expected at the end/);
    assert.equal(await page.getAttribute('#pg-keys', 'aria-invalid'), 'true');
    await playing(page, () => page.fill('#pg-keys', 'torch.ones((2, 10, 2))'));
    assert.equal(await page.isHidden('#error'), true);
    assert.equal(await page.getAttribute('#pg-keys', 'aria-invalid'), 'false');
    await refusedWith('pg-values', 'torch.ones((2, 9, 4))', /keys have 10 rows and values 9: one value per key is needed/);
    await playing(page, () => page.fill('#pg-values', 'torch.arange(40.0).reshape(1, 10, 4)'));  // a batch of 1 broadcasts
    assert.equal(await page.getAttribute('#pg-verdict', 'data-agrees'), 'true');
    await refusedWith('pg-valid-lengths', '2, 11', /valid lengths must be whole numbers from 0 to 10/);
    await playing(page, () => page.fill('#pg-valid-lengths', '2, 6'));
    assert.equal(await page.getAttribute('#pg-verdict', 'data-agrees'), 'true');
    await refusedWith('pg-queries', 'torch.eye(2)', /queries: torch\.eye\(\) is not one of ones, zeros, arange, rand, randn, normal, tensor/);
    // 3-d queries, 2-d keys: the library's own words
    await refusedWith('pg-queries', 'torch.ones((2, 1, 3))', /keyDim \(2\) must equal dim \(3\) for the scaled_dot score/);
    // a local window as wide as the keys allow (the five tokens' limit, 4, does not apply)
    await playing(page, () => page.fill('#pg-queries', 'torch.ones((2, 1, 2))'));
    await page.selectOption('#local', 'monotonic');
    await playing(page, () => page.fill('#half-width', '7'));
    assert.equal(await page.isHidden('#error'), true, await page.textContent('#error'));
    assert.equal(await page.isHidden('#half-width-error'), true);
    await page.selectOption('#local', 'none');
    await refusedWith('pg-queries', '<img src=x onerror=alert(1)>', /queries: a list such as/);
    assert.equal(await page.$$eval('#playground img', (images) => images.length), 0, 'text, never markup');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
