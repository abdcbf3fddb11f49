// The documents as a newcomer meets them: they speak of the product, its users, its data and its
// history by release and date, never of how its development was organised (sessions, machines
// lent for minutes, reviews by helpers); the two guides stay short enough to read; the model card
// has the sections the explorer links into; and the files ARCHITECTURE.md and DEVELOPERS.md name
// exist. Run: node --test tests/docs/
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path) => readFileSync(join(ROOT, path), 'utf8');

// Wording about how the work was organised, not about the product. Code that merely has a
// "session" (sessionStorage, a CDP or onnxruntime session, `const session`) does not match:
// only prose does (a session's number, "this session", "across sessions", "lent", ...).
const ORGANISATION = [
  /\bsessions?\s+\d+/i,
  /\b(?:this|that|last|next|each|every|one|previous|earlier|later|same|many|several|across|between|per|another|whole|first|second)\s+sessions?\b/i,
  /\bsessions?'s?\s+(?:end|VM|machine|files|build|time|figures|own)\b/i,
  /\bsession's\b/,
  /\blent\b/i,
  /\bdevice (?:minutes|time)\b/i,
  /\bhelper'?s review\b|\breview helpers?\b|\ba helper's\b/i,
  /\bcan_start_another\b/,
];

/** Each line of `text` with wording of ORGANISATION, as 'line N: "the words"'; null if none. */
export function organisationWording(text) {
  const found = text.split('\n').flatMap((line, i) => {
    const match = ORGANISATION.map((pattern) => pattern.exec(line)).find(Boolean);
    return match ? [`line ${i + 1}: "${match[0]}"`] : [];
  });
  return found.length ? found.join(', ') : null;
}

// Tracked text files, but recorded data (tests/data: model outputs on fixed sentences), the
// lock file and this test, whose patterns name the words.
function trackedText() {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  return files.filter((file) => !file.startsWith('tests/data/') && file !== 'package-lock.json' && file !== 'tests/docs/documents.test.mjs'
    && existsSync(join(ROOT, file)) && statSync(join(ROOT, file)).isFile())
    .map((file) => ({ file, bytes: readFileSync(join(ROOT, file)) }))
    .filter(({ bytes }) => !bytes.includes(0));  // binary: models, images
}

describe('wording', () => {
  test('the matcher finds organisational wording and leaves code alone', () => {
    for (const prose of ['measured in session 17', 'Sessions 19 and 20', 'trained across sessions', 'as this session showed',
      'the session\'s end', 'one NVIDIA H100 was lent', '9 device minutes', '(a helper\'s review)', 'review helpers']) {
      assert.ok(organisationWording(`text\n${prose}\n`), prose);
    }
    for (const code of ['sessionStorage.setItem(key, value)', 'const session = { server: null };', 'session.browser.newPage()',
      'await page.context().newCDPSession(page)', 'const sessions = { full: await ortSession(ort, file) };',
      'the multilingual model lends itself', 'the session start dialog']) {
      assert.equal(organisationWording(code), null, code);
    }
    assert.equal(organisationWording('hello\nthe sixth release, 2026-11-26\n'), null);
    assert.equal(organisationWording('a\nb\nmeasured in session 17\n'), 'line 3: "session 17"');
  });

  test('no tracked document, comment or message speaks of how the development was organised', () => {
    const found = trackedText()
      .map(({ file, bytes }) => [file, organisationWording(bytes.toString('utf8'))])
      .filter(([, where]) => where)
      .map(([file, where]) => `${file} ${where}`);
    assert.deepEqual(found, [], 'say it by release and date, about the product');
  });
});

describe('sizes', () => {
  test('DEVELOPERS.md reads in ten minutes (at most 12 KB) and the model card stays at most 30 KB', () => {
    assert.ok(statSync(join(ROOT, 'DEVELOPERS.md')).size <= 12 * 1024, 'DEVELOPERS.md over 12 KB: history goes to CHANGELOG.md');
    assert.ok(statSync(join(ROOT, 'models/MODEL_CARD.md')).size <= 30 * 1024, 'models/MODEL_CARD.md over 30 KB: history goes to CHANGELOG.md');
  });
});

describe('the model card', () => {
  const card = read('models/MODEL_CARD.md');
  const headings = card.split('\n').filter((line) => /^## /.test(line)).map((line) => line.slice(3));

  test('has every section the model index links the explorer\'s figures to', () => {
    const index = read('tools/build/make_model_index.mjs');
    const named = [...index.matchAll(/section\('([^']+)'\)/g)].map((m) => m[1]);
    assert.ok(named.length >= 3, 'tools/build/make_model_index.mjs names the card\'s sections');
    for (const title of named) assert.ok(headings.includes(title), `no "## ${title}" in models/MODEL_CARD.md`);
  });

  test('gives the Transformer\'s layers, width, heads, vocabulary and training recipe on its first screen', () => {
    const first = card.split('\n').slice(0, 60).join('\n');
    for (const fact of [/3 \+ 3 layers/, /d(?:imension|_model)? 256/, /4 heads/, /9,000/, /--arch transformer/]) {
      assert.match(first, fact);
    }
  });
});

describe('named files exist', () => {
  // `src/attn/align/links.cpp`, `web/page/worker.mjs`, `tools/check_layout.py`: a path of the tree in
  // backticks (placeholders such as XX, NAME, * and {a,b} are not checked).
  const PATH = /`((?:src|web|native|tests|tools|models|docs)\/[\w./-]*)`/g;
  for (const document of ['docs/ARCHITECTURE.md', 'DEVELOPERS.md']) {
    test(`every path ${document} names is in the tree`, () => {
      const missing = [...read(document).matchAll(PATH)].map((m) => m[1])
        .filter((path) => !/XX|NAME|dist\//.test(path) && !existsSync(join(ROOT, path)));
      assert.deepEqual(missing, [], `${document} names files that are not there`);
    });
  }
});
