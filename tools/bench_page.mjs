// The explorer's responsiveness in Debian's Chromium (a benchmark, not a test): time from
// navigation to body[data-ready="true"] on localhost, and from a keystroke in a 30-word pair to
// the redrawn heatmap (median of N keystrokes). One JSON line per figure.
//   node tools/bench_page.mjs [--reps 20]
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 20;
const SOURCE = 'The old man who lives in the small house near the river walks slowly to the market every morning to buy fresh bread and fruit for his large family .';
const TARGET = 'El anciano que vive en la pequeña casa cerca del río camina despacio hasta el mercado cada mañana para comprar pan fresco y fruta para toda su gran familia .';

const server = await serve(new URL('../web/', import.meta.url).pathname, 0);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const url = `http://127.0.0.1:${server.address().port}/`;
  const loads = [];
  for (let r = 0; r < 5; r++) {
    const page = await browser.newPage();
    const started = Date.now();
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    loads.push(Date.now() - started);
    await page.close();
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(JSON.stringify({ case: 'navigation to data-ready (localhost, fresh page)', ms: median(loads), runs: loads }));

  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#source', SOURCE);
  await page.fill('#target', TARGET);
  await page.waitForFunction(() => document.getElementById('heatmap').dataset.cols === '30');
  const latencies = [];
  for (let r = 0; r < reps; r++) {
    const latency = await page.evaluate(async (word) => {
      const input = document.getElementById('target');
      const svg = document.getElementById('heatmap');
      const before = Number(svg.dataset.drawnAt);
      const started = performance.now();
      input.value = input.value.replace(/\S+ \.$/, `${word} .`);  // one keystroke's worth of change
      input.dispatchEvent(new Event('input', { bubbles: true }));
      while (Number(svg.dataset.drawnAt) === before) await new Promise((resolve) => setTimeout(resolve, 1));
      return Number(svg.dataset.drawnAt) - started;
    }, r % 2 ? 'familia' : 'familias');
    latencies.push(latency);
  }
  console.log(JSON.stringify({ case: 'keystroke to redrawn heatmap, 30x30 words (includes the 15 ms debounce)', ms: +median(latencies).toFixed(1), reps }));
  await page.close();
} finally {
  await browser.close();
  server.close();
}
