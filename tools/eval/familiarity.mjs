// Measures what the explorer's "far from what the model learned" line compares with
// (web/page/familiarity.mjs): for every direction of every pair's translation model, the model's mean
// log-probability per target piece on held-out pairs of its own data (data/en-XX/test.*, lines
// FROM .. FROM+COUNT, after the 100 that tools/eval/translation.py scores), forced on the human
// reference ('forced': the alignment view's signal) and on the model's own beam-4 translation
// ('translated': the translation view's). Writes models/familiarity.json with the SHA-256 of each
// model file it used (tools/build/make_model_index.mjs leaves out a reference whose file changed since):
//
//   node tools/eval/familiarity.mjs [--count 300] [--from 200] [--out models/familiarity.json] [--pairs en-zh,...]
//
// --pairs measures only those pairs' directions and keeps every other direction's figures from the
// file already at --out, where that direction's model file is still the one it measured.
//
// Needs web/dist (cmake --build --preset wasm-simd) and data/ (tools/data/build.sh).
// Also prints, per direction, the share of XL-WA's gold dev sentences (Europarl and Wikipedia-like
// text, ../shared/data/xl-wa) that the page would call unusual or far, where that set is present.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FAR, UNUSUAL, percentiles, pieceScore, rank } from '../../web/page/familiarity.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const count = Number(option('count', 300));
const from = Number(option('from', 200));
const out = resolve(root, option('out', 'models/familiarity.json'));
const only = option('pairs', '') ? option('pairs', '').split(',') : null;
const earlier = only && existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : { models: {}, directions: {} };

const { default: loadAttn } = await import(pathToFileURL(resolve(root, 'web/dist/attn.mjs')).href);
const attn = await loadAttn({ simd: true, warmUp: false });
const lines = (file) => readFileSync(file, 'utf8').split('\n');

const references = {};
const models = {};
const loaded = new Map();
if (only) {
  const unknown = only.filter((name) => !attn.alignment.pairs.some((pair) => pair.name === name));
  if (unknown.length) throw new Error(`--pairs: unknown pair ${unknown.join(', ')}`);
}
for (const pair of attn.alignment.pairs) {
  for (const [role, file] of [['forward', pair.files.forward], ['reverse', pair.files.reverse]]) {
    if (!file) continue;
    const path = resolve(root, 'models', file);
    const bytes = readFileSync(path);
    models[file] = createHash('sha256').update(bytes).digest('hex');
    const [from_, to] = role === 'forward' ? ['en', pair.language] : [pair.language, 'en'];
    const direction = `${from_}-${to}`;
    if (only && !only.includes(pair.name)) {
      // kept from the earlier file, where it measured this very model file
      const kept = earlier.directions[direction];
      if (!kept || kept.file !== file || earlier.models[file] !== models[file]) {
        throw new Error(`${direction}: ${out} has no figures for ${file} as it is now: measure it too (--pairs ${pair.name})`);
      }
      references[direction] = kept;
      continue;
    }
    if (!loaded.has(file)) loaded.set(file, attn.loadModel(new Uint8Array(bytes)));
    let model = await loaded.get(file);
    if (model.info.languages) model = model.forTarget(to);
    const folder = resolve(root, 'data', pair.name);
    if (!existsSync(resolve(folder, `test.${to}`))) throw new Error(`${folder}/test.${to} is missing: run tools/data/build.sh`);
    const sources = lines(resolve(folder, `test.${from_}`)).slice(from, from + count);
    const targets = lines(resolve(folder, `test.${to}`)).slice(from, from + count);
    const score = (source, target) => pieceScore(model.attentions(source, target, { pieces: true, logProbs: true }));
    const forced = [];
    const translated = [];
    const started = Date.now();
    for (let i = 0; i < sources.length; ++i) {
      if (!sources[i].trim() || !targets[i].trim()) continue;
      forced.push(score(sources[i], targets[i]));
      const { text } = model.translate(sources[i], { beam: 4 });
      if (text.trim()) translated.push(score(sources[i], text));
    }
    references[direction] = { file, pairs: forced.length, forced: percentiles(forced), translated: percentiles(translated) };
    let line = `${direction}: ${forced.length} pairs in ${((Date.now() - started) / 1000).toFixed(0)} s; ` +
      `forced median ${references[direction].forced[49]}, translated median ${references[direction].translated[49]}`;
    const gold = resolve(root, '../shared/data/xl-wa', pair.language, 'dev.tsv');
    if (existsSync(gold)) {
      const ranks = lines(gold).filter(Boolean).map((row) => {
        const [english, other] = row.split('\t');
        return rank(role === 'forward' ? score(english, other) : score(other, english), references[direction].forced);
      });
      const share = (limit) => (ranks.filter((r) => r < limit).length / ranks.length * 100).toFixed(0);
      line += `; XL-WA dev (${ranks.length}): ${share(UNUSUAL)}% unusual or far, ${share(FAR)}% far`;
    }
    console.log(line);
  }
}
const json = {
  about: 'Mean log-probability per target piece of each direction\'s model on held-out pairs (data/en-XX/test, ' +
    `lines ${from + 1}-${from + count}): percentiles 1-99, forced on the reference and on the model's own beam-4 ` +
    'translation. Written by tools/eval/familiarity.mjs; web/page/familiarity.mjs reads it.',
  models, directions: references,
};
writeFileSync(out, `${JSON.stringify(json)}\n`);
console.log(`wrote ${out}`);
