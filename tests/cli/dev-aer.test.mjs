// models/dev-aer.tsv, the dev-set AER of every pair's methods that the explorer shows beside each
// method and under each figure (written by tools/eval/pairs.sh --record): it must describe the
// models this tree ships (their SHA-256), and name every method that `attn align --pair` can run
// for every pair, with figures that are error rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MODELS = join(ROOT, 'models');
const text = readFileSync(join(MODELS, 'dev-aer.tsv'), 'utf8');
const help = spawnSync(join(ROOT, 'build/bin/attn'), ['--help'], { encoding: 'utf8' });
const usage = `${help.stdout}${help.stderr}`;

test('the recorded models are the shipped ones, byte for byte', () => {
  const recorded = new Map([...text.matchAll(/^# model (\S+) sha256 ([0-9a-f]{64})$/gm)].map((m) => [m[1], m[2]]));
  // the alignment and translation models (the captioner aligns nothing: its figures are its card section's)
  const shipped = readdirSync(MODELS).filter((f) => f.endsWith('.safetensors') && !f.startsWith('captioner') &&
    !lstatSync(join(MODELS, f)).isSymbolicLink());
  assert.deepEqual([...recorded.keys()].sort(), shipped.sort(), 'models/ changed since the record: rerun tools/eval/pairs.sh --record models/dev-aer.tsv');
  for (const file of shipped) {
    const digest = createHash('sha256').update(readFileSync(join(MODELS, file))).digest('hex');
    assert.equal(digest, recorded.get(file), `${file} changed since models/dev-aer.tsv was measured: rerun tools/eval/pairs.sh --record models/dev-aer.tsv`);
  }
});

test('every pair has a figure for its default method and for every method it can run', () => {
  const rows = text.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => line.split('\t'));
  assert.deepEqual(rows[0], ['pair', 'method', 'AER', 'precision', 'recall']);
  const table = new Map();
  for (const [pair, method, aer, precision, recall] of rows.slice(1)) {
    for (const value of [aer, precision, recall]) {
      assert.match(value, /^(0|1)\.\d+$/, `${pair} ${method}: '${value}' is not a rate`);
      assert.ok(Number(value) >= 0 && Number(value) <= 1);
    }
    assert.ok(!table.has(`${pair} ${method}`), `${pair} ${method} twice`);
    table.set(`${pair} ${method}`, Number(aer));
  }
  const pairs = [...usage.match(/^language pairs[^:]*:(.*)$/m)[1].matchAll(/(en-[a-z]+) \(([a-z-]+)[,)]/g)];
  assert.ok(pairs.length >= 12, usage);
  const methods = [...usage.split(/^alignment methods.*$/m)[1].matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]);
  assert.ok(methods.includes('hybrid') && methods.includes('attention'), methods.join(' '));
  const catalogue = JSON.parse(readFileSync(join(MODELS, 'pairs.json'), 'utf8')).pairs;
  for (const [, pair, fallback] of pairs) {
    assert.ok(table.has(`${pair} ${fallback}`), `no figure for ${pair}'s default, ${fallback}`);
    // the attention-only methods and the hybrid need a translation model: every pair that ships one
    // has a figure for each; a pair with only its HMM (en-zh) has the HMM's and none of theirs
    const files = catalogue.find((entry) => entry.name === pair).files;
    for (const method of methods.filter((m) => m !== 'ibm2')) {
      const runs = files.forward || method === 'hmm';
      assert.equal(table.has(`${pair} ${method}`), Boolean(runs), `${pair} ${method}: ${runs ? 'no figure' : 'a figure without a model'}`);
    }
  }
});
