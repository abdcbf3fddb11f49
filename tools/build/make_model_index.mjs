// Writes web/dist/models/index.json, which the page's worker reads before it fetches any model:
//   { models: [every shipped file],
//     pairs: { 'en-it': { language, languageName, method, posteriorThreshold, statisticalWeight,
//                         files: { hmm, ibm2?, forward?, reverse?, general? }, bytes }, … },
//     multilingual: { file: [languages it writes, English first] },
//     facts: { file: { kind, summary, parameters?, minutes? (CPU), gpuMinutes?, data?, section (the model card's heading),
//                      quality? (the captioner's: { soft, hard: { scenes, pointing, recall, exact } }) } },
//     familiarity: { 'en-fr': { file, forced: [99 percentiles], translated: [99] }, … } }
// and each pair gains devAer: { method: dev-set AER } from models/dev-aer.tsv (what
// tools/eval/pairs.sh --record measured with these files), so the page can say how well each
// method aligns and what drew a figure.
// The pairs, their files by role and their alignment settings come from the pair catalogue,
// models/pairs.json, so the index never copies that list; a pair keeps only the files this build
// ships, and a pair with none is left out. web/CMakeLists.txt runs it after linking the module and
// copying the models:
//   node tools/build/make_model_index.mjs web/dist simd|scalar
import { createHash } from 'node:crypto';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { safetensorsHeader } from './safetensors_header.mjs';

const [dist, flavour] = process.argv.slice(2);
if (!dist || !['simd', 'scalar'].includes(flavour)) {
  console.error('usage: node tools/build/make_model_index.mjs DIST simd|scalar');
  process.exit(2);
}

const { default: loadAttn } = await import(pathToFileURL(resolve(dist, 'attn.mjs')).href);
const attn = await loadAttn({ simd: flavour === 'simd', warmUp: false });
const catalogue = JSON.parse(await readFile(new URL('../../models/pairs.json', import.meta.url), 'utf8')).pairs;

const folder = resolve(dist, 'models');
const models = (await readdir(folder)).filter((file) => file.endsWith('.safetensors')).sort();
const pairs = {};
for (const pair of catalogue) {
  const files = Object.fromEntries(Object.entries(pair.files).filter(([, file]) => models.includes(file)));
  if (Object.keys(files).length === 0) continue;
  let bytes = 0;
  for (const file of Object.values(files)) bytes += (await stat(resolve(folder, file))).size;
  const { language, languageName, method, posteriorThreshold, statisticalWeight, attentionMethod, attentionThreshold } = pair;
  const attachArticles = pair.attachArticles ?? false;
  const mutualBest = pair.mutualBest ?? false;
  // the names of a multilingual file's directions, from the library (attn::direction_model_name)
  const { directionModels } = attn.alignment.pairs.find((p) => p.name === pair.name) ?? {};
  if (!directionModels) throw new Error(`make_model_index: the module was built without the pair ${pair.name} of models/pairs.json`);
  pairs[pair.name] = { language, languageName, method, posteriorThreshold, statisticalWeight, attentionMethod, attentionThreshold,
    attachArticles, mutualBest, directionModels, files, bytes };
}
// Multilingual translation models (docs/MODEL_FORMAT.md §7.1), file -> the languages it writes, so
// that the page can offer each direction ('en-fr-transformer', 'fr-en-transformer') before it loads
// the file.
const statistical = new Set(catalogue.flatMap((pair) => [pair.files.hmm, pair.files.ibm2]));
const multilingual = {};
for (const file of models.filter((file) => !statistical.has(file))) {
  const model = await attn.loadModel(new Uint8Array(await readFile(resolve(folder, file))));
  if (model.info.languages) multilingual[file] = model.info.languages;
  model.delete();
}

// models/dev-aer.tsv: pair -> method -> AER (comment lines start with #)
const table = await readFile(new URL('../../models/dev-aer.tsv', import.meta.url), 'utf8').catch(() => '');
for (const line of table.split('\n').filter((l) => l && !l.startsWith('#')).slice(1)) {
  const [pair, method, aer] = line.split('\t');
  if (pairs[pair] && Number.isFinite(Number(aer))) (pairs[pair].devAer ??= {})[method] = Number(aer);
}

