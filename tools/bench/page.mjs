// The explorer's responsiveness in Debian's Chromium (a benchmark, not a test). One JSON line per
// case, each with the longest main-thread task seen while it ran (PerformanceObserver 'longtask':
// tasks over 50 ms; null when there was none):
//   load        navigation to the first alignment heatmap, to the playground's (no model needed)
//               and to body[data-ready] (localhost), and what was fetched by then
//   10mbit      the same at 10 Mbit/s (Chromium's throttling through CDP Network.emulateNetworkConditions)
//   byo-512     a 512x512 .npy chosen to its heatmap shown, then each control change to the redraw
//   byo-2048    the same at 2048x2048
//   align-400   a 400-word pair typed to its heatmap (and from the worker's answer, where the page
//               says when it came), then a change of colours (align-N for another length)
//   model-30    a 30-word pair typed to the model view's grid of every layer and head redrawn
//               (#model-view[data-drawn-at]); --transformer FILE serves that file as
//               en-es-transformer, which the view then shows (model-N for another length)
// It reads only the page's contract (#source, #target, #colormap, #byo-file, #byo-*, data-rows /
// data-cols on #heatmap and #byo-heatmap, body[data-ready]), so it measures older pages too:
// Each case runs --runs times on a fresh page (default 3): the median time, and the median and
// the largest of the longest tasks (a shared machine stretches a task now and then).
//   node tools/bench/page.mjs [--web DIR] [--only load,byo-512] [--runs N] [--timeout SECONDS] [--transformer FILE]
//                             [--pair en-XX]   (the page opened on that pair: its example and models)
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { npy } from '../../tests/js/npy.mjs';
import { serve } from '../serve.mjs';

const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const web = option('--web', new URL('../../web/page/', import.meta.url).pathname);
const only = option('--only', 'load,10mbit,byo-512,byo-2048,align-400').split(',');
const timeout = Number(option('--timeout', '240')) * 1000;
const runs = Number(option('--runs', '3'));
const transformer = option('--transformer', null);
const pair = option('--pair', null);

// Recorded from the page's first script on: the long tasks, and when a file input last changed.
function instrument() {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  document.addEventListener('change', () => { window.__changedAt = performance.now(); }, true);
}

// The longest task that overlaps [from, to] (page time), or null below 50 ms.
const longestTask = (page, from, to) => page.evaluate(([a, b]) => {
  const overlapping = window.__longTasks.filter((t) => t.start < b && t.start + t.duration > a);
  return overlapping.length ? Math.round(Math.max(...overlapping.map((t) => t.duration))) : null;
}, [from, to]);

// Resolves (in the page) with the time the figure first shows `rows` x `cols`, painted.
const shown = (page, id, rows, cols) => page.evaluate(([figure, r, c, limit]) => new Promise((resolve) => {
  const element = document.getElementById(figure);
  const done = () => element.dataset.rows === String(r) && element.dataset.cols === String(c);
  const painted = () => requestAnimationFrame(() => resolve(performance.now()));
  if (done()) { painted(); return; }
  const observer = new MutationObserver(() => { if (done()) { observer.disconnect(); painted(); } });
  observer.observe(element, { attributes: true });
  setTimeout(() => { observer.disconnect(); resolve(null); }, limit);
}), [id, rows, cols, timeout]);

// Changes a control and resolves with [started, redrawn] (page time). A page that draws
// asynchronously says when in data-drawn-at; one that draws inside the event handler is done
// when the handler returns.
const change = (page, figure, control, value) => page.evaluate(([id, input, next, limit]) => new Promise((resolve) => {
  const element = document.getElementById(id), field = document.getElementById(input);
  const before = element.dataset.drawnAt;
  const started = performance.now();
  if (field.type === 'checkbox') field.checked = next === 'true'; else field.value = next;
  field.dispatchEvent(new Event('input', { bubbles: true }));
  field.dispatchEvent(new Event('change', { bubbles: true }));
  const finish = () => requestAnimationFrame(() => resolve([started, performance.now()]));
  if (before === undefined) { finish(); return; }
  const poll = () => (element.dataset.drawnAt !== before ? finish()
    : performance.now() - started > limit ? resolve([started, null]) : setTimeout(poll, 2));
  poll();
}), [figure, control, value, timeout]);

