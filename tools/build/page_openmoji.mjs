// The captioner's objects' artwork for the page's scene editor: the OpenMoji colour SVGs (CC BY-SA
// 4.0, https://openmoji.org) of every object the model's metadata lists (`objects`: name, plural,
// hexcode), copied from tools/data's pinned npm package into DIST/openmoji/HEX.svg with its licence,
// and DIST/openmoji/objects.json: { version, license, home, imageSize, grid, objects } for the page. web/CMakeLists.txt runs
// it whenever the model or this script changes:
//   node tools/build/page_openmoji.mjs MODEL OPENMOJI_PACKAGE DIST
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { safetensorsHeader } from './safetensors_header.mjs';

const [model, openmoji, dist] = process.argv.slice(2);
if (!model || !openmoji || !dist) {
  console.error('usage: node tools/build/page_openmoji.mjs MODEL OPENMOJI_PACKAGE DIST');
  process.exit(2);
}

// The safetensors header alone: its metadata names the objects.
const metadataOf = async (file) => (await safetensorsHeader(file)).__metadata__ ?? {};

const meta = await metadataOf(model);
if (!meta.objects) throw new Error(`${model} lists no objects in its metadata: not a captioner`);
const objects = JSON.parse(meta.objects);
const pkg = JSON.parse(await readFile(resolve(openmoji, 'package.json'), 'utf8').catch(() => {
  throw new Error(`${openmoji}/package.json not found: run \`npm ci\` in tools/data (./run deps does)`);
}));
const folder = resolve(dist, 'openmoji');
await rm(folder, { recursive: true, force: true });  // an object the model no longer knows goes too
await mkdir(folder, { recursive: true });
for (const { hexcode } of objects) {
  if (!/^[0-9A-F]+(-[0-9A-F]+)*$/.test(hexcode)) throw new Error(`${model}: odd hexcode '${hexcode}'`);
  await copyFile(resolve(openmoji, 'color', 'svg', `${hexcode}.svg`), resolve(folder, `${hexcode}.svg`));
}
await copyFile(resolve(openmoji, 'LICENSE.txt'), resolve(folder, 'LICENSE.txt'));
await writeFile(resolve(folder, 'objects.json'),
  `${JSON.stringify({
    version: pkg.version, license: 'CC BY-SA 4.0', home: 'https://openmoji.org', imageSize: Number(meta.image_size),
    grid: JSON.parse(meta.grid ?? 'null'), objects,
  }, null, 1)}\n`);
console.log(`${folder}: ${(await readdir(folder)).filter((f) => f.endsWith('.svg')).length} OpenMoji ${pkg.version} SVGs`);
