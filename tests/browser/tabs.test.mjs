// The page's sections as tabs in Debian's Chromium (web/page/tabs.mjs): one section on screen at a
// time, the chosen one in the URL hash, old share links (no 'view') opening the section their keys
// belong to, the keyboard's arrows moving between tabs, and the Images tab's #caption in place.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, useBrowser } from './browser.mjs';

const session = useBrowser();

const SECTIONS = {
  align: 'align-view', model: 'model-section', translate: 'translate-view', images: 'caption', byo: 'byo-view', playground: 'playground',
};
const shown = (page) => page.$$eval('main > section', (sections) => sections.filter((s) => !s.hidden).map((s) => s.id));

describe('the sections as tabs', () => {
  test('one section shows at a time, the chosen tab goes into the hash, and a new page opens it', async () => {
    const { page } = await openPage();
    assert.deepEqual(await shown(page), ['align-view']);
    assert.equal(await page.getAttribute('#tab-align', 'aria-selected'), 'true');
    assert.doesNotMatch(page.url(), /view=/, 'the default view is not written');
    for (const [view, section] of Object.entries(SECTIONS)) {
      await page.locator(`#tab-${view}`).click();
      assert.deepEqual(await shown(page), [section], view);
      assert.equal(await page.getAttribute(`#tab-${view}`, 'aria-selected'), 'true');
      assert.equal(await page.getAttribute(`#${section}`, 'role'), 'tabpanel');
      assert.equal(await page.getAttribute('body', 'data-view'), view);
      if (view !== 'align') assert.match(page.url(), new RegExp(`view=${view}`));
    }
    await page.locator('#tab-translate').click();
    const url = page.url();
    const { page: again } = await openPage(url.slice(session.base.length));
    assert.deepEqual(await shown(again), ['translate-view']);
    await again.close();
    await page.close();
  });

  test('an old share link without a view opens the section of its keys', async () => {
    for (const [hash, section] of [
      ['#s=The+red+house+.&t=La+casa+roja+.', 'align-view'],
      ['#tr=The+cat+sleeps+.&beam=3', 'translate-view'],
      ['#kind=encoder', 'model-section'],
      ['#agg=mean&bm=itermax', 'byo-view'],
      ['#score=dot&temperature=2', 'playground'],
      ['#c=gray&pair=en-de', 'align-view'],  // the header's settings belong to no section
      ['#s=The+red+house+.&score=dot', 'align-view'],  // the first in page order, as the long page showed it
    ]) {
      const { page } = await openPage(hash);
      assert.deepEqual(await shown(page), [section], hash);
      await page.close();
    }
  });

  test('the hash changing in the same tab changes the view; an unknown view leaves it', async () => {
    const { page } = await openPage();
    await page.evaluate(() => { location.hash = 'view=playground'; });
    await page.waitForFunction(() => !document.getElementById('playground').hidden);
    await page.evaluate(() => { location.hash = 'view=byo'; });
    await page.waitForFunction(() => !document.getElementById('byo-view').hidden);
    await page.evaluate(() => { location.hash = 'view=nowhere'; });
    await page.waitForFunction(() => location.hash === '#view=nowhere');
    assert.deepEqual(await shown(page), ['byo-view']);
    await page.close();
  });

  test('arrow keys, Home and End move between tabs, and only the chosen tab is a tab stop', async () => {
    const { page } = await openPage();
    await page.locator('#tab-align').focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-model');
    assert.deepEqual(await shown(page), ['model-section']);
    await page.keyboard.press('End');
    assert.deepEqual(await shown(page), ['playground']);
    await page.keyboard.press('ArrowRight');
    assert.deepEqual(await shown(page), ['align-view'], 'past the last tab comes the first');
    await page.keyboard.press('ArrowLeft');
    assert.deepEqual(await shown(page), ['playground']);
    await page.keyboard.press('Home');
    assert.deepEqual(await shown(page), ['align-view']);
    const stops = await page.$$eval('[role="tab"]', (tabs) => tabs.filter((t) => t.tabIndex === 0).map((t) => t.id));
    assert.deepEqual(stops, ['tab-align']);
    await page.close();
  });

  test('the Images tab holds the #caption section, and the ids other views and links use are all there', async () => {
    const { page } = await openPage('#view=images');
    assert.deepEqual(await shown(page), ['caption']);
    assert.match(await page.textContent('#caption h2'), /Images/);
    for (const id of ['source', 'target', 'method', 'pharaoh', 'presets', 'align-model', 'pair', 'heatmap', 'model-view',
      'translate-heatmap', 'byo-heatmap', 'playground-heatmap', 'share', 'build']) {
      assert.equal(await page.$eval(`#${id}`, (e) => e.id), id);
    }
    const twice = await page.evaluate(() => {
      const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
      return ids.filter((id, i) => ids.indexOf(id) !== i);
    });
    assert.deepEqual(twice, [], 'no id is used twice');
    await page.close();
  });

  test('a figure drawn while its section was hidden is drawn at its size once the tab is chosen', async () => {
    const { page } = await openPage();
    await page.locator('#tab-translate').click();
    await page.waitForFunction(() => {
      const canvas = document.querySelector('#translate-heatmap canvas');
      return canvas && canvas.width > 100 && canvas.height > 50;
    });
    await page.close();
  });
});