const round = (x) => (x === null ? null : Math.round(x));
const print = (figures) => console.log(JSON.stringify(figures));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Runs measure() `runs` times; each gives [{case, step, ms, longestTaskMs, ...}]: one line per step.
async function repeat(measure) {
  const all = [];
  for (let r = 0; r < runs; r++) all.push(await measure());
  all[0].forEach((first, i) => {
    const steps = all.map((run) => run[i]);
    const ms = steps.map((step) => step.ms), tasks = steps.map((step) => step.longestTaskMs ?? 0);
    print({
      ...first, ms: ms.includes(null) ? null : median(ms), longestTaskMs: median(tasks) || null, longestTaskMaxMs: Math.max(...tasks) || null,
      ...Object.fromEntries(['answerToHeatmapMs', 'workerMapsMs', 'answerMs', 'alignMs', 'alignAnswerMs'].filter((key) => first[key] !== undefined)
        .map((key) => [key, median(steps.map((step) => step[key]))])),
      runs,
    });
  });
}

async function freshPage(browser, { throttle = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  await page.addInitScript(instrument);
  if (transformer) {  // served as en-es-transformer, beside the shipped models
    const bytes = readFileSync(transformer);
    const index = JSON.parse(readFileSync(join(web, 'dist/models/index.json'), 'utf8'));
    await page.route('**/dist/models/index.json', (route) => route.fulfill({
      contentType: 'application/json', body: JSON.stringify({ ...index, models: [...index.models, 'en-es-transformer.safetensors'] }),
    }));
    await page.route('**/dist/models/en-es-transformer.safetensors', (route) => route.fulfill({ body: bytes }));
  }
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false, latency: 20, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8,
    });
  }
  page.setDefaultTimeout(timeout);
  return { context, page };
}

// Navigation to the first heatmap and to data-ready, and the bytes fetched before the heatmap.
async function load(browser, url, throttle) {
  const { context, page } = await freshPage(browser, { throttle });
  let bytes = 0, bytesAtHeatmap = null;
  const fetched = new Set();
  page.on('requestfinished', async (request) => {
    const sizes = await request.sizes().catch(() => null);
    if (sizes) bytes += sizes.responseBodySize;
    fetched.add(new URL(request.url()).pathname);
  });
  await page.goto(url, { waitUntil: 'commit' });
  // When the figure first shows something (page time): the alignment heatmap, and the playground's
  // (which needs the module but no model).
  const appears = (id) => page.evaluate(([figure, limit]) => new Promise((resolve) => {
    const poll = () => {
      const rows = Number(document.getElementById(figure)?.dataset.rows ?? 0);
      if (rows > 0) requestAnimationFrame(() => resolve(performance.now()));
      else if (performance.now() > limit) resolve(null);
      else setTimeout(poll, 5);
    };
    poll();
  }), [id, timeout]);
  const [heatmap, playground] = await Promise.all([appears('heatmap'), appears('playground-heatmap')]);
  bytesAtHeatmap = bytes;
  await page.waitForSelector('body[data-ready="true"]');
  const ready = await page.evaluate(() => performance.now());
  await page.waitForTimeout(throttle ? 200 : 500);  // what the page fetches after it is ready
  const figures = {
    heatmapMs: round(heatmap), playgroundMs: round(playground), readyMs: round(ready), longestTaskMs: await longestTask(page, 0, ready),
    kilobytesBeforeHeatmap: Math.round(bytesAtHeatmap / 1024), kilobytesAfterReady: Math.round(bytes / 1024),
    fetched: [...fetched].filter((path) => /\.(safetensors|ttf|woff2?)$/.test(path)),
  };
  await context.close();
  return figures;
}

