// Draws scenes again with Chromium's canvas from OpenMoji's SVG files (not librsvg + PIL, the
// training renderer): node tools/data/scenes/chromium.mjs IN_DIR OUT_DIR [SIZE]
// IN_DIR/scenes.json comes from `python3 -m tools.data.scenes`; OUT_DIR gets the same PNG names and
// a copy of scenes.json. Uses Debian's chromium through playwright-core.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [inDir, outDir, sizeArg] = process.argv.slice(2);
if (!inDir || !outDir) {
  console.error('usage: node tools/data/scenes/chromium.mjs IN_DIR OUT_DIR [SIZE]');
  process.exit(2);
}
const set = JSON.parse(readFileSync(join(inDir, 'scenes.json'), 'utf8'));
const size = Number(sizeArg || set.size);
// one data URL per kind, in the kinds' order (o.kind indexes it)
const svgs = set.objects.map((o) => 'data:image/svg+xml;base64,' + readFileSync(o.svg).toString('base64'));
mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage();
const drawn = await page.evaluate(async ({ scenes, svgs, size }) => {
  const images = [];
  for (const url of svgs) {
    const image = new Image();
    image.src = url;
    await image.decode();
    images.push(image);
  }
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const context = canvas.getContext('2d');
  const out = [];
  for (const s of scenes) {
    context.fillStyle = `rgb(${s.background.join(',')})`;
    context.fillRect(0, 0, size, size);
    for (const o of s.objects) {
      const side = Math.max(1, Math.round(o.size * size));
      context.drawImage(images[o.kind], Math.round(o.x * size), Math.round(o.y * size), side, side);
    }
    out.push(canvas.toDataURL('image/png'));
  }
  return out;
}, { scenes: set.scenes, svgs, size });
await browser.close();
set.scenes.forEach((s, i) => writeFileSync(join(outDir, s.image), Buffer.from(drawn[i].split(',')[1], 'base64')));
writeFileSync(join(outDir, 'scenes.json'), JSON.stringify({ ...set, size, renderer: 'chromium canvas' }) + '\n');
console.log(`${outDir}: ${set.scenes.length} scenes drawn by Chromium's canvas at ${size} px`);
