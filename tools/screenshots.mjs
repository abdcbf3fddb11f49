// The README's screenshots of the explorer's first screen, taken in Debian's Chromium from the
// built page (cmake --build --preset wasm-simd first): what a newcomer sees before scrolling, on a
// desktop (1400 x 900) and a phone (390 x 844, touch), once the default pair's default method has
// drawn (body[data-ready]): the heatmap with its links, the line under it that names the model,
// method and dev AER, and the presets; then three tabs and the Chinese interface on a desktop.
//   node tools/screenshots.mjs [--out docs/screenshots]
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const at = process.argv.indexOf('--out');
const out = resolve(at > 0 ? process.argv[at + 1] : new URL('../docs/screenshots/', import.meta.url).pathname);
mkdirSync(out, { recursive: true });

const server = await serve(new URL('../web/page/', import.meta.url).pathname, 0);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const url = `http://127.0.0.1:${server.address().port}/`;
  for (const [file, options] of [
    ['first-screen.png', { viewport: { width: 1400, height: 900 } }],
    ['first-screen-phone.png', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 }],
  ]) {
    const page = await browser.newPage({ ...options, colorScheme: 'light' });
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: join(out, file) });  // the viewport: the first screen only
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    console.log(`${file}: ${options.viewport.width} x ${options.viewport.height}${scroll > 0 ? `, scrolls ${scroll} px sideways` : ''}`);
    await page.close();
  }
  // four of the tabs on a desktop, once each has drawn: the model view with its head view, the
  // translation stepping through, the playground, the captioner's map of one word (pointed at);
  // and the alignment with the interface in Chinese
  const pointAtNoun = async (page) => {
    await page.waitForSelector('#caption[data-caption]', { timeout: 60000 });
    const words = page.locator('.caption-word');
    const count = await words.count();
    for (let i = 0; i < count; i++) {  // the first word that names an object: its map is the figure
      if (!['a', 'an', 'two', 'three', 'four', 'small', 'big'].includes((await words.nth(i).textContent()).trim())) {
        await words.nth(i).hover();
        return;
      }
    }
  };
  for (const [file, hash, drawn, then] of [
    ['view-model.png', '#view=model', () => Number(document.getElementById('all-heads').dataset.lines) > 0],
    ['view-translate.png', '#view=translate', () => Number(document.getElementById('translate-heatmap').dataset.rows) > 0],
    ['view-playground.png', '#view=playground', () => Number(document.getElementById('playground-heatmap').dataset.rows) > 0],
    ['view-images.png', '#view=images', () => document.getElementById('caption').hasAttribute('data-caption'), pointAtNoun],
    ['view-zh.png', '#lang=zh', () => Number(document.getElementById('heatmap').dataset.rows) > 0],
  ]) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
    await page.goto(url + hash);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    await page.waitForFunction(drawn, null, { timeout: 60000 });
    if (then) await then(page);
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: join(out, file) });
    console.log(`${file}: 1400 x 900`);
    await page.close();
  }
  // the tabs' pictures in 256 colours (PIL, Debian's python3-pil): a third of the bytes, the same to the eye
  const views = ['view-model.png', 'view-translate.png', 'view-playground.png', 'view-images.png', 'view-zh.png'].map((file) => join(out, file));
  const quantized = spawnSync('/usr/bin/python3', ['-c', `import sys
from PIL import Image
for path in sys.argv[1:]:
    Image.open(path).convert('RGB').quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)`, ...views], { stdio: 'inherit' });
  if (quantized.status !== 0) console.log('the tabs\' pictures stay in full colour (no PIL for /usr/bin/python3)');
} finally {
  await browser.close();
  server.close();
}