async function byo(browser, url, size) {
  const { context, page } = await freshPage(browser);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  const values = new Float32Array(size * size);
  for (let t = 0; t < size; t++) {  // a softmax-like row with one peak
    let sum = 0;
    for (let s = 0; s < size; s++) sum += (values[t * size + s] = Math.exp(-Math.abs(s - t) / 4));
    for (let s = 0; s < size; s++) values[t * size + s] /= sum;
  }
  // From a file on disk: handed as bytes, playwright would decode them in the page, on its main thread.
  const folder = await mkdtemp(join(tmpdir(), 'bench-page-'));
  const path = join(folder, `attention-${size}.npy`);
  await writeFile(path, npy([size, size], values));
  const drawn = shown(page, 'byo-heatmap', size, size);
  await page.setInputFiles('#byo-file', path);
  const end = await drawn;
  const start = await page.evaluate(() => window.__changedAt);
  const steps = [{ case: `byo-${size}`, step: 'file chosen to heatmap shown', ms: round(end === null ? null : end - start), longestTaskMs: await longestTask(page, start, end ?? start + timeout) }];
  for (const [control, value] of [['byo-aggregate', 'max'], ['byo-method', 'itermax'], ['byo-merge', 'false']]) {
    const [from, to] = await change(page, 'byo-heatmap', control, value);
    steps.push({ case: `byo-${size}`, step: `${control} = ${value} to redrawn`, ms: round(to === null ? null : to - from), longestTaskMs: await longestTask(page, from, to ?? from + timeout) });
  }
  await context.close();
  await rm(folder, { recursive: true });
  return steps;
}

async function align(browser, url, words) {
  const { context, page } = await freshPage(browser);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  const english = ['the', 'old', 'man', 'walks', 'to', 'the', 'market', 'every', 'morning', '.'];
  const spanish = ['el', 'anciano', 'camina', 'al', 'mercado', 'cada', 'mañana', '.'];
  const sentence = (vocabulary) => Array.from({ length: words }, (_, i) => vocabulary[i % vocabulary.length]).join(' ');
  await page.fill('#target', sentence(spanish));
  const drawn = shown(page, 'heatmap', words, words);
  const start = await page.evaluate((text) => {
    const source = document.getElementById('source');
    source.value = text;
    const started = performance.now();
    source.dispatchEvent(new Event('input', { bubbles: true }));
    return started;
  }, sentence(english));
  const end = await drawn;
  const answered = await page.evaluate(() => Number(document.getElementById('heatmap').dataset.answeredAt) || null);
  const typed = {
    case: `align-${words}`, step: 'typed to heatmap shown', ms: round(end === null ? null : end - start),
    answerToHeatmapMs: answered && end ? round(end - answered) : null, longestTaskMs: await longestTask(page, start, end ?? start + timeout),
  };
  const [from, to] = await change(page, 'heatmap', 'colormap', 'gray');
  const coloured = { case: `align-${words}`, step: 'colours changed to redrawn', ms: round(to === null ? null : to - from), longestTaskMs: await longestTask(page, from, to ?? from + timeout) };
  await context.close();
  return [typed, coloured];
}

