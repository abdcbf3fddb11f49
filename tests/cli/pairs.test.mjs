// `attn align --pair en-XX` and `attn translate --pair …` on the shipped models: every pair's aligner
// links the explorer's example sentence pair; without --pair the output is en-es's, byte for byte;
// every bad value is a clear error that names what is available; and the pairs are the catalogue
// beside the models, models/pairs.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { PAIR_EXAMPLES } from '../data/pair_examples.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ATTN = join(ROOT, 'build/bin/attn');
const PAIRS = ['en-es', 'en-bg', 'en-da', 'en-de', 'en-et', 'en-fr', 'en-hu', 'en-it', 'en-nl', 'en-pt', 'en-ru', 'en-sl', 'en-zh'];

function attn(args, input) {
  const env = { ...process.env };
  delete env.ATTN_MODELS;  // the shipped models of the source tree
  const result = spawnSync(ATTN, args, { input, encoding: 'utf8', env });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('align --pair picks each pair\'s shipped models: its HMM links the example, its default aligns it', () => {
  for (const pair of PAIRS) {
    const example = PAIR_EXAMPLES[pair.slice(3)];
    const run = attn(['align', '--pair', pair, '--method', 'hmm'], `${example.source} ||| ${example.target}\n`);
    assert.equal(run.status, 0, `${pair}: ${run.stderr}`);
    assert.equal(run.stderr, '');
    const links = run.stdout.trim().split(' ');
    for (const link of example.links) assert.ok(links.includes(link), `${pair}: ${link} in ${run.stdout.trim()}`);
    // the default (the hybrid with the pair's attention models) aligns it too
    const byDefault = attn(['align', '--pair', pair], `${example.source} ||| ${example.target}\n`);
    assert.equal(byDefault.status, 0, `${pair}: ${byDefault.stderr}`);
    assert.match(byDefault.stdout.trim(), /^\d+-\d+( \d+-\d+){3,}$/, pair);
  }
});

test('the hybrid mixes at the pair\'s statistical weight unless --statistical-weight is given', () => {
  // the default is the pair's 0.4 (the library's, since 2026-11-27), and a flag still wins
  const lines = [PAIR_EXAMPLES.it, PAIR_EXAMPLES.et, PAIR_EXAMPLES.hu].map(({ source, target }) => `${source} ||| ${target}`);
  for (const [pair, line] of [['en-it', lines[0]], ['en-et', lines[1]], ['en-hu', lines[2]]]) {
    const byDefault = attn(['align', '--pair', pair], `${line}\n`).stdout;
    assert.equal(attn(['align', '--pair', pair, '--statistical-weight', '0.4'], `${line}\n`).stdout, byDefault, pair);
    const others = ['0', '0.3', '0.9', '1'].map((weight) => attn(['align', '--pair', pair, '--statistical-weight', weight], `${line}\n`));
    for (const other of others) assert.equal(other.status, 0, other.stderr);
    assert.ok(others.some((other) => other.stdout !== byDefault), `${pair}: the flag moves a link`);
  }
  const help = attn(['--help'], '');
  // every pair mixes at the library's default, so the list names no weight
  assert.match(help.stderr, /en-it \(hybrid\)/);
  assert.match(help.stderr, /en-es \(hybrid\)/);
  assert.doesNotMatch(help.stderr, /--statistical-weight 0\.5\)/);
});

test('a pair that attaches articles links "the" with the next word\'s translation, unless --articles keep', () => {
  const line = 'The old man walks to the market every morning . ||| Старик каждое утро ходит на рынок .\n';
  const attached = attn(['align', '--pair', 'en-ru', '--method', 'hmm'], line);
  const kept = attn(['align', '--pair', 'en-ru', '--method', 'hmm', '--articles', 'keep'], line);
  assert.equal(attached.status, 0, attached.stderr);
  assert.equal(kept.status, 0, kept.stderr);
  // the sentence-initial "The" has no link of its own; with the pair's setting it takes "old"'s
  const of = (run, source) => run.stdout.trim().split(' ').filter((link) => link.startsWith(`${source}-`));
  assert.deepEqual(of(kept, 0), []);
  assert.deepEqual(of(attached, 0).map((link) => link.split('-')[1]), of(kept, 1).map((link) => link.split('-')[1]));
  assert.ok(of(attached, 0).length > 0);
  assert.equal(attn(['align', '--pair', 'en-ru', '--method', 'hmm', '--articles', 'attach'], line).stdout, attached.stdout);
  // a pair without the setting keeps its links unless asked
  const es = `${PAIR_EXAMPLES.es.source} ||| ${PAIR_EXAMPLES.es.target}\n`;
  assert.equal(attn(['align', '--pair', 'en-es', '--articles', 'keep'], es).stdout, attn(['align', '--pair', 'en-es'], es).stdout);
  const bad = attn(['align', '--pair', 'en-ru', '--articles', 'yes'], line);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--articles must be attach or keep, got 'yes'/);
  assert.match(attn(['--help'], '').stderr, /en-ru \(hybrid, --articles attach[,)]/);
});

