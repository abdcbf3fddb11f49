// The command-line tool build/bin/attn: its input rules (fast_align's "source ||| target" lines,
// malformed lines warned about by number and answered with an empty line, never a shifted output),
// its methods, and `attn aer` on a hand-made gold file. Runs on the tiny fixture models.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ATTN = join(ROOT, 'build/bin/attn');
const FORWARD = join(ROOT, 'tests/data/tiny-additive.safetensors');
const REVERSE = join(ROOT, 'tests/data/tiny-general.safetensors');
const HMM = join(ROOT, 'tests/data/tiny-hmm.safetensors');
const IBM2 = join(ROOT, 'tests/data/tiny-ibm2.safetensors');
const directory = mkdtempSync(join(tmpdir(), 'attn-cli-'));

function attn(args, input) {
  const result = spawnSync(ATTN, args, { input, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const LINK_LINE = /^(\d+-\d+( \d+-\d+)*)?$/;

test('align answers every line, in order, and warns about malformed ones by line number', () => {
  const long = Array.from({ length: 1001 }, (_, i) => `w${i}`).join(' ');
  const input = [
    'the cat sleeps on the sofa . ||| el gato duerme en el sofá .',
    'no separator on this line',
    ' ||| el gato',
    'the cat ||| ',
    `${long} ||| el gato`,
    'where is the station ? ||| ¿ dónde está la estación ?',
  ].join('\n') + '\n';
  const { status, stdout, stderr } = attn(['align', '-m', FORWARD, '--method', 'argmax'], input);
  assert.equal(status, 0);
  const lines = stdout.split('\n');
  assert.equal(lines.length, 7);  // six answers and the final newline
  assert.equal(lines[6], '');
  for (const index of [1, 2, 3, 4]) assert.equal(lines[index], '', `line ${index + 1} is empty`);
  for (const index of [0, 5]) {
    assert.match(lines[index], LINK_LINE);
    assert.notEqual(lines[index], '');
  }
  // every link is inside its sentence pair: source word < 7, target word < 7
  for (const link of lines[0].split(' ')) {
    const [s, t] = link.split('-').map(Number);
    assert.ok(s < 7 && t < 7, link);
  }
  assert.match(stderr, /line 2: no ' \|\|\| '/);
  assert.match(stderr, /line 3: the source side is empty/);
  assert.match(stderr, /line 4: the target side is empty/);
  assert.match(stderr, /line 5: more than 1000 words/);
  assert.doesNotMatch(stderr, /line 1:|line 6:/);
});

test('argmax links each target word once; every method runs and reads -i FILE like stdin', () => {
  const file = join(directory, 'pairs.txt');
  writeFileSync(file, 'the cat sleeps ||| el gato duerme\n');
  const argmax = attn(['align', '-m', FORWARD, '--method', 'argmax', '-i', file]);
  assert.equal(argmax.status, 0);
  const targets = argmax.stdout.trim().split(' ').filter(Boolean).map((l) => Number(l.split('-')[1]));
  assert.equal(new Set(targets).size, targets.length);
  for (const method of ['threshold', 'itermax', 'intersection', 'union', 'grow-diag-final-and', 'soft-itermax', 'soft-threshold',
    'soft-agreement']) {
    const run = attn(['align', '-m', FORWARD, '-r', REVERSE, '--method', method], 'the cat sleeps ||| el gato duerme\n');
    assert.equal(run.status, 0, `${method}: ${run.stderr}`);
    assert.match(run.stdout.trim(), LINK_LINE, method);
  }
  const intersection = attn(['align', '-m', FORWARD, '-r', REVERSE, '--method', 'intersection'], 'the cat sleeps ||| el gato duerme\n').stdout.trim();
  const union = attn(['align', '-m', FORWARD, '-r', REVERSE, '--method', 'union'], 'the cat sleeps ||| el gato duerme\n').stdout.trim();
  const set = (line) => new Set(line.split(' ').filter(Boolean));
  for (const link of set(intersection)) assert.ok(set(union).has(link), `${link} of the intersection is in the union`);
});

test('NFD and NFC input files give byte-identical align output, whatever the method', () => {
  // before C++ normalized, the NFD lines got other links from every method here
  const pairs = [
    'the house is small . ||| pequeña es la casa .',
    'the cat is small ||| pequeño es el gato',
    'the house is small ||| ES PEQUEÑA LA CASA',
    'where is the station ? ||| ¿ dónde está la estación ?',
  ].join('\n') + '\n';
  const composed = join(directory, 'nfc.txt'), decomposed = join(directory, 'nfd.txt');
  writeFileSync(composed, pairs.normalize('NFC'));
  writeFileSync(decomposed, pairs.normalize('NFD'));
  assert.notEqual(pairs.normalize('NFD'), pairs.normalize('NFC'));
  for (const args of [
    ['-m', FORWARD, '-r', REVERSE, '--hmm', HMM],  // the default method: hybrid with the HMM
    ['-m', FORWARD, '--method', 'argmax'],
    ['--method', 'hmm', '--hmm', HMM],
    ['--method', 'ibm2', '--ibm2', IBM2],
  ]) {
    const nfc = attn(['align', ...args, '-i', composed]), nfd = attn(['align', ...args, '-i', decomposed]);
    assert.equal(nfc.status, 0, nfc.stderr);
    assert.equal(nfd.status, 0, nfd.stderr);
    assert.equal(nfc.stdout.split('\n').length, 5, args.join(' '));
    assert.notEqual(nfc.stdout.trim(), '', args.join(' '));
    assert.equal(nfd.stdout, nfc.stdout, args.join(' '));
  }
});

test('bad options and bad model files fail with a message, not a crash', () => {
  let run = attn(['align', '-m', FORWARD, '--method', 'bogus'], 'a ||| b\n');
  assert.equal(run.status, 1);
  assert.match(run.stderr, /unknown alignment method 'bogus'/);
  run = attn(['align', '-m', FORWARD, '--method', 'grow-diag-final-and'], 'a ||| b\n');
  assert.match(run.stderr, /needs a reverse model/);
  const broken = join(directory, 'broken.safetensors');
  writeFileSync(broken, Buffer.from('this is not a model at all'));
  run = attn(['align', '-m', broken], 'a ||| b\n');
  assert.equal(run.status, 1);
  assert.match(run.stderr, /broken.safetensors: .*safetensors/);
  run = attn(['frobnicate']);
  assert.equal(run.status, 2);
  run = attn(['translate', '-m', FORWARD, '--beam', 'x'], 'a\n');
  assert.match(run.stderr, /--beam needs a whole number/);
});

test('translate answers one line per input line', () => {
  const run = attn(['translate', '-m', FORWARD, '--beam', '2'], 'the cat\n\nwhere is the station ?\n');
  assert.equal(run.status, 0);
  assert.equal(run.stdout.split('\n').length, 4);
  assert.match(run.stderr, /line 2: empty/);
});

test('aer scores a hand-made gold file with sure and possible links', () => {
  const gold = join(directory, 'gold.txt');
  const predicted = join(directory, 'predicted.txt');
  // pair 1: A = {0-0, 1-1, 2-1}, S = {0-0, 1-1}, P = S + {2-2}; pair 2 (XL-WA's tab format): A = {0-1, 1-0}, S = {0-0, 1-0}
  writeFileSync(gold, '0-0 1-1 2?2\nthe cat\tel gato\t0-0 1-0\n');
  writeFileSync(predicted, '0-0 1-1 2-1\n0-1 1-0\n');
  const run = attn(['aer', gold, predicted]);
  assert.equal(run.status, 0, run.stderr);
  // |A| = 5, |S| = 4, |A∩S| = 3, |A∩P| = 3: AER = 1 - 6/9, precision 3/5, recall 3/4
  assert.match(run.stdout, /AER 0\.3333/);
  assert.match(run.stdout, /precision 0\.6000/);
  assert.match(run.stdout, /recall 0\.7500/);
  writeFileSync(predicted, '0-0\n');
  assert.match(attn(['aer', gold, predicted]).stderr, /has 2 lines/);
  writeFileSync(predicted, '0-0\n0-x\n');
  assert.match(attn(['aer', gold, predicted]).stderr, /line 2: '0-x' is not a link/);
});

test('a bad flag value names the flag and the value, and nothing is aligned', () => {
  const cases = [
    [['--threshold', 'abc'], /--threshold needs a number, got 'abc'/],
    [['--threshold', '0.3x'], /--threshold needs a number, got '0.3x'/],
    [['--statistical-weight', ''], /--statistical-weight needs a number, got ''/],
    [['--method', 'nope'], /--method: unknown alignment method 'nope' \(known: argmax, .*hybrid, hmm, ibm2\)/],
    [['--mix', 'cubic'], /--mix: unknown mix 'cubic' \(known: linear, geometric\)/],
    [['--symmetrize', 'both'], /--symmetrize: unknown symmetrization 'both' \(known: grow-diag-final-and, posterior\)/],
    [['--statistical', 'ibm3'], /--statistical: unknown statistical aligner 'ibm3' \(known: ibm2, hmm\)/],
    [['--posterior-threshold', '1.5', '--method', 'hmm', '--hmm', HMM], /posterior_threshold must be in \(0, 1\], got 1.5/],
  ];
  for (const [flags, message] of cases) {
    const { status, stdout, stderr } = attn(['align', ...flags], 'a ||| b\n');
    assert.equal(status, 1, flags.join(' '));
    assert.equal(stdout, '', flags.join(' '));
    assert.match(stderr, message, flags.join(' '));
  }
  const beam = attn(['translate', '-m', FORWARD, '--beam', '-2'], 'the cat\n');
  assert.equal(beam.status, 1);
  assert.match(beam.stderr, /--beam needs a whole number, got '-2'/);
});

test('--help lists every alignment method and the defaults from the library', () => {
  const { status, stderr } = attn(['--help']);
  assert.equal(status, 0);
  for (const method of ['argmax', 'threshold', 'itermax', 'intersection', 'union', 'grow-diag-final-and', 'soft-itermax',
    'soft-threshold', 'soft-agreement', 'attention', 'hybrid', 'hmm', 'ibm2']) {
    assert.match(stderr, new RegExp(`^  ${method} `, 'm'), method);
  }
  assert.match(stderr, /hybrid .*\(default\)/);
  assert.match(stderr, /--statistical hmm --statistical-weight 0.4 --mix linear --symmetrize posterior --posterior-threshold 0.35/);
});

test('align and translate give the same output, in order, on one thread and on many', () => {
  const pairs = [
    'the cat sleeps on the sofa . ||| el gato duerme en el sofá .',
    'where is the station ? ||| ¿ dónde está la estación ?',
    'no separator on this line',
    'the house is small ||| la casa es pequeña',
  ];
  // more lines than one batch per thread, with the malformed ones spread through
  const input = Array.from({ length: 300 }, (_, i) => pairs[i % pairs.length]).join('\n') + '\n';
  for (const method of ['hybrid', 'argmax', 'hmm']) {
    const args = ['align', '-m', FORWARD, '-r', REVERSE, '--hmm', HMM, '--method', method];
    const one = attn([...args, '--threads', '1'], input);
    assert.equal(one.status, 0);
    assert.equal(one.stdout.split('\n').length, 301);
    for (const threads of ['2', '5']) {
      const many = attn([...args, '--threads', threads], input);
      assert.equal(many.stdout, one.stdout, `${method}, ${threads} threads`);
      assert.equal(many.stderr, one.stderr, `${method}, ${threads} threads: the same warnings, in the same order`);
    }
  }
  const sentences = Array.from({ length: 150 }, (_, i) => (i % 7 === 3 ? '' : `the cat ${i % 5} sleeps`)).join('\n') + '\n';
  const one = attn(['translate', '-m', FORWARD, '--threads', '1'], sentences);
  const many = attn(['translate', '-m', FORWARD, '--threads', '3'], sentences);
  assert.equal(one.status, 0);
  assert.equal(many.stdout, one.stdout);
  assert.equal(many.stderr, one.stderr);
  for (const bad of ['0', '257', 'two', '-1']) {
    const result = attn(['align', '-m', FORWARD, '--method', 'argmax', '--threads', bad], 'a ||| b\n');
    assert.equal(result.status, 1, bad);
    assert.match(result.stderr, /--threads needs a (count from 1 to 256|whole number)/, bad);
    assert.equal(result.stdout, '');
  }
});

const TRANSFORMER = join(ROOT, 'tests/data/tiny-transformer.safetensors');

// [layers][heads][rows][cols] nested arrays: their sizes, and every value a finite weight in [0, 1]
function dims(map) {
  const sizes = [map.length, map[0].length, map[0][0].length, map[0][0][0].length];
  for (const layer of map) for (const head of layer) for (const row of head) for (const x of row) {
    assert.ok(Number.isFinite(x) && x >= 0 && x <= 1.000001, `weight ${x}`);
  }
  return sizes;
}

test('attentions prints one JSON object a line with every map, at word level or over pieces', () => {
  const input = 'the cat sleeps . ||| el gato duerme .\nno separator\nthe house ||| la casa\n';
  const { status, stdout, stderr } = attn(['attentions', '-m', TRANSFORMER, '--threads', '2'], input);
  assert.equal(status, 0, stderr);
  const lines = stdout.split('\n');
  assert.equal(lines.length, 4);
  assert.equal(lines[1], '');
  assert.match(stderr, /line 2: no ' \|\|\| '/);
  const first = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(first), ['source', 'target', 'cross', 'encoder', 'decoder']);
  assert.deepEqual(first.source, ['the', 'cat', 'sleeps', '.']);
  assert.deepEqual(first.target, ['el', 'gato', 'duerme', '.']);
  assert.deepEqual(dims(first.cross), [2, 2, 4, 4]);
  assert.deepEqual(dims(first.encoder), [2, 2, 4, 4]);
  assert.deepEqual(dims(first.decoder), [2, 2, 4, 4]);
  assert.deepEqual(dims(JSON.parse(lines[2]).cross), [2, 2, 2, 2]);

  const pieces = JSON.parse(attn(['attentions', '-m', TRANSFORMER, '--pieces'], 'the cat ||| el gato\n').stdout);
  assert.equal(pieces.source.at(-1), '</s>');
  assert.equal(pieces.target.at(-1), '</s>');
  const [L, H, T, S] = dims(pieces.cross);
  assert.deepEqual([T, S], [pieces.target.length, pieces.source.length]);
  for (const layer of pieces.decoder) for (const head of layer) {
    head.forEach((row, t) => {
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4);
      row.forEach((x, u) => { if (u > t) assert.equal(x, 0); });  // causal
    });
  }
  for (const layer of pieces.cross) for (const head of layer) for (const row of head) {
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4);
  }
  assert.equal(L * H > 0, true);

  // an RNN has cross-attention only: one layer, one head
  const rnn = JSON.parse(attn(['attentions', '-m', FORWARD], 'the cat ||| el gato\n').stdout);
  assert.deepEqual(Object.keys(rnn), ['source', 'target', 'cross']);
  assert.deepEqual(dims(rnn.cross), [1, 1, 2, 2]);
});

