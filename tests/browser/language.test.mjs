// The interface in English or 中文 in Debian's Chromium (web/page/i18n.mjs, strings-zh.mjs): the
// switch translates the page's own text, its explanations and the line under the alignment, keeps
// the choice in the URL hash, gives back the English exactly, never touches the reader's text,
// says in Chinese what the views find as they run (refused files, tensors, numbers, the methods),
// and every string of index.html has its Chinese.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { ROOT, SCREENSHOTS, openPage, useBrowser } from './browser.mjs';

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

  test('中文 says the module line, the legend, the long-sentence warning and the lines under the figures, and the model view\'s messages', async () => {
    // the legend is a canvas: its words are what it fills in, recorded per canvas
    const recordLegends = (p) => p.addInitScript(() => {
      const fillText = CanvasRenderingContext2D.prototype.fillText;
      window.legendWords = {};
      CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
        if (this.canvas.classList?.contains('legend')) (window.legendWords[this.canvas.id] ??= []).push(String(text));
        return fillText.call(this, text, ...rest);
      };
    });
    const legendWords = () => page.evaluate(() => window.legendWords['heatmap-legend'] ?? []);
    const { page, problems } = await openPage('#lang=zh', { width: 1400, height: 900, before: recordLegends });
    const line = (id, pattern, timeout = 60000) => page.waitForFunction(([element, source]) => new RegExp(source).test(document.getElementById(element).textContent),
      [id, pattern.source], { timeout }).then(() => page.textContent(`#${id}`));
    // the module's line at the top right: its build, then what the pair has loaded
    const build = await line('build', /^WebAssembly .+版本（.+(个线程|单线程)） · 已加载 en-es 的对齐器及其注意力模型$/);
    assert.doesNotMatch(build, /build|thread|loaded/);
    await page.waitForFunction(() => Number(document.getElementById('heatmap').dataset.rows) > 0, null, { timeout: 60000 });
    assert.ok((await legendWords()).includes('对齐'), (await legendWords()).join());
    assert.ok(!(await legendWords()).includes('link'));
    const legendName = () => page.getAttribute('#heatmap-legend', 'aria-label');
    assert.equal(await legendName(), '颜色图例：深紫色为 0，黄色为 1；对齐以方框标出');
    // the exported figure: its legend in Chinese too, and its Chinese caption wrapped to the figure
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
    const svg = await readFile(await download.path(), 'utf8');
    assert.match(svg, /<title>en-es 模型的注意力，行是西班牙语，列是英语，hybrid 对齐<\/title>/);
    assert.match(svg, /<text[^>]*>对齐<\/text>/);
    assert.doesNotMatch(svg, /<text[^>]*>link<\/text>/);
    const captionLines = [...svg.matchAll(/<text[^>]*class="caption"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    assert.ok(captionLines.length >= 2 && captionLines.join('').startsWith('由多语言 Transformer'), JSON.stringify(captionLines));
    assert.ok(Number(/<svg[^>]*width="(\d+)"/.exec(svg)[1]) < 1000, 'the caption wraps: the figure is not one long line wide');
    // a pair longer than what the model learned from: the warning under the figure
    const words = (n, word) => Array.from({ length: n }, (_, i) => `${word}${i % 7}`).join(' ');
    await page.selectOption('#method', 'argmax');
    await page.fill('#source', `${words(60, 'file')} .`);
    await page.fill('#target', `${words(58, 'archivo')} .`);
    await line('align-model', /⚠ 61 个词：比模型学过的几乎所有句子都长（99 % 的句子不超过 26 个词）；在这个长度上/);
    const details = await page.textContent('#align-model details');
    assert.match(details, /由多语言 Transformer（英语 ↔ 12 种语言）（.+）绘制 · 方法 argmax · 在 en-es 的金标准开发集上 AER 为 0\.\d{3}。⚠ 61 个词/);
    assert.doesNotMatch(details, /Drawn by|method argmax|words:/);
    // the general-attention model's figure, and the translation's: what drew them, from the model index's facts
    await page.check('#compare');
    const compare = await line('compare-model', /^由general 注意力 RNN（en-es）（编码器 192，解码器 256，[\d.]+ M 个参数，在西班牙语软件字符串和经 apertium 翻译的英文文章上训练 \d+ 分钟 CPU）绘制 · 它的注意力，argmax 对齐（不是对齐视图所用的方法）。/);
    assert.doesNotMatch(compare, /Drawn by|parameters|minutes/);
    await page.locator('#tab-translate').click();
    const translation = await line('translate-model-line', /^由多语言 Transformer（英语 ↔ 12 种语言）（3\+3 层，d 256，4 个头，[\d.]+ M 个参数，在Debian 人工翻译的帮助、界面和消息目录上训练 \d+ 分钟 CPU 和 \d+ 分钟 GPU）绘制 · 它在束宽为 \d+ 的翻译中的编码器–解码器注意力/);
    assert.doesNotMatch(translation, /Drawn by|parameters|minutes|while translating/);
    // the model view: a map large, with its line, and a choice it cannot draw
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => Number(document.getElementById('model-view').dataset.layers) > 0, null, { timeout: 60000 });
    await page.click('#model-view [data-layer="1"][data-head="0"]');
    await page.waitForSelector('#head-figure:not([hidden])');
    assert.equal(await page.textContent('#head-caption'), '编码器–解码器注意力，第 1 层第 0 个头');
    assert.match(await page.textContent('#head-model'), /^由多语言 Transformer（英语 ↔ 12 种语言）.*绘制 · 编码器–解码器注意力，第 1 层第 0 个头/);
    await page.selectOption('#model-aggregate', 'rollout');
    await line('model-status', /^展开（rollout）沿着各层的自注意力进行：请选择编码器或解码器自注意力。$/);
    await page.screenshot({ path: new URL('language-zh-lines.png', SCREENSHOTS).pathname });
    // and in English, as the page writes it
    await page.evaluate(() => { window.legendWords = {}; });
    await page.selectOption('#ui-language', 'en');
    assert.match(await page.textContent('#build'), /^WebAssembly \S+ build \(.+\) · the en-es aligner and its attention model loaded$/);
    assert.equal(await page.textContent('#model-status'), 'Rollout follows self-attention through the layers: choose encoder or decoder self-attention.');
    assert.match(await page.textContent('#translate-model-line'), /^Drawn by the multilingual Transformer \(English ↔ 12 languages\) \(3\+3 layers, d 256, 4 heads, [\d.]+ M parameters, \d+ CPU and \d+ GPU minutes on Debian’s human-translated help, UI and catalogs\) · its encoder–decoder attention/);
    assert.match(await page.textContent('#compare-model'), /^Drawn by the RNN with general attention \(en-es\) \(encoder 192, decoder 256, [\d.]+ M parameters, \d+ CPU minutes on Spanish software strings/);
    assert.match(await page.textContent('#align-model'), /⚠ 61 words: longer than nearly every sentence the model learned from/);
    assert.match(await page.textContent('#align-model details'), /Drawn by the multilingual Transformer .+ · method argmax · dev AER 0\.\d{3} on en-es’s gold dev set\. ⚠ 61 words: /);
    await page.locator('#tab-align').click();
    await page.waitForFunction(() => (window.legendWords['heatmap-legend'] ?? []).includes('link'));
    assert.equal(await legendName(), 'colour legend: dark purple is 0, yellow is 1; links are outlined');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('中文 in the Images view: its status, the line under the picture, the stepper, the scene editor and refused files', async () => {
    const { page, problems } = await openPage('#lang=zh&view=images', { width: 1400, height: 900 });
    await page.waitForSelector('#caption[data-caption]', { timeout: 60000 });
    const text = (id) => page.textContent(`#${id}`);
    assert.match(await text('caption-status'), /^场景：“.+”（软注意力；在 worker 中用时 [\d.]+ 毫秒）$/);
    assert.match(await text('caption-model'), /^由Show, Attend and Tell 图像描述模型（CNN 输出 12 × 12 网格，.+个参数，在纯色背景上 \d+ 种 OpenMoji 手绘物体（CC BY-SA 4\.0）组成的场景上训练 \d+ 分钟 CPU）绘制 · 在 [\d.]+ % 的留出场景中（未见过的物体组合，1,000 个），它最强的格子落在词所指的物体上。/);
    assert.match(await text('caption-step-label'), /^第 1 个词，共 \d+ 个：“.+”$/);
    assert.equal(await page.textContent('#caption-presets button'), '狗和它的球');
    await page.click('#caption-play');
    assert.equal(await text('caption-play'), '停止');
    await page.click('#caption-play');
    assert.equal(await text('caption-play'), '播放');
    // the scene editor's line, and the note on a scene unlike the training scenes
    for (const name of ['tree', 'cat', 'house']) {
      await page.locator(`.palette-object[data-name="${name}"]`).focus();
      await page.keyboard.press('Enter');
    }
    assert.equal(await text('caption-edit-status'), '已添加 house。');
    const frameName = () => page.getAttribute('.scene-object[data-name="house"]', 'aria-label');
    assert.match(await frameName(), /^house，距左边 \d+ %，距上边 \d+ %，大小为边长的 \d+ %；方向键移动它，\+ 和 − 改变大小，Delete 键移除它$/);
    assert.equal(await page.getAttribute('.palette-object[data-name="cat"]', 'aria-label'), '添加 cat');
    assert.equal(await page.getAttribute('.scene-object[data-name="house"] .remove-object', 'aria-label'), '移除 house');
    await page.waitForFunction(() => /^这个场景里有5 个物体（训练场景只有 1–4 个）/.test(document.getElementById('caption-note').textContent), null, { timeout: 30000 });
    // a photo the browser cannot read, and maps the worker refuses
    await page.setInputFiles('#caption-photo', { name: 'not-an-image.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
    await page.waitForSelector('#caption-photo-error:not([hidden])');
    assert.equal(await text('caption-photo-error'), 'not-an-image.png 不是此浏览器能读取的图片（PNG 或 JPEG）');
    await page.click('.byo-caption summary');
    await page.fill('#caption-byo-words', 'a dog');
    await page.setInputFiles('#caption-byo-image', new URL('tests/data/captioner-tiny.png', ROOT).pathname);
    await page.setInputFiles('#caption-byo-attention', { name: 'negative.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ attention: [[[0, -1]], [[1, 0]]] })) });
    await page.waitForSelector('#caption-byo-error:not([hidden])', { timeout: 30000 });
    assert.equal(await text('caption-byo-error'), '注意力数据在 [0, 0, 1] 处是 -1：注意力权重不能为负');
    await page.screenshot({ path: new URL('language-zh-images.png', SCREENSHOTS).pathname });
    // and in English, every one of them as the view writes it
    await page.selectOption('#ui-language', 'en');
    assert.match(await text('caption-status'), /^The scene: “.+” \(soft attention; [\d.]+ ms in the worker\)$/);
    assert.match(await text('caption-model'), /^Drawn by the Show, Attend and Tell image captioner \(CNN to a 12 × 12 grid, .+ · its strongest cell falls on the object a word names in [\d.]+ % of held-out scenes \(unseen pairs, 1,000\)\. /);
    assert.match(await text('caption-step-label'), /^word 1 of \d+: “.+”$/);
    assert.equal(await page.textContent('#caption-presets button'), 'A dog and its ball');
    assert.equal(await text('caption-play'), 'Play');
    assert.equal(await text('caption-edit-status'), 'Added a house.');
    assert.match(await frameName(), /^house, \d+ % from the left, \d+ % from the top, \d+ % of the side; arrow keys move it, \+ and − resize it, Delete removes it$/);
    assert.equal(await page.getAttribute('.palette-object[data-name="cat"]', 'aria-label'), 'add a cat');
    assert.match(await text('caption-note'), /^This scene has 5 objects \(training scenes had 1–4\)/);
    assert.equal(await text('caption-photo-error'), 'not-an-image.png is not an image this browser can read (PNG or JPEG)');
    assert.equal(await text('caption-byo-error'), 'the attention holds -1 at [0, 0, 1]: attention weights are not negative');
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