test('a pair whose hybrid links words that are each other\'s best adds them, unless --mutual-best off', () => {
  const line = 'The old man walks to the market every morning . ||| 老人 每天 早上 走路 去 市场 。\n';
  const best = attn(['align', '--pair', 'en-zh'], line);
  const plain = attn(['align', '--pair', 'en-zh', '--mutual-best', 'off'], line);
  assert.equal(best.status, 0, best.stderr);
  assert.equal(plain.status, 0, plain.stderr);
  const links = (run) => run.stdout.trim().split(' ');
  for (const link of links(plain)) assert.ok(links(best).includes(link), `${link} stays`);
  // "walks" and "走路": each other's best, below the posterior threshold
  assert.ok(!links(plain).includes('3-3') && links(best).includes('3-3'), best.stdout);
  assert.equal(attn(['align', '--pair', 'en-zh', '--mutual-best', 'on'], line).stdout, best.stdout);
  // a pair without the setting takes it when asked
  const es = `${PAIR_EXAMPLES.es.source} ||| ${PAIR_EXAMPLES.es.target}\n`;
  assert.equal(attn(['align', '--pair', 'en-es', '--mutual-best', 'off'], es).stdout, attn(['align', '--pair', 'en-es'], es).stdout);
  const bad = attn(['align', '--pair', 'en-zh', '--mutual-best', 'yes'], line);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--mutual-best must be on or off, got 'yes'/);
  const hmm = attn(['align', '--pair', 'en-zh', '--method', 'hmm', '--mutual-best', 'on'], line);
  assert.equal(hmm.status, 1);
  assert.match(hmm.stderr, /--mutual-best on applies to the hybrid with --symmetrize posterior/);
  assert.match(attn(['--help'], '').stderr, /en-zh \(hybrid, --mutual-best on\)/);
});

test('without --pair, align and translate are en-es\'s, byte for byte', () => {
  const lines = [PAIR_EXAMPLES.es, { source: 'The red house is small .', target: 'La casa roja es pequeña .' }]
    .map(({ source, target }) => `${source} ||| ${target}`).join('\n') + '\n';
  for (const method of [[], ['--method', 'hmm'], ['--method', 'ibm2']]) {
    const plain = attn(['align', ...method], lines), paired = attn(['align', '--pair', 'en-es', ...method], lines);
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(paired.stdout, plain.stdout, method.join(' ') || 'the default method');
  }
  const sentence = 'Save the file before closing the window .\n';
  const translated = attn(['translate'], sentence);
  assert.equal(translated.status, 0, translated.stderr);
  assert.notEqual(translated.stdout.trim(), '');
  assert.equal(attn(['translate', '--pair', 'en-es'], sentence).stdout, translated.stdout);
  const back = attn(['translate', '--pair', 'es-en'], 'La casa es muy pequeña .\n');  // the reverse model
  assert.equal(back.status, 0, back.stderr);
  // English out ("The house is very small ."; the fifth release turns 'La casa es pequeña .' into
  // "The home is smaller .", one of its errors)
  assert.match(back.stdout, /\bsmall\b/);
  assert.doesNotMatch(back.stdout, /pequeña/);
});

test('an unknown pair is an error that lists the available ones; align takes English first', () => {
  for (const bad of ['en-ja', 'fr', 'EN-IT', 'en_it', '']) {
    const run = attn(['align', '--pair', bad], 'a ||| b\n');
    assert.equal(run.status, 1, bad);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`unknown language pair '${bad}' \\(available: ${PAIRS.join(', ')}\\)`), bad);
  }
  const reversed = attn(['align', '--pair', 'it-en'], 'a ||| b\n');
  assert.equal(reversed.status, 1);
  assert.match(reversed.stderr, /align reads English as the source side: use --pair en-it/);
  const missing = attn(['align', '--pair'], '');
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /--pair needs a value/);
  const unknown = attn(['translate', '--pair', 'ja-en'], 'a\n');
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /unknown language pair 'ja-en' \(available: en-es, es-en, en-bg, bg-en, .*sl-en, en-zh, zh-en\)/);
});

test('en-zh translates both ways with the Chinese Transformer and aligns by attention alone', () => {
  const english = attn(['translate', '--pair', 'en-zh'], 'I love you .\nThe weather is nice today .\n');
  assert.equal(english.status, 0, english.stderr);
  const lines = english.stdout.trim().split('\n');
  assert.equal(lines.length, 2);
  for (const line of lines) assert.match(line, /\p{Script=Han}/u, `Chinese written: ${line}`);
  // typed Chinese (no spaces) is cut into words first; a segmented line is taken as given
  for (const input of ['我爱你。\n', '我 爱 你 。\n']) {
    const chinese = attn(['translate', '--pair', 'zh-en'], input);
    assert.equal(chinese.status, 0, chinese.stderr);
    assert.match(chinese.stdout, /^[A-Za-z][^\p{Script=Han}]*$/u, `English written: ${chinese.stdout}`);
  }
  const attention = attn(['align', '--pair', 'en-zh', '--method', 'attention'], 'I love you . ||| 我 爱 你 。\n');
  assert.equal(attention.status, 0, attention.stderr);
  assert.match(attention.stdout.trim(), /^\d+-\d+( \d+-\d+)*$/);
  // the model's file serves both directions; it is its own file, not the twelve pairs' one
  const named = attn(['translate', '-m', join(ROOT, 'models/multilingual-zh-transformer.safetensors'), '--target-language', 'zh'], 'Good morning .\n');
  assert.equal(named.status, 0, named.stderr);
  assert.match(named.stdout, /\p{Script=Han}/u);
});