// models/familiarity.json (tools/eval/familiarity.mjs): each direction's held-out score percentiles, which
// the worker places a sentence pair among (web/page/familiarity.mjs); a direction whose model file
// changed since it was measured is left out (its line then does not appear), with a warning.
const familiarity = {};
const measured = JSON.parse(await readFile(new URL('../../models/familiarity.json', import.meta.url), 'utf8').catch(() => '{}'));
for (const [direction, reference] of Object.entries(measured.directions ?? {})) {
  if (!models.includes(reference.file)) continue;
  const digest = createHash('sha256').update(await readFile(resolve(folder, reference.file))).digest('hex');
  if (digest !== measured.models?.[reference.file]) {
    console.warn(`make_model_index: ${reference.file} changed since models/familiarity.json: rerun tools/eval/familiarity.mjs`);
    continue;
  }
  familiarity[direction] = { file: reference.file, forced: reference.forced, translated: reference.translated };
}

// What each file is, from its safetensors header alone (docs/MODEL_FORMAT.md): the kind, its
// sizes, parameters, training minutes and data in a few words, for the line under each figure.
// (the header only: the multilingual file is 16 MB)
const header = (file) => safetensorsHeader(resolve(folder, file));
// The training record's minutes, followed through each `initialized_from` (a run that continued
// another's weights records that run there): CPU and GPU minutes apart, by the record's device.
function trainingMinutes(training) {
  const minutes = { cpu: 0, gpu: 0 };
  for (let run = training; run && typeof run === 'object'; run = run.initialized_from) {
    if (Number.isFinite(run.minutes)) minutes[run.device && !/\bcpu\b/i.test(run.device) ? 'gpu' : 'cpu'] += run.minutes;
  }
  return minutes;
}
// A captioner's minutes: its soft phase's, those of each file it started from (`based_on`: the
// encoder and soft decoder continue that file's), and its own hard phase's.
function captionerMinutes(training) {
  let minutes = training.hard?.minutes ?? 0;
  for (let run = training; run && typeof run === 'object'; run = run.based_on) minutes += run.soft?.minutes ?? 0;
  return minutes;
}
// The model card's section on each kind of file: a heading ("## ...") it must have.
const card = await readFile(new URL('../../models/MODEL_CARD.md', import.meta.url), 'utf8');
const section = (title) => {
  if (!card.split('\n').includes(`## ${title}`)) throw new Error(`models/MODEL_CARD.md has no section "## ${title}"`);
  return title;
};
// The captioner's measured quality, from its section of the model card: the first quality table's
// first 'soft' and 'hard' rows (their scenes, and every column by its heading). Only when the card
// describes this very file (its size in bytes, as the section's first line states it): a model
// trained again keeps no figures of its predecessor.
function captionerQuality(file, bytes) {
  const lines = card.split('\n');
  const start = lines.indexOf('## The image captioner (Show, Attend and Tell)');
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const body = lines.slice(start, end < 0 ? undefined : end);
  const stated = body.join(' ').match(new RegExp(`${file.replace('.', '\\.')}\\W*\\(([\\d,]+) bytes`));
  if (!stated || Number(stated[1].replaceAll(',', '')) !== bytes) {
    console.warn(`make_model_index: models/MODEL_CARD.md does not describe this ${file} (${bytes} bytes): its quality is left out`);
    return {};
  }
  const cells = (line) => line.split('|').slice(1, -1).map((cell) => cell.trim());
  const table = body.filter((line) => line.startsWith('|'));
  const heading = cells(table[0] ?? '|').map((name) => name.toLowerCase());
  const quality = {};
  for (const row of table.slice(2).map(cells)) {
    const attention = row[heading.indexOf('attention')];
    if (!['soft', 'hard'].includes(attention) || quality[attention]) continue;
    const number = (name) => Number(row[heading.indexOf(name)]);
    quality[attention] = { scenes: row[0], pointing: number('pointing'), recall: number('object recall'), exact: number('exact caption') };
  }
  return Number.isFinite(quality.soft?.pointing) ? { quality } : {};
}
const facts = {};
for (const file of models) {
  const { __metadata__: meta = {}, ...tensors } = await header(file);
  // an int8 matrix's per-row scales (NAME.scale beside an I8 NAME) are not parameters of their own
  const parameters = Object.entries(tensors)
    .filter(([name]) => !(name.endsWith('.scale') && tensors[name.slice(0, -'.scale'.length)]?.dtype === 'I8'))
    .reduce((sum, [, { shape }]) => sum + shape.reduce((a, b) => a * b, 1), 0);
  const training = meta.training ? JSON.parse(meta.training) : {};
  const architecture = meta.architecture ? JSON.parse(meta.architecture) : {};
  const { cpu: minutes, gpu: gpuMinutes } = trainingMinutes(training);
  if (meta.format === 'attnscope-transformer-v1') {
    const languages = meta.languages ? JSON.parse(meta.languages) : ['en', 'es'];
    // the file that learned Chinese too has a section of its own (it serves en-zh and the pairs
    // models/pairs.json gives it)
    const chinese = languages.includes('zh');
    facts[file] = {
      kind: meta.direction === 'multilingual' ? `multilingual Transformer (English ↔ ${languages.length - 1} languages)` : 'Transformer',
      summary: `${architecture.encoder_layers}+${architecture.decoder_layers} layers, d ${architecture.model_dim}, ${architecture.heads} heads`,
      parameters, minutes, gpuMinutes,
      data: chinese ? 'Debian’s human-translated help, UI and catalogs, its handbook and game stories' : 'Debian’s human-translated help, UI and catalogs',
      section: section(chinese ? 'The multilingual Transformer with Chinese (English ↔ thirteen languages)'
        : 'The multilingual Transformer (English ↔ twelve languages)'),
    };
  } else if (meta.format === 'attnscope-rnn-v1') {
    facts[file] = {
      kind: `RNN with ${meta.attention} attention (${meta.direction})`,
      summary: `encoder ${architecture.encoder_hidden}, decoder ${architecture.decoder_hidden}`,
      parameters, minutes, gpuMinutes, data: 'Spanish software strings and apertium-translated English prose',
      section: section('The attentional RNNs (English ↔ Spanish)'),
    };
  } else if (['attnscope-hmm-v1', 'attnscope-hmm-v2', 'attnscope-hmm-v3'].includes(meta.format)) {
    // each side's words as the HMM reads them (en-zh's: English to 5 letters, Chinese to its first character)
    const prefix = meta['forward.source_prefix'], other = meta['forward.target_prefix'] ?? prefix;
    const cut = (letters) => (letters === '1' ? 'cut to their first character' : letters && letters !== '0' ? `cut to ${letters} letters` : 'whole');
    const words = other === prefix ? (prefix && prefix !== '0' ? `words cut to ${prefix} letters` : 'whole words')
      : `English words ${cut(prefix)}, the other language's ${cut(other)}`;
    facts[file] = {
      kind: 'HMM aligner', summary: meta['compounds.target'] || meta['compounds.source'] ? `${words}, compounds split` : words,
      section: section('The statistical aligners (HMM and IBM Model 2)'),
    };
  } else if (meta.format === 'attnscope-captioner-v1') {
    const [height, width] = architecture.grid ?? [];
    facts[file] = {
      kind: 'Show, Attend and Tell image captioner',
      summary: `CNN to a ${height} × ${width} grid, LSTM ${architecture.hidden_size}, soft and hard attention`,
      parameters, minutes: captionerMinutes(training), gpuMinutes: 0,
      data: `scenes of ${JSON.parse(meta.objects ?? '[]').length} kinds of OpenMoji’s drawn objects (CC BY-SA 4.0) on a plain background`,
      section: section('The image captioner (Show, Attend and Tell)'),
      ...captionerQuality(file, (await stat(resolve(folder, file))).size),
    };
  } else if (meta.format === 'attnscope-ibm2-v1' || meta.format === 'attnscope-ibm2-v2') {
    facts[file] = { kind: 'IBM Model 2 aligner', summary: 'fast_align’s diagonal prior', section: section('The statistical aligners (HMM and IBM Model 2)') };
  }
}
await writeFile(resolve(folder, 'index.json'), `${JSON.stringify({ models, pairs, multilingual, facts, familiarity }, null, 2)}\n`);
