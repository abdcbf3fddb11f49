// How closely the Images view's caption and maps follow a drag, in Debian's Chromium: an object is
// dragged across the scene in small mouse moves (one a frame, ROUNDS times back and forth), and the
// page reports, for each caption it drew, the milliseconds from the scene change it answers to the
// caption and maps on screen (the view's latencies), the worker's time per caption, and the page's
// main-thread tasks during the drag from Chromium's trace: each task's wall time and its thread's
// CPU time (on a busy host a task's wall time includes the time the thread waited for a core; its
// CPU time is the work the page asked for), and PerformanceObserver's long tasks (over 50 ms, wall).
// Prints one JSON line; not a test.
//   node tools/bench/caption_drag.mjs [ROUNDS (default 4)] [SEARCH (e.g. '?simd=1')]
import { chromium } from 'playwright-core';
import { serve } from '../serve.mjs';

const rounds = Number(process.argv[2] ?? 4);
const search = process.argv[3] ?? '';
const server = await serve(new URL('../../web/page/', import.meta.url).pathname, 0);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
await page.addInitScript(() => {
  window.longTasks = [];
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.longTasks.push(entry.duration); }).observe({ type: 'longtask', buffered: true });
});
await page.goto(`http://127.0.0.1:${server.address().port}/${search}#view=images`);
await page.waitForSelector('#caption[data-caption]', { timeout: 60000 });
const view = () => page.evaluate(async () => {
  const { captionViewOf } = await import('./caption.mjs');
  const shown = captionViewOf(document.getElementById('caption'));
  return { latencies: [...shown.latencies], worker: shown.result.milliseconds, build: document.body.dataset.build, threads: document.body.dataset.threads };
});
await page.evaluate(() => { window.longTasks = []; });
const before = (await view()).latencies.length;
const stage = await page.locator('#scene').boundingBox();
const box = await page.locator('.scene-object[data-name="dog"]').boundingBox();
let x = box.x + box.width / 2;
const y = box.y + box.height / 2;
await page.mouse.move(x, y);
await browser.startTracing(page, { categories: ['toplevel', 'disabled-by-default-devtools.timeline'] });
await page.mouse.down();
const workerTimes = [];
for (let round = 0; round < rounds; round++) {
  const target = round % 2 ? box.x + box.width / 2 : stage.x + 0.85 * stage.width;
  for (let k = 0; k < 40; k++) {
    x += (target - x) / (40 - k);
    await page.mouse.move(x, y + 0.25 * stage.height * Math.sin((Math.PI * k) / 40));
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  }
  workerTimes.push((await view()).worker);
}
await page.mouse.up();
await page.waitForTimeout(500);
const trace = JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents;
// the page's main thread: the renderer thread named CrRendererMain that ran the view's frames
const mains = new Set(trace.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
const busiest = new Map();
const tasks = trace.filter((e) => e.ph === 'X' && /RunTask$/.test(e.name) && mains.has(`${e.pid}:${e.tid}`));
for (const task of tasks) busiest.set(`${task.pid}:${task.tid}`, (busiest.get(`${task.pid}:${task.tid}`) ?? 0) + task.dur);
const main = [...busiest].sort((a, b) => b[1] - a[1])[0]?.[0];
const onMain = tasks.filter((e) => `${e.pid}:${e.tid}` === main);
const wall = onMain.map((e) => e.dur / 1000).sort((a, b) => a - b), cpu = onMain.map((e) => (e.tdur ?? 0) / 1000).sort((a, b) => a - b);
const { latencies, build, threads } = await view();
const drawn = latencies.slice(before).sort((a, b) => a - b);
const quantile = (q) => drawn[Math.min(drawn.length - 1, Math.floor(q * drawn.length))];
const longTasks = await page.evaluate(() => window.longTasks);
console.log(JSON.stringify({
  case: 'caption-drag', build, threads: Number(threads), moves: rounds * 40, captionsDrawn: drawn.length,
  latencyMs: { median: +quantile(0.5).toFixed(1), p90: +quantile(0.9).toFixed(1), max: +drawn.at(-1).toFixed(1) },
  workerMsLast: workerTimes.map((t) => +t.toFixed(1)),
  mainThreadTasks: {
    count: onMain.length, maxWallMs: +(wall.at(-1) ?? 0).toFixed(1), maxCpuMs: +(cpu.at(-1) ?? 0).toFixed(1),
    over50MsWall: wall.filter((t) => t > 50).length, over50MsCpu: cpu.filter((t) => t > 50).length,
  },
  longTasksOver50Ms: longTasks.map((t) => Math.round(t)),
}));
await browser.close();
server.close();
