// Shareable state and exports in Debian's Chromium: every control's value goes into the URL hash
// and comes back from it, on load and when the hash changes in the same tab; the SVG, PNG, JSON
// and links exports are valid files with a title and a legend, readable in the dark theme too.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { contrast, cssColour, openPage, rgbOf, useBrowser } from './browser.mjs';

const session = useBrowser();

const save = async (page, button) => {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return readFile(await download.path());
};

// The controls the hash carries, and a value for each that is not its default.
const CHANGED = {
  '#source': 'The red house .', '#target': 'La casa roja .', '#method': 'threshold', '#threshold': '0.15', '#shift': true,
  '#compare': true, '#colormap': 'gray', '#translate-source': 'The cat sleeps .', '#beam': '3', '#byo-aggregate': 'mean',
  '#byo-special': false, '#byo-method': 'itermax', '#byo-layer': '1', '#byo-head': '2', '#score': 'dot', '#temperature': '2',
  '#causal': true, '#valid-length': '4', '#heads': '2', '#show-head': '1', '#token-0-0': '0.5',
};

async function setControls(page, values) {
  for (const [selector, value] of Object.entries(values)) {
    const kind = await page.$eval(selector, (e) => (e.tagName === 'SELECT' ? 'select' : e.type));
    if (kind === 'checkbox' && await page.isDisabled(selector)) {
      // a box disabled because it changes nothing here (shift, for a model always read shifted)
      // still travels in the link: set as a link would set it
      await page.$eval(selector, (box, checked) => {
        box.checked = checked;
        box.dispatchEvent(new Event('input', { bubbles: true }));
      }, value);
    } else if (kind === 'checkbox') await page.setChecked(selector, value);
    else if (kind === 'select') await page.selectOption(selector, value);
    else await page.fill(selector, value);
  }
}

async function readControls(page, selectors) {
  const values = {};
  for (const selector of selectors) {
    values[selector] = await page.$eval(selector, (e) => (e.type === 'checkbox' ? e.checked : e.value));
  }
  return values;
}

