// Shared by the browser tests: the site served from web/ on a free port, Debian's Chromium driven
// by playwright-core, and pages that collect console errors.
import { after, before } from 'node:test';
import { mkdir } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { serve } from '../../tools/serve.mjs';

export const ROOT = new URL('../../', import.meta.url);
export const SCREENSHOTS = new URL('build/screenshots/', ROOT);

const session = { server: null, browser: null, base: '' };

// Call at the top of a test file: starts the server and the browser for its tests.
export function useBrowser() {
  before(async () => {
    session.server = await serve(new URL('web/', ROOT).pathname, 0);
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
  });
  return session;
}

// Opens path on the site once the page says it is ready; `problems` collects console errors and
// uncaught exceptions. withoutSimd makes the engine reject SIMD modules, as an old browser would.
export async function openPage(path = '', { withoutSimd = false, width = 1200, height = 1000 } = {}) {
  const page = await session.browser.newPage({ viewport: { width, height } });
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  if (withoutSimd) await page.addInitScript(() => { WebAssembly.validate = () => false; });
  await page.goto(session.base + path);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  // the optional models (reverse, general, statistical aligners) load after ready
  await page.waitForSelector('body[data-extras="true"]', { timeout: 20000 });
  return { page, problems };
}
