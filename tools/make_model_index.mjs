// Writes web/dist/models/index.json, which the page's worker reads before it fetches any model:
//   { models: [every shipped file],
//     pairs: { 'en-it': { language, languageName, method, posteriorThreshold,
//                         files: { hmm, ibm2?, forward?, reverse?, general? }, bytes }, … },
//     multilingual: { file: [languages it writes, English first] } }
// The pairs, their files by role and their default alignment method come from the built module's
// attn.alignment.pairs (attn/align/pairs.hpp), so the index never copies that list; a pair keeps
// only the files this build ships, and a pair with none is left out. web/CMakeLists.txt runs it
// after linking the module and copying the models:
//   node tools/make_model_index.mjs web/dist simd|scalar
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, flavour] = process.argv.slice(2);
if (!dist || !['simd', 'scalar'].includes(flavour)) {
  console.error('usage: node tools/make_model_index.mjs DIST simd|scalar');
  process.exit(2);
}

const { default: loadAttn } = await import(pathToFileURL(resolve(dist, 'attn.mjs')).href);
const attn = await loadAttn({ simd: flavour === 'simd', warmUp: false });
const { alignment } = attn;

const folder = resolve(dist, 'models');
const models = (await readdir(folder)).filter((file) => file.endsWith('.safetensors')).sort();
const pairs = {};
for (const pair of alignment.pairs) {
  const files = Object.fromEntries(Object.entries(pair.files).filter(([, file]) => models.includes(file)));
  if (Object.keys(files).length === 0) continue;
  let bytes = 0;
  for (const file of Object.values(files)) bytes += (await stat(resolve(folder, file))).size;
  const { language, languageName, method, posteriorThreshold, attentionMethod, attentionThreshold } = pair;
  pairs[pair.name] = { language, languageName, method, posteriorThreshold, attentionMethod, attentionThreshold, files, bytes };
}
// Multilingual translation models (docs/MODEL_FORMAT.md §7.1), file -> the languages it writes, so
// that the page can offer each direction ('en-fr-transformer', 'fr-en-transformer') before it loads
// the file.
const statistical = new Set(alignment.pairs.flatMap((pair) => [pair.files.hmm, pair.files.ibm2]));
const multilingual = {};
for (const file of models.filter((file) => !statistical.has(file))) {
  const model = await attn.loadModel(new Uint8Array(await readFile(resolve(folder, file))));
  if (model.info.languages) multilingual[file] = model.info.languages;
  model.delete();
}
await writeFile(resolve(folder, 'index.json'), `${JSON.stringify({ models, pairs, multilingual }, null, 2)}\n`);
