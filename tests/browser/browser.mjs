// Shared by the browser tests: the site served from web/page/ on a free port, Debian's Chromium driven
// by playwright-core, pages that collect console errors and uncaught exceptions (a file fails in
// its `after` hook if any page of it had one, checked or not), and readers of the canvas figures.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { serve } from '../../tools/serve.mjs';

export const ROOT = new URL('../../', import.meta.url);
export const SCREENSHOTS = new URL('build/screenshots/', ROOT);

const session = { server: null, browser: null, base: '' };
const everyProblem = [];  // [url, problem] of every page this file opened

// Call at the top of a test file: starts the server and the browser for its tests.
export function useBrowser() {
  before(async () => {
    session.server = await serve(new URL('web/page/', ROOT).pathname, 0);
    session.base = `http://127.0.0.1:${session.server.address().port}/`;
    session.browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
        '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    await mkdir(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await session.browser?.close();
    await new Promise((resolve) => (session.server ? session.server.close(resolve) : resolve()));
    assert.deepEqual(everyProblem, [], 'no page had a console error or an uncaught exception');
  });
  return session;
}

/**
 * Opens path on the site once the page says it is ready; `problems` collects console errors and
 * uncaught exceptions. withoutSimd makes the engine reject SIMD modules, as an old browser would;
 * colorScheme 'dark' shows the dark theme; ready: false returns before the page is ready; route:
 * [pattern, handler] pairs installed before the page loads; touch: a phone's touch screen;
 * before: an async function of the page, run before it loads (network conditions, say).
 */
export async function openPage(path = '', { withoutSimd = false, width = 1200, height = 1000, colorScheme = 'light', ready = true, routes = [], touch = false, before = null } = {}) {
  const page = await session.browser.newPage({ viewport: { width, height }, colorScheme, hasTouch: touch, isMobile: touch });
  const problems = [];
  const note = (problem) => {
    problems.push(problem);
    everyProblem.push([path, problem]);
  };
  page.on('console', (message) => { if (message.type() === 'error') note(message.text()); });
  page.on('pageerror', (error) => note(error.message));
  if (withoutSimd) await page.addInitScript(() => { WebAssembly.validate = () => false; });
  for (const [pattern, handler] of routes) await page.route(pattern, handler);
  if (before) await before(page);
  revealOnAction(page);
  await page.goto(session.base + path);
  if (ready) await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, problems };
}

// The page shows one section at a time (its tabs, web/page/tabs.mjs): a test acts on a control as
// a reader would, after clicking the tab of the section that holds it, when that section is hidden.
const ACTIONS = ['click', 'dblclick', 'tap', 'fill', 'type', 'press', 'hover', 'focus', 'check', 'uncheck', 'setChecked',
  'selectOption', 'setInputFiles', 'dispatchEvent'];
function revealOnAction(page) {
  for (const name of ACTIONS) {
    const act = page[name].bind(page);
    page[name] = async (selector, ...rest) => {
      await showSectionOf(page, selector);
      return act(selector, ...rest);
    };
  }
}

/** Clicks the tab of the section holding `selector`'s element, if that section is hidden. */
export async function showSectionOf(page, selector) {
  const element = await page.$(selector).catch(() => null);
  const tab = await element?.evaluate((e) => {
    const section = e.closest('main > section[hidden]');
    return section ? `[role="tab"][aria-controls="${section.id}"]` : null;
  });
  if (tab) await page.locator(tab).click();
  return Boolean(tab);
}

// A route for openPage that records the path of every request the page makes into `fetched`.
export const recordFetches = (fetched) => ['**/*', (route) => {
  fetched.push(new URL(route.request().url()).pathname);
  return route.continue();
}];

// Runs an action that redraws heatmap `id`, and waits for the redraw.
export async function redrawn(page, id, action) {
  const before = await page.getAttribute(`#${id}`, 'data-drawn-at');
  await action();
  await page.waitForFunction(([figure, drawn]) => document.getElementById(figure).dataset.drawnAt !== drawn, [id, before]);
}

// Resolves after the page has painted a frame (canvas repaints wait for one).
export const nextFrame = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

// What a heatmap shows: {rows, cols, weights, rowLabels, colLabels, links, gold, colormap, cell,
// rowText, colText (the labels as drawn)}, or null when it shows nothing.
export const figureOf = (page, id) => page.evaluate(async (figure) => {
  const { heatmapOf } = await import('./views.mjs');
  const heatmap = heatmapOf(document.getElementById(figure));
  if (!heatmap.figure) return null;
  const { rows, cols, weights, rowLabels, colLabels, links, gold = [], colormap } = heatmap.figure;
  const { cell, rowText, colText } = heatmap.layout;
  return { rows, cols, weights: Array.from(weights), rowLabels, colLabels, links, gold, colormap, cell, rowText, colText };
}, id);

// The [r, g, b] the canvas of heatmap `id` shows at cell (t, s), (dx, dy) pixels from the cell's
// top-left corner (by default its middle, or above the middle where cells show their value). The
// figure's tab is chosen and the cell scrolled into view first.
export const cellPixel = async (page, id, t, s, { dx, dy } = {}) => {
  if (await showSectionOf(page, `#${id}`)) await nextFrame(page);
  return pixelOf(page, id, t, s, { dx, dy });
};
const pixelOf = (page, id, t, s, { dx, dy }) => page.evaluate(async ([figure, row, col, x0, y0]) => {
  const { heatmapOf } = await import('./views.mjs');
  const heatmap = heatmapOf(document.getElementById(figure));
  const { cell, left, top } = heatmap.layout;
  const host = heatmap.host;
  host.scrollLeft = left + col * cell - host.clientWidth / 2;
  host.scrollTop = top + row * cell - host.clientHeight / 2;
  heatmap.paintNow();
  const x = left + col * cell - host.scrollLeft + (x0 ?? cell / 2), y = top + row * cell - host.scrollTop + (y0 ?? (cell >= 24 ? cell / 4 : cell / 2));
  const ratio = devicePixelRatio;
  return Array.from(heatmap.canvas.getContext('2d').getImageData(Math.floor(x * ratio), Math.floor(y * ratio), 1, 1).data.slice(0, 3));
}, [id, t, s, dx, dy]);

// A CSS colour as [r, g, b] ('#rgb', '#rrggbb' or 'rgb(r, g, b)').
export function rgbOf(colour) {
  const text = colour.trim();
  if (text.startsWith('#')) {
    const hex = text.length === 4 ? [...text.slice(1)].map((c) => c + c).join('') : text.slice(1);
    return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  }
  return text.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
}

export const near = (a, b, tolerance = 3) => a.every((x, i) => Math.abs(x - b[i]) <= tolerance);

// WCAG contrast ratio of two [r, g, b] colours.
export function contrast(a, b) {
  const luminance = (rgb) => {
    const [r, g, bl] = rgb.map((c) => {
      const x = c / 255;
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

// The value of a CSS custom property on the page.
export const cssColour = (page, name) => page.evaluate((property) => getComputedStyle(document.documentElement).getPropertyValue(property).trim(), name);
