// `attn caption` on the tiny captioner fixture (tests/data/captioner-tiny.*, made by
// tools/train/captioner/make_fixture.py): its words, maps and log-probabilities against the
// training code's reference, --beam, --hard --seed, JPEG beside PNG, and the errors for images it
// cannot read. captioner-tiny-jpg.reference.json is tools/train/captioner/reference.py's output
// for tests/data/captioner-tiny.jpg (the PNG over white, saved by PIL at quality 90).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ATTN = join(ROOT, 'build/bin/attn');
const MODEL = join(ROOT, 'tests/data/captioner-tiny.safetensors');
const PNG = join(ROOT, 'tests/data/captioner-tiny.png');
const JPEG = join(ROOT, 'tests/data/captioner-tiny.jpg');
const REFERENCE = JSON.parse(readFileSync(join(ROOT, 'tests/data/captioner-tiny.json'), 'utf8'));
const JPEG_REFERENCE = JSON.parse(readFileSync(join(ROOT, 'tests/cli/captioner-tiny-jpg.reference.json'), 'utf8'));
const directory = mkdtempSync(join(tmpdir(), 'attn-caption-'));

function attn(args) {
  const result = spawnSync(ATTN, args, { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function caption(...args) {
  const { status, stdout, stderr } = attn(['caption', '-m', MODEL, ...args]);
  assert.equal(status, 0, stderr);
  return stdout;
}

function assertClose(actual, expected, tolerance, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((value, i) => {
    if (Array.isArray(value)) assertClose(value, expected[i], tolerance, `${what}[${i}]`);
    else assert.ok(Math.abs(value - expected[i]) <= tolerance, `${what}[${i}]: ${value} vs ${expected[i]}`);
  });
}

function assertMatches(json, reference) {
  assert.deepEqual(Object.keys(json), ['words', 'grid', 'attention', 'log_probs']);
  assert.deepEqual(json.words, reference.words);
  assert.deepEqual(json.grid, [4, 4]);
  assertClose(json.attention, reference.attention, 1e-5, 'attention');
  assertClose(json.log_probs, reference.log_probs, 1e-4, 'log_probs');
}

test('caption prints the reference caption, and --json its words, grid, maps and log-probabilities', () => {
  assert.equal(caption(PNG), REFERENCE.soft.words.join(' ') + '\n');
  assertMatches(JSON.parse(caption('--json', PNG)), REFERENCE.soft);
});

test('a JPEG is read as PIL reads it, and several images give one line each', () => {
  assertMatches(JSON.parse(caption('--json', JPEG)), JPEG_REFERENCE);
  const lines = caption('--json', PNG, JPEG, PNG).trimEnd().split('\n');
  assert.equal(lines.length, 3);
  assert.deepEqual(JSON.parse(lines[0]), JSON.parse(lines[2]));
});

test('--hard --seed samples the reference cells, the same ones every run; the maps are one-hot', () => {
  for (const seed of ['1', '7']) {
    const json = JSON.parse(caption('--json', '--hard', '--seed', seed, PNG));
    assertMatches(json, REFERENCE.hard[seed]);
    for (const map of json.attention) assert.deepEqual(map.filter((x) => x !== 0), [1]);
    assert.deepEqual(JSON.parse(caption('--json', '--hard', '--seed', seed, PNG)), json);
  }
});

test('--beam 1 is the greedy caption; a wider beam gives a map a word', () => {
  assert.equal(caption('--beam', '1', PNG), caption(PNG));
  const json = JSON.parse(caption('--json', '--beam', '3', PNG));
  assert.equal(json.attention.length, json.words.length);
  assert.equal(json.log_probs.length, json.words.length);
  for (const map of json.attention) assert.ok(Math.abs(map.reduce((a, b) => a + b, 0) - 1) < 1e-5);
});

// A PNG of one chunk list, its CRCs computed here (Node 20 has no zlib.crc32).
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
function png(width, height, pixels) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);  // 8-bit RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

test('a PNG made here of any size is captioned; grey, palette and alpha need no special case', () => {
  const width = 37, height = 5;
  const rows = [];
  for (let y = 0; y < height; ++y) {
    rows.push(0);  // filter: none
    for (let x = 0; x < width; ++x) rows.push((x * 7) & 255, (y * 40) & 255, 200);
  }
  const file = join(directory, 'made.png');
  writeFileSync(file, png(width, height, Buffer.from(rows)));
  const json = JSON.parse(caption('--json', file));
  assert.ok(json.words.length >= 1);
  assert.equal(json.attention.length, json.words.length);
});

test('empty, corrupt, truncated, huge and wrong-format images are refused with the reason', () => {
  const write = (name, bytes) => {
    const file = join(directory, name);
    writeFileSync(file, bytes);
    return file;
  };
  const good = readFileSync(PNG);
  const jpeg = readFileSync(JPEG);
  const cases = [
    [write('empty.png', Buffer.alloc(0)), /empty\.png: the file is empty/],
    [write('text.png', 'not an image at all'), /text\.png: not a PNG or JPEG image/],
    [write('pic.gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')), /pic\.gif: a GIF image; attn reads PNG and JPEG/],
    [write('truncated.png', good.subarray(0, good.length - 20)), /truncated\.png: a corrupt or truncated PNG/],
    [write('truncated.jpg', jpeg.subarray(0, 200)), /truncated\.jpg: a corrupt or truncated JPEG/],
    [write('header.jpg', jpeg.subarray(0, 4)), /header\.jpg: a corrupt or truncated JPEG/],
    [write('huge.png', png(100000, 100000, Buffer.alloc(0))), /huge\.png: the image is 100000 x 100000, larger than the limit/],
    [join(directory, 'missing.png'), /cannot open '.*missing\.png'/],
  ];
  const damaged = Buffer.from(good);
  damaged[40] ^= 0xff;  // inside the image data: its CRC no longer holds
  cases.push([write('damaged.png', damaged), /damaged\.png: .*PNG/]);
  for (const [file, message] of cases) {
    const { status, stdout, stderr } = attn(['caption', '-m', MODEL, file]);
    assert.equal(status, 1, file);
    assert.equal(stdout, '');
    assert.match(stderr, message);
  }
});

test('flags that do not fit are refused: --seed without --hard, --hard with a beam, no image, a bad model', () => {
  const cases = [
    [['--seed', '3', PNG], /--seed is for --hard/],
    [['--hard', '--beam', '2', PNG], /beam must be 1 with it, got 2/],
    [['--hard', '--seed', 'x', PNG], /--seed needs a whole number/],
    [[], /usage: attn caption/],
  ];
  for (const [args, message] of cases) {
    const { status, stderr } = attn(['caption', '-m', MODEL, ...args]);
    assert.equal(status, 1, args.join(' '));
    assert.match(stderr, message);
  }
  const { status, stderr } = attn(['caption', '-m', join(ROOT, 'tests/data/tiny-additive.safetensors'), PNG]);
  assert.equal(status, 1);
  assert.match(stderr, /not an attnscope-captioner-v1 model/);
});

test('without -m the shipped model captions: a 12 x 12 grid, each soft map summing to one', () => {
  const { status, stdout, stderr } = attn(['caption', '--json', PNG, JPEG]);
  assert.equal(status, 0, stderr);
  for (const line of stdout.trimEnd().split('\n')) {
    const json = JSON.parse(line);
    assert.deepEqual(json.grid, [12, 12]);
    assert.ok(json.words.length >= 1);
    assert.equal(json.attention.length, json.words.length);
    for (const map of json.attention) {
      assert.equal(map.length, 144);
      assert.ok(Math.abs(map.reduce((a, b) => a + b, 0) - 1) < 1e-4);
    }
    assert.ok(json.log_probs.every((x) => x <= 0));
  }
});