test('attentions --log-probs adds each target word\'s or piece\'s log-probability and their sum', () => {
  const input = 'the cat sleeps . ||| el gato duerme .\n';
  const plain = JSON.parse(attn(['attentions', '-m', TRANSFORMER], input).stdout);
  const run = attn(['attentions', '-m', TRANSFORMER, '--log-probs'], input);
  assert.equal(run.status, 0, run.stderr);
  const scored = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(scored), ['source', 'target', 'cross', 'encoder', 'decoder', 'log_probs', 'log_prob']);
  assert.deepEqual(scored.cross, plain.cross);  // the maps do not change
  assert.equal(scored.log_probs.length, scored.target.length + 1);  // the words, then </s>
  for (const x of scored.log_probs) assert.ok(Number.isFinite(x) && x <= 0, String(x));
  const sum = scored.log_probs.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - scored.log_prob) < 1e-3 * Math.max(1, Math.abs(sum)), `${sum} against ${scored.log_prob}`);
  assert.ok(scored.log_prob < 0);

  // over pieces: one per target piece, </s> included; the same sum as by words
  const pieces = JSON.parse(attn(['attentions', '-m', TRANSFORMER, '--pieces', '--log-probs'], input).stdout);
  assert.equal(pieces.log_probs.length, pieces.target.length);
  assert.ok(Math.abs(pieces.log_prob - scored.log_prob) < 1e-3 * Math.max(1, Math.abs(scored.log_prob)));

  // an RNN scores the same way; without the flag, no such keys
  const rnn = JSON.parse(attn(['attentions', '-m', FORWARD, '--log-probs'], 'the cat ||| el gato\n').stdout);
  assert.deepEqual(Object.keys(rnn), ['source', 'target', 'cross', 'log_probs', 'log_prob']);
  assert.equal(rnn.log_probs.length, 3);
  assert.equal('log_probs' in plain, false);
});

