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

test('align --pair en-zh cuts a Chinese side typed without spaces as jieba cuts it, and takes a segmented side as given', () => {
  const english = 'The old man walks to the market every morning .';
  const typed = attn(['align', '--pair', 'en-zh'], `${english} ||| 老人每天早上走路去市场。\n`);
  const spaced = attn(['align', '--pair', 'en-zh'], `${english} ||| 老人 每天 早上 走路 去 市场 。\n`);
  assert.equal(typed.status, 0, typed.stderr);
  assert.ok(typed.stdout.trim().length > 0);
  assert.equal(typed.stdout, spaced.stdout);
  // a side with spaces is the words as given: one word here, so every link goes to word 0
  const given = attn(['align', '--pair', 'en-zh'], `${english} ||| 老人每天早上走路去市场。 \n`);
  const oneWord = attn(['align', '--pair', 'en-zh'], 'The old man ||| 老人每天 早上\n');
  assert.equal(given.stdout, typed.stdout);  // trailing spaces are not a segmentation
  assert.match(oneWord.stdout, /^(\d+-[01] ?)+\n$/);
  const missing = attn(['align', '--pair', 'en-zh', '--dictionary', join(directory, 'none.txt')], `${english} ||| 老人每天\n`);
  assert.match(missing.stderr, /line 1: cannot open the jieba dictionary/);
  const other = attn(['align', '--pair', 'en-es', '--method', 'hmm'], 'the cat ||| 老人每天\n');
  assert.equal(other.status, 0, other.stderr);  // only a Chinese pair cuts Chinese
});
