// The interface in English or 中文 in Debian's Chromium (web/page/i18n.mjs, strings-zh.mjs): the
// switch translates the page's own text, its explanations and the line under the alignment, keeps
// the choice in the URL hash, gives back the English exactly, never touches the reader's text,
// says in Chinese what the views find as they run (refused files, tensors, numbers, the methods),
// and every string of index.html has its Chinese.
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
    // the notes the view writes beside its figure and settings: how familiar the pair is, the line view's legend, the shift box
    assert.match(await page.textContent('#align-familiarity'), /^这个句对.*留出句子/);
    assert.match(await page.textContent('#align-view .line-legend'), /^每个目标词（下方）连向它最关注的 \d 个源词（上方）/);
    assert.match(await page.textContent('#shift-note'), /^移位在这里不起作用：这个模型总是在那一步读取/);
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
    assert.match(await page.textContent('#align-familiarity'), /^This sentence pair /);
    assert.match(await page.textContent('#shift-note'), /^Shift does nothing here: this model is always read there/);
    assert.match(await page.textContent('#model-status'), /Transformer, 3 layers × 4 heads \(counted from 0\)/);
    assert.match(await page.textContent('#step-label'), /^\d+ of \d+/);
    assert.equal(await page.textContent('#translate-source-language'), 'English');
    assert.doesNotMatch(page.url(), /lang=/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('中文 says what the views find as they run: a refused file, a tensor that does not parse, a number put in range, the methods; the library\'s own words after a lead-in', async () => {
    const { page, problems } = await openPage('#lang=zh&view=byo', { width: 1400, height: 900 });
    const file = (name, text) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
    const problemOf = (id, start) => page.waitForFunction(([box, lead]) => {
      const element = document.getElementById(`${box}-error`);
      return element && !element.hidden && element.textContent.startsWith(lead) ? element.textContent : null;
    }, [id, start], { timeout: 20000 }).then((handle) => handle.jsonValue());
    // Bring your own: the page's parser refuses a ragged matrix, in Chinese
    await page.setInputFiles('#byo-file', [file('ragged.json', JSON.stringify({ weights: [[0.5, 0.5], [1]] }))]);
    assert.equal(await problemOf('byo-file', 'ragged.json'), 'ragged.json："weights" 不是规整的矩形：weights[1] 有 1 项，而这里应有 2 个数');
    // the library's own parser refuses a gold line: its words stay English, after a Chinese lead-in
    await page.setInputFiles('#byo-file', [file('bad.align', '0-0 1-x')]);
    assert.match(await problemOf('byo-file', 'bad.align'), /^bad\.align：计算库报错（英文原文）：[\x20-\x7e]+$/);
    await page.setInputFiles('#byo-file', [file('good.json', JSON.stringify({ source: ['a', 'b'], target: ['c', 'd'], weights: [[0.9, 0.1], [0.2, 0.8]] }))]);
    await page.waitForFunction(() => document.getElementById('byo-status').textContent === '已载入 good.json：2 × 2');
    assert.match(await page.$eval('#byo-method', (select) => select.options[0].textContent), /^argmax：每个目标词最关注的源词/);
    // the playground: a tensor that does not parse, a set-up's note, a number put in range
    await page.locator('#tab-playground').click();
    assert.equal(await page.textContent('#playground-note'), '五个 4 维词元同时作为查询、键和值。修改一个数值，或换一种分数函数和概率函数；权重随输入实时更新。');
    await page.fill('#temperature', '50');
    assert.equal(await problemOf('temperature', '温度'), '温度 50 大于 20：改用 20');
    await page.selectOption('#playground-setup', 'tensors');
    await page.fill('#pg-queries', '[[1, 0], [0, 1');
    await page.waitForFunction(() => !document.getElementById('error').hidden);
    assert.equal(await page.textContent('#error'), '查询：结尾处缺少“]”');
    await page.screenshot({ path: new URL('language-zh-messages.png', SCREENSHOTS).pathname });
    // and back in English, every one of them as the page writes it
    await page.selectOption('#ui-language', 'en');
    assert.equal(await page.textContent('#error'), 'queries: “]” expected at the end');
    assert.equal(await page.textContent('#temperature-error'), 'temperature 50 is above 20: using 20');
    assert.equal(await page.textContent('#byo-status'), 'Loaded good.json: 2 × 2');
    assert.match(await page.$eval('#byo-method', (select) => select.options[0].textContent), /^argmax: each target word's most attended source word/);
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