test('translate and align take a Transformer model as they take an RNN', () => {
  const translated = attn(['translate', '-m', TRANSFORMER], 'the cat sleeps .\n');
  assert.equal(translated.status, 0, translated.stderr);
  assert.equal(translated.stdout.split('\n').length, 2);
  for (const method of ['argmax', 'grow-diag-final-and', 'hybrid']) {
    const aligned = attn(['align', '-m', TRANSFORMER, '-r', TRANSFORMER, '--hmm', HMM, '--method', method],
      'the cat sleeps . ||| el gato duerme .\n');
    assert.equal(aligned.status, 0, aligned.stderr);
    assert.match(aligned.stdout, /^\d+-\d+( \d+-\d+)*\n$/);
  }
  const wrong = attn(['align', '-m', HMM, '--method', 'argmax'], 'a ||| b\n');
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /expected attnscope-rnn-v1 or attnscope-transformer-v1/);
});

test('an option the command does not take is refused, naming both; the long and short names are one option', () => {
  const aer = attn(['aer', '--beam', '5', 'gold', 'links']);
  assert.equal(aer.status, 1);
  assert.match(aer.stderr, /attn aer: --beam is not an option of aer \(aer takes: no options\)/);
  const translate = attn(['translate', '-m', FORWARD, '--method', 'hmm'], 'the cat\n');
  assert.equal(translate.status, 1);
  assert.match(translate.stderr, /--method is not an option of translate \(translate takes: .*--beam/);
  const trainer = attn(['hmm-train', '--model', FORWARD]);
  assert.match(trainer.stderr, /--model is not an option of hmm-train/);
  assert.equal(attn(['align', '--bogus']).stderr.trim(), 'attn align: unknown option --bogus');
  const long = attn(['align', '--model', FORWARD, '--method', 'argmax', '--input', '-'], 'the cat ||| el gato\n');
  const short = attn(['align', '-m', FORWARD, '--method', 'argmax', '-i', '-'], 'the cat ||| el gato\n');
  assert.equal(long.status, 0, long.stderr);
  assert.equal(long.stdout, short.stdout);
});

test('every command the tool runs is in its usage and in the header of native/cli.cpp', () => {
  const source = readFileSync(join(ROOT, 'native/cli.cpp'), 'utf8');
  const table = source.slice(source.indexOf('command_options() {'), source.indexOf('std::string short_name'));
  const commands = [...table.matchAll(/\{"([a-z][a-z0-9-]*)",/g)].map((m) => m[1]);
  assert.ok(commands.length >= 9, commands.join(' '));
  const header = source.slice(0, source.indexOf('#include')).replace(/\/\/ ?/g, '').replace(/\s+/g, ' ');
  const usage = attn(['--help']).stderr;
  for (const command of commands) {
    assert.match(header, new RegExp(`Commands:[^.]*\\b${command}\\b`), `${command} in the header comment`);
    assert.match(usage, new RegExp(`^  attn ${command}\\b`, 'm'), `${command} in --help`);
    assert.ok(source.includes(`if (command == "${command}") return`), `${command} run by main()`);
  }
});
