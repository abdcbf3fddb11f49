// `attn segment`: each line's words as the models read them, Chinese by jieba's accurate mode with
// the build's data file (build/native/zh-jieba.txt), compared with python3-jieba's tokens on the
// sentences of tests/data/zh-segmentation.jsonl; other languages by the word tokenizer; bad files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ATTN = join(ROOT, 'build/bin/attn');
const directory = mkdtempSync(join(tmpdir(), 'attn-segment-'));

function attn(args, input, env = process.env) {
  const result = spawnSync(ATTN, args, { input, encoding: 'utf8', env });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const cases = readFileSync(join(ROOT, 'tests/data/zh-segmentation.jsonl'), 'utf8')
  .split('\n').filter((line) => line).map((line) => JSON.parse(line));

test('segment splits the fixture sentences into the words the training text was split into, a line each, in order', () => {
  // one line each (no line breaks inside); model_words: tools/data/words.py's tokenize(text, "zh"), the
  // word tokenizer's tokens with those holding Han cut by python3-jieba
  const lines = cases.filter(({ text }) => !/[\r\n]/.test(text));
  assert.ok(lines.length >= 300, `${lines.length} lines`);
  const { status, stdout, stderr } = attn(['segment'], lines.map(({ text }) => text).join('\n') + '\n');
  assert.equal(status, 0, stderr);
  assert.deepEqual(stdout.split('\n').slice(0, -1), lines.map(({ model_words }) => model_words.join(' ')));
});

test('segment drops whitespace, keeps a line already segmented, and splits other languages by --lang', () => {
  const input = 'iPhone 15售价5999元\n我 爱 你。\n\n';
  assert.equal(attn(['segment', '--lang', 'zh'], input).stdout, 'iPhone 15 售价 5999 元\n我 爱 你 。\n\n');
  assert.equal(attn(['segment', '--lang', 'es'], '¿Dónde está la estación?\n').stdout, '¿ Dónde está la estación ?\n');
});

test('segment reads --dictionary, else ATTN_JIEBA, and refuses a damaged file by line', () => {
  const built = readFileSync(join(ROOT, 'build/native/zh-jieba.txt'), 'utf8');
  const small = join(directory, 'small.txt');
  writeFileSync(small, built.slice(0, built.indexOf('\nwords ') + 1) + 'words 2\n甲乙丙丁 5\n丁 1\n');
  assert.equal(attn(['segment', '--dictionary', small], '甲乙丙丁丁\n').stdout, '甲乙丙丁 丁\n');
  assert.equal(attn(['segment'], '甲乙丙丁丁\n', { ...process.env, ATTN_JIEBA: small }).stdout, '甲乙丙丁 丁\n');
  const damaged = join(directory, 'damaged.txt');
  writeFileSync(damaged, built.slice(0, 300));
  const bad = attn(['segment', '--dictionary', damaged], '中文\n');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /attn segment: .*damaged\.txt: jieba dictionary file, line \d+: /);
  const missing = attn(['segment', '--dictionary', join(directory, 'none.txt')], '中文\n');
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /cannot open the jieba dictionary/);
});

test('translate splits a line with Chinese characters by jieba (--dictionary), and reads no dictionary for other lines', () => {
  const model = join(ROOT, 'tests/data/tiny-transformer.safetensors');
  const built = readFileSync(join(ROOT, 'build/native/zh-jieba.txt'), 'utf8');
  const small = join(directory, 'translate-small.txt');
  writeFileSync(small, built.slice(0, built.indexOf('\nwords ') + 1) + 'words 2\n甲乙丙丁 5\n丁 1\n');
  const typed = attn(['translate', '-m', model, '--dictionary', small], '甲乙丙丁丁\n');
  const spaced = attn(['translate', '-m', model, '--dictionary', small], '甲乙丙丁 丁\n');
  assert.equal(typed.status, 0, typed.stderr);
  assert.equal(typed.stdout, spaced.stdout);  // the words jieba gives, as a segmented line is taken
  const missing = join(directory, 'none.txt');
  const latin = attn(['translate', '-m', model, '--dictionary', missing], 'the cat\n');
  assert.equal(latin.status, 0, latin.stderr);
  const han = attn(['translate', '-m', model, '--dictionary', missing], '中文\n');
  assert.match(han.stderr, /line 1: cannot open the jieba dictionary/);
});
