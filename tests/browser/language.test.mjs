// The interface in English or 中文 in Debian's Chromium (web/page/i18n.mjs, strings-zh.mjs): the
// switch translates the page's own text, its explanations and the line under the alignment, keeps
// the choice in the URL hash, gives back the English exactly, never touches the reader's text, and
// every string of index.html has its Chinese.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENSHOTS, openPage, useBrowser } from './browser.mjs';

const session = useBrowser();

// The page's own text as shown: the tabs, headings, labels, hints and explanations (not the figures).
const ownText = (page) => page.evaluate(() => [...document.querySelectorAll('[role="tab"], h2, label, .hint, .how-to-read, legend, figcaption, summary')]
  .map((e) => e.textContent.replace(/\s+/g, ' ').trim()));

describe('the interface language', () => {
  test('中文 translates the tabs, headings, explanations and the line under the alignment, and English comes back exactly', async () => {
    const { page, problems } = await openPage('', { width: 1400, height: 900 });
    await page.locator('#tab-model').click();  // its grid and head view drawn in English first
    await page.waitForFunction(() => Number(document.getElementById('all-heads').dataset.lines) > 0, null, { timeout: 60000 });
    await page.locator('#tab-align').click();
    const english = await ownText(page);
    const sentences = [await page.inputValue('#source'), await page.inputValue('#target')];
    await page.selectOption('#ui-language', 'zh');
    assert.match(page.url(), /lang=zh/);
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-Hans');
    assert.equal(await page.textContent('#tab-align'), '对齐');
    assert.equal(await page.textContent('#tab-playground'), '演练场');
    assert.equal(await page.textContent('#align-title'), '注意力如何对齐一个句子和它的译文');
    assert.equal(await page.textContent('#read-align summary'), '如何读这张图');
    assert.match(await page.textContent('#read-measures'), /AER（对齐错误率）.*越低越好/s);
    assert.equal(await page.$eval('#pair', (select) => select.selectedOptions[0].textContent), '英语–西班牙语');
    await page.waitForFunction(() => /^颜色：多语言 Transformer读到每个西班牙语词时看向哪里/.test(document.getElementById('align-model').textContent));
    assert.match(await page.textContent('#align-model'), /AER 为 0\.\d\d（0 表示完全一致）/);
    assert.equal(await page.getAttribute('#views', 'aria-label'), '视图');
    assert.match(await page.textContent('#align-status'), /^8 × 10 个词，对齐用时 [\d.]+ 毫秒/);
    // the lines the views write as they work, in the model view
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => /Transformer，3 层 × 4 个头（从 0 数起）/.test(document.getElementById('model-status').textContent), null, { timeout: 60000 });
    assert.match(await page.textContent('#model-links-from'), /^对齐视图的对齐来自编码器–解码器注意力的第 1 层第 0 个头/);
    await page.waitForFunction(() => document.querySelector('#heads-legend [data-head="0"]')?.textContent === '头 0');
    // and in the translation view
    await page.locator('#tab-translate').click();
    assert.equal(await page.textContent('#translate-source-language'), '英语');
    assert.match(await page.textContent('#step-label'), /^第 \d+ 个，共 \d+ 个(：“.+”)?$/);
    await page.locator('#tab-align').click();
    // the reader's sentences and the figures' words are the reader's, in any interface
    assert.deepEqual([await page.inputValue('#source'), await page.inputValue('#target')], sentences);
    await page.screenshot({ path: new URL('language-zh.png', SCREENSHOTS).pathname });
    // a link keeps the language
    const { page: again } = await openPage(page.url().slice(session.base.length));
    assert.equal(await again.textContent('#tab-model'), '模型内部');
    await again.close();
    await page.selectOption('#ui-language', 'en');
    assert.deepEqual(await ownText(page), english);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.match(await page.textContent('#align-model'), /^Colours: where the multilingual Transformer looked/);
    assert.match(await page.textContent('#align-status'), /^8 × 10 words, aligned in/);
    assert.match(await page.textContent('#model-status'), /Transformer, 3 layers × 4 heads \(counted from 0\)/);
    assert.match(await page.textContent('#step-label'), /^\d+ of \d+/);
    assert.equal(await page.textContent('#translate-source-language'), 'English');
    assert.doesNotMatch(page.url(), /lang=/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('every string of index.html has its Chinese', async () => {
    const { page, problems } = await openPage();
    const missing = await page.evaluate(async () => {
      const { ZH } = await import('./strings-zh.mjs');
      const html = new DOMParser().parseFromString(await (await fetch('./index.html')).text(), 'text/html');
      const keep = 'script, style, textarea, code, pre, output, title';
      const strings = [];
      const walker = html.createTreeWalker(html.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.parentElement.closest(keep)) strings.push(node.textContent.replace(/\s+/g, ' ').trim());
      }
      for (const element of html.body.querySelectorAll('[aria-label], [title], [placeholder]')) {
        for (const name of ['aria-label', 'title', 'placeholder']) if (element.hasAttribute(name)) strings.push(element.getAttribute(name));
      }
      // a name, a file format or a symbol reads the same in both languages
      const same = new Set(['attnscope', 'SVG', 'PNG', 'D', 'English–Spanish', 'English', '中文']);
      return [...new Set(strings)].filter((text) => /[A-Za-z]/.test(text) && !same.has(text) && !(text in ZH));
    });
    assert.deepEqual(missing, []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