test('every pair translates both ways through the multilingual Transformer, and aligns by attention alone', () => {
  for (const direction of ['en-it', 'it-en', 'en-fr', 'de-en']) {
    const source = direction.startsWith('en-') ? 'The house is small .' : PAIR_EXAMPLES[direction.slice(0, 2)].target;
    const run = attn(['translate', '--pair', direction], `${source}\n`);
    assert.equal(run.status, 0, `${direction}: ${run.stderr}`);
    assert.ok(run.stdout.trim().length > 0, direction);
  }
  // the same file named after a direction, as the CLI's file-name convention reads it
  const named = attn(['translate', '-m', join(ROOT, 'models/es-en-transformer.safetensors')], 'El gato duerme .\n');
  assert.equal(named.status, 0, named.stderr);
  // a multilingual file given without a direction says what to choose
  const bare = attn(['translate', '-m', join(ROOT, 'models/multilingual-transformer.safetensors')], 'a\n');
  assert.match(bare.stderr, /multilingual: choose the language to translate into \(en, /);
  const example = PAIR_EXAMPLES.fr;
  const attention = attn(['align', '--pair', 'en-fr', '--method', 'attention'], `${example.source} ||| ${example.target}\n`);
  assert.equal(attention.status, 0, attention.stderr);
  assert.match(attention.stdout.trim(), /^\d+-\d+( \d+-\d+)*$/);
  const ibm2 = attn(['align', '--pair', 'en-hu', '--method', 'ibm2'], 'a ||| b\n');
  assert.equal(ibm2.status, 1);
  assert.match(ibm2.stderr, /method 'ibm2' needs IBM Model 2, and none is shipped for en-hu/);
  // a file given by flag still wins over the pair's
  const given = attn(['align', '--pair', 'en-it', '--method', 'hmm', '--hmm', join(ROOT, 'tests/data/tiny-hmm.safetensors')], 'a b ||| c d\n');
  assert.equal(given.status, 0, given.stderr);
});

test('the pairs are the catalogue beside the models (models/pairs.json): another folder brings its own, or none', () => {
  const folder = mkdtempSync(join(tmpdir(), 'attn-pairs-'));
  const run = (args, input) => {
    const result = spawnSync(ATTN, args, { input, encoding: 'utf8', env: { ...process.env, ATTN_MODELS: folder } });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  // no catalogue: align and --pair say which file is missing; translate -m needs none
  const missing = run(['align', '--method', 'hmm'], 'the cat ||| el gato\n');
  assert.equal(missing.status, 1);
  assert.equal(missing.stderr.trim(), `attn align: cannot open '${folder}/pairs.json'`);
  assert.match(run(['translate', '--pair', 'en-fr'], 'the cat\n').stderr, /cannot open .*pairs\.json/);
  assert.match(run(['--help']).stderr, /language pairs: none \(cannot open/);
  const fixture = join(ROOT, 'tests/data/tiny-additive.safetensors');
  assert.equal(run(['translate', '-m', fixture], 'the cat\n').status, 0);
  // a catalogue of one pair, its aligner under another name: that pair is the default
  const shipped = JSON.parse(readFileSync(join(ROOT, 'models/pairs.json'), 'utf8'));
  const italian = shipped.pairs.find((pair) => pair.name === 'en-it');
  symlinkSync(join(ROOT, 'models', italian.files.hmm), join(folder, 'italian.safetensors'));
  writeFileSync(join(folder, 'pairs.json'), JSON.stringify({ pairs: [{ ...italian, files: { hmm: 'italian.safetensors' } }] }));
  const { source, target } = PAIR_EXAMPLES.it;
  const own = run(['align', '--method', 'hmm'], `${source} ||| ${target}\n`);
  assert.equal(own.status, 0, own.stderr);
  assert.equal(own.stdout, attn(['align', '--pair', 'en-it', '--method', 'hmm'], `${source} ||| ${target}\n`).stdout);
  assert.match(run(['align', '--pair', 'en-es'], 'a ||| b\n').stderr, /unknown language pair 'en-es' \(available: en-it\)/);
  writeFileSync(join(folder, 'pairs.json'), JSON.stringify({ pairs: [{ ...italian, method: 'median' }] }));
  assert.match(run(['align'], 'a ||| b\n').stderr, /pairs\.json: pairs\[0\] \(en-it\)\.method: unknown alignment method 'median'/);
});