// A pair of `words` words typed (one input event) to the model view's grid redrawn.
async function modelView(browser, url, words) {
  const { context, page } = await freshPage(browser);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  const sentence = (word) => Array.from({ length: words }, (_, i) => `${word}${i % 9}`).join(' ');
  await page.locator('#model-section').scrollIntoViewIfNeeded();  // the view draws while on screen
  await page.waitForFunction(() => document.getElementById('model-view').dataset.drawnAt);
  // the target typed first, and its maps and alignment drawn: the timed keystroke finds the worker idle
  const drawn = () => page.evaluate(() => [document.getElementById('model-view').dataset.drawnAt, document.getElementById('heatmap').dataset.answeredAt]);
  const before = await drawn();
  await page.fill('#target', sentence('casa'));
  await page.waitForFunction(([grid, heatmap]) => document.getElementById('model-view').dataset.drawnAt !== grid &&
    document.getElementById('heatmap').dataset.answeredAt !== heatmap, before);
  await page.waitForTimeout(200);
  const [start, end] = await page.evaluate(([text, limit]) => new Promise((resolve) => {
    const grid = document.getElementById('model-view'), source = document.getElementById('source');
    const before = grid.dataset.drawnAt;
    source.value = text;
    const started = performance.now();
    source.dispatchEvent(new Event('input', { bubbles: true }));
    const poll = () => (grid.dataset.drawnAt !== before ? requestAnimationFrame(() => resolve([started, performance.now()]))
      : performance.now() - started > limit ? resolve([started, null]) : setTimeout(poll, 1));
    poll();
  }), [sentence('house'), timeout]);
  const grid = await page.evaluate(() => `${document.getElementById('model').value}: ${document.getElementById('model-view').dataset.layers} layers x ${document.getElementById('model-view').dataset.heads} heads`);
  // where the time went: the worker's maps, when their answer came, and when the alignment view's
  // answer (the same worker, the same keystroke) came
  const parts = await page.evaluate((started) => ({
    mapsMs: Number((document.getElementById('model-status').textContent.match(/maps in ([\d.]+) ms/) ?? [])[1]),
    answered: Number(document.getElementById('model-view').dataset.answeredAt) - started,
    alignAnswered: Number(document.getElementById('heatmap').dataset.answeredAt) - started,
    alignMs: Number((document.getElementById('align-status').textContent.match(/aligned in ([\d.]+) ms/) ?? [])[1]),
    threads: document.body.dataset.threads,
  }), start);
  const step = {
    case: `model-${words}`, step: `typed to the grid redrawn (${grid})`, ms: round(end === null ? null : end - start),
    workerMapsMs: round(parts.mapsMs), answerMs: round(parts.answered), alignMs: round(parts.alignMs),
    alignAnswerMs: round(parts.alignAnswered), threads: Number(parts.threads),
    longestTaskMs: await longestTask(page, start, end ?? start + timeout),
  };
  await context.close();
  return [step];
}

const server = await serve(web, 0);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const url = `http://127.0.0.1:${server.address().port}/${pair ? `#pair=${encodeURIComponent(pair)}` : ''}`;
  if (only.includes('load')) {
    const loads = [];
    for (let r = 0; r < runs; r++) loads.push(await load(browser, url, false));
    const middle = (key) => median(loads.map((run) => run[key] ?? 0)) || null;
    print({
      case: 'load', network: 'localhost', heatmapMs: middle('heatmapMs'), playgroundMs: middle('playgroundMs'), readyMs: middle('readyMs'),
      longestTaskMs: middle('longestTaskMs'), longestTaskMaxMs: Math.max(...loads.map((run) => run.longestTaskMs ?? 0)) || null,
      runs, kilobytesAfterReady: loads[0].kilobytesAfterReady, fetched: loads[0].fetched,
    });
  }
  if (only.includes('10mbit')) print({ case: 'load', network: '10 Mbit/s, 20 ms latency', ...(await load(browser, url, true)) });
  for (const size of [512, 2048]) if (only.includes(`byo-${size}`)) await repeat(() => byo(browser, url, size));
  for (const name of only.filter((n) => /^align-\d+$/.test(n))) await repeat(() => align(browser, url, Number(name.slice(6))));
  for (const name of only.filter((n) => /^model-\d+$/.test(n))) await repeat(() => modelView(browser, url, Number(name.slice(6))));
} finally {
  await browser.close();
  server.close();
}
