// How far a sentence pair is from what a model learned (web/page/familiarity.mjs): the percentile
// arithmetic, models/familiarity.json against the shipped files, and the signal itself on the
// shipped multilingual Transformer: a software string and its translation read as familiar, the
// same words scrambled or an unrelated sentence as far.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import loadAttn from '../../web/dist/attn.mjs';
import { FAR, UNUSUAL, describe as describeFamiliarity, lengthNote, percentiles, pieceScore, rank } from '../../web/page/familiarity.mjs';

const MODELS = new URL('../../models/', import.meta.url);
const measured = JSON.parse(readFileSync(new URL('familiarity.json', MODELS), 'utf8'));
const reference = Array.from({ length: 99 }, (_, i) => -3 + (i + 1) * 0.02);  // -2.98 … -1.02

describe('familiarity arithmetic', () => {
  it('percentiles interpolate between order statistics and rank inverts them', () => {
    const scores = Array.from({ length: 101 }, (_, i) => -i / 10);  // 0, -0.1, … -10
    const p = percentiles(scores);
    assert.equal(p.length, 99);
    assert.equal(p[0], -9.9);
    assert.equal(p[49], -5);
    assert.equal(p[98], -0.1);
    for (const share of [0.05, 0.3, 0.5, 0.9]) assert.ok(Math.abs(rank(-10 * (1 - share), p) - share) < 1e-9, `${share}`);
    assert.throws(() => percentiles([1]), /at least two scores/);
    assert.throws(() => rank(0, [1, 2]), /99 percentiles/);
  });

  it('ranks below, inside and above the reference, and -Infinity at the bottom', () => {
    assert.equal(rank(-5, reference), 0);
    assert.equal(rank(-Infinity, reference), 0);
    assert.equal(rank(0, reference), 1);
    assert.ok(Math.abs(rank(-2, reference) - 0.5) < 1e-9);
    assert.ok(Math.abs(rank(-2.97, reference) - 0.015) < 1e-9);
  });

  it('describes far, unusual and familiar in words, with the share of held-out sentences', () => {
    const far = describeFamiliarity(-4, reference, { data: 'help pages' });
    assert.equal(far.level, 'far');
    assert.match(far.text, /^This sentence pair is far from what the model learned: .* over 99% of held-out sentences from help pages/);
    const unusual = describeFamiliarity(-2.9, reference, { what: 'translation' });
    assert.equal(unusual.level, 'unusual');
    assert.ok(unusual.rank >= FAR && unusual.rank < UNUSUAL);
    assert.match(unusual.text, /^This input is unusual for the model: .* than its translations of 95% of held-out sentences/);
    const familiar = describeFamiliarity(-1.5, reference);
    assert.equal(familiar.level, 'familiar');
    assert.match(familiar.text, /a typical held-out sentence/);
  });
});

describe('models/familiarity.json', () => {
  it('measures every direction of the shipped files, as they are now, in increasing percentiles', () => {
    const pairs = JSON.parse(JSON.stringify(measured.directions));
    assert.ok(Object.keys(pairs).length >= 24, `${Object.keys(pairs).length} directions`);
    for (const [direction, entry] of Object.entries(pairs)) {
      const digest = createHash('sha256').update(readFileSync(new URL(entry.file, MODELS))).digest('hex');
      assert.equal(digest, measured.models[entry.file], `${entry.file} changed since models/familiarity.json: rerun tools/eval/familiarity.mjs`);
      for (const kind of ['forced', 'translated']) {
        assert.equal(entry[kind].length, 99, `${direction} ${kind}`);
        assert.ok(entry[kind].every((v, i) => Number.isFinite(v) && v <= 0 && (i === 0 || v >= entry[kind][i - 1])), `${direction} ${kind}`);
      }
      assert.ok(entry.pairs >= 200, `${direction}: ${entry.pairs} held-out pairs`);
    }
    // each direction of each pair, through the file models/pairs.json gives it now (a pair moved to
    // another file is measured again)
    const catalogue = JSON.parse(readFileSync(new URL('pairs.json', MODELS), 'utf8')).pairs;
    const expected = Object.fromEntries(catalogue.filter((pair) => pair.files.forward)
      .flatMap((pair) => [[pair.name, pair.files.forward], [`${pair.language}-en`, pair.files.reverse]]));
    assert.deepEqual(Object.fromEntries(Object.entries(pairs).map(([direction, entry]) => [direction, entry.file])), expected);
  });
});

describe('the signal on the shipped Transformer', () => {
  it('a software string and its translation are familiar; scrambled or unrelated, far', async () => {
    const attn = await loadAttn({ warmUp: false });
    const entry = measured.directions['en-es'];
    const file = await attn.loadModel(new Uint8Array(readFileSync(new URL(entry.file, MODELS))));
    const model = file.info.languages ? file.forTarget('es') : file;
    const level = (source, target) =>
      describeFamiliarity(pieceScore(model.attentions(source, target, { pieces: true, logProbs: true })), entry.forced).level;
    const source = 'Save the document before you close the window .';
    assert.equal(level(source, 'Guarde el documento antes de cerrar la ventana .'), 'familiar');
    assert.equal(level(source, 'ventana la cerrar de antes documento el Guarde .'), 'far');
    assert.equal(level(source, 'El perro duerme bajo la mesa de la cocina .'), 'far');
    model.delete();
    if (model !== file) file.delete();
  });
});

describe('sentence length', () => {
  it('warns past the lengths the models learned from, and not before', () => {
    assert.equal(lengthNote(44, 30), '');
    assert.match(lengthNote(12, 45), /^⚠ 45 words: longer than nearly every sentence the model learned from \(99 % had 26 words or fewer\)/);
    assert.match(lengthNote(390, 200), /^⚠ 390 words: longer than any sentence the model learned from \(at most 80 words\); .*collapse/);
  });
});