describe('shareable state', () => {
  test('every control goes into the URL hash and a new page restores it', async () => {
    const { page, problems } = await openPage();
    await setControls(page, CHANGED);
    await page.click('#align-view .zoom button[aria-label="zoom in"]');
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.cols === '4');
    const url = page.url();
    assert.match(url, /#.*s=The\+red\+house/);
    assert.match(url, /th=0\.15/);
    assert.equal(await page.getAttribute('#share', 'href'), url);
    const zoomed = await page.getAttribute('#heatmap', 'data-cell');
    const { page: again, problems: more } = await openPage(url.slice(session.base.length));
    assert.deepEqual(await readControls(again, Object.keys(CHANGED)), CHANGED);
    await again.waitForFunction(() => document.getElementById('heatmap').dataset.cols === '4');
    assert.equal(await again.getAttribute('#heatmap', 'data-cell'), zoomed);
    await again.waitForFunction(() => !document.getElementById('compare-figure').hidden, null, { timeout: 20000 });
    assert.deepEqual([...problems, ...more], []);
    await page.close();
    await again.close();
  });

  test('changing the hash in the same tab changes the view', async () => {
    const { page, problems } = await openPage();
    await page.evaluate(() => { location.hash = 's=Good+morning+.&m=itermax&th=0.4&c=gray&beam=2'; });
    await page.waitForFunction(() => document.getElementById('heatmap').dataset.cols === '3', null, { timeout: 15000 });
    assert.deepEqual(await readControls(page, ['#source', '#method', '#threshold', '#colormap', '#beam', '#target']),
      { '#source': 'Good morning .', '#method': 'itermax', '#threshold': '0.4', '#colormap': 'gray', '#beam': '2', '#target': 'El anciano camina al mercado cada mañana .' });
    const figure = await page.evaluate(async () => (await import('./views.mjs')).heatmapOf(document.getElementById('heatmap')).figure.colormap);
    assert.equal(figure, 'gray');
    // a key left out means its default; a value the input refuses is said next to it
    await page.evaluate(() => { location.hash = 's=Good+morning+.&th=abc'; });
    await page.waitForFunction(() => document.getElementById('method').value === 'hybrid');  // en-es's default
    assert.equal(await page.inputValue('#colormap'), 'viridis');
    // (the hybrid reads no threshold, so its box is disabled and says nothing: a method that reads it)
    await page.evaluate(() => { location.hash = 's=Good+morning+.&m=soft-threshold&th=abc'; });
    await page.waitForFunction(() => !document.getElementById('threshold-error').hidden);
    assert.match(await page.textContent('#threshold-error'), /threshold needs a number/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('exports', () => {
  test('SVG, PNG, JSON and links exports are valid files, with a title and a legend and no embedded font', async () => {
    const { page, problems } = await openPage();
    const svg = (await save(page, '#export-svg')).toString('utf8');
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // parsed on a blank page: the explorer's CSP is not the file's concern
    const blank = await session.browser.newPage();
    assert.equal(await blank.evaluate((text) => new DOMParser().parseFromString(text, 'image/svg+xml').querySelector('parsererror'), svg), null);
    await blank.close();
    assert.equal((svg.match(/class="cell"/g) ?? []).length, 80);
    assert.equal((svg.match(/class="link-mark"/g) ?? []).length, (await page.textContent('#pharaoh')).split(' ').filter(Boolean).length);
    assert.match(svg, /<title>Attention of the en-es model[^<]*<\/title>/);
    assert.match(svg, /class="title"[^>]*>Attention of the en-es model/);
    assert.match(svg, />link<\/text>/);  // the legend
    assert.match(svg, /font-family="&quot;DejaVu Sans&quot;/);
    assert.ok(svg.length < 100000, `the SVG of an 8 x 10 heatmap is ${svg.length} bytes`);
    assert.doesNotMatch(svg, /@font-face|base64/);
    const png = await save(page, '#export-png');
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const svgWidth = Number(/width="(\d+)"/.exec(svg)[1]), svgHeight = Number(/height="(\d+)"/.exec(svg)[1]);
    // the lines saying what drew it wrap: a slide gets the figure, not a strip of text
    const captions = svg.match(/class="caption"/g) ?? [];
    assert.ok(captions.length >= 2, `${captions.length} caption lines`);
    assert.ok(svgWidth <= 700, `the SVG of an 8 x 10 heatmap is ${svgWidth} px wide`);
    assert.equal(png.readUInt32BE(16), 2 * svgWidth);
    assert.equal(png.readUInt32BE(20), 2 * svgHeight);
    const json = JSON.parse((await save(page, '#export-json')).toString('utf8'));
    assert.equal(json.source.length, 10);
    assert.equal(json.target.length, 8);
    assert.equal(json.weights.length, 8);
    assert.equal(json.weights[0].length, 10);
    const links = (await save(page, '#export-links')).toString('utf8');
    assert.equal(links.trim(), (await page.textContent('#pharaoh')).trim());
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('exports from the dark theme are readable: light labels on a dark background, in SVG and PNG', async () => {
    const { page, problems } = await openPage('', { colorScheme: 'dark' });
    const background = rgbOf(await cssColour(page, '--bg'));
    assert.ok(background[0] < 60, 'the page is dark');
    const svg = (await save(page, '#export-svg')).toString('utf8');
    const fills = await page.evaluate((text) => {
      const root = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
      return {
        background: root.querySelector('rect').getAttribute('fill'),
        labels: [...root.querySelectorAll('text.label, text.title')].map((t) => t.getAttribute('fill')),
      };
    }, svg);
    assert.deepEqual(rgbOf(fills.background), background);
    for (const fill of new Set(fills.labels)) assert.ok(contrast(rgbOf(fill), background) >= 4.5, `label colour ${fill} on the background`);
    const png = await save(page, '#export-png');
    const pixels = await page.evaluate(async (bytes) => {
      const bitmap = await createImageBitmap(new Blob([new Uint8Array(bytes)], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext('2d');
      context.drawImage(bitmap, 0, 0);
      const data = context.getImageData(0, 0, bitmap.width, 60).data;  // the title's band
      const colours = new Set();
      for (let i = 0; i < data.length; i += 4) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      return { corner: Array.from(data.slice(0, 3)), colours: [...colours].map((c) => c.split(',').map(Number)) };
    }, [...png]);
    assert.deepEqual(pixels.corner, background);
    const lightest = pixels.colours.reduce((best, c) => (contrast(c, background) > contrast(best, background) ? c : best));
    assert.ok(contrast(lightest, background) >= 4.5, 'the PNG title stands out from its background');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
