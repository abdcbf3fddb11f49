// Translation models from JS: loadModel on the tiny fixture models (tests/data), word attention
// against the numpy reference, translate, align with every method, the extraction and AER
// functions, errors for damaged files, and no leaked handles. Both builds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import loadAttn from '../../web/dist/attn.mjs';
import { readsOneMatrix } from '../../web/page/methods.mjs';

const DATA = new URL('../data/', import.meta.url);
const bytes = (name) => new Uint8Array(readFileSync(new URL(name, DATA)));
const reference = JSON.parse(readFileSync(new URL('tiny-reference.json', DATA), 'utf8'));

for (const simd of [true, false]) {
  describe(`models [${simd ? 'SIMD' : 'scalar'} build]`, async () => {
    const attn = await loadAttn({ simd });

    it('loads a model, reports its info, and aligns like the numpy reference', async () => {
      for (const attention of ['additive', 'general']) {
        const model = await attn.loadModel(bytes(`tiny-${attention}.safetensors`));
        assert.equal(model.info.format, 'attnscope-rnn-v1');
        assert.equal(model.info.attention, attention);
        assert.equal(model.info.direction, 'en-es');
        assert.equal(model.info.vocabSize, 300);
        for (const expected of reference.models[attention]) {
          const result = model.align(expected.source, expected.target);
          const S = result.sourceWords.length, T = result.targetWords.length;
          assert.equal(result.weights.length, S * T);
          assert.ok(result.weights instanceof Float32Array);
          for (let t = 0; t < T; t++) {
            for (let s = 0; s <= S; s++) {
              const actual = s < S ? result.weights[t * S + s] : result.nullWeights[t];
              assert.ok(Math.abs(actual - expected.word_attention[t][s]) < 2e-5, `${attention} ${t},${s}: ${actual}`);
            }
          }
          // argmax links: each target word at most once, and only where the row beats the null column
          const targets = result.links.map(([, t]) => t);
          assert.equal(new Set(targets).size, targets.length);
          assert.equal(result.pharaoh, result.links.map(([s, t]) => `${s}-${t}`).join(' '));
        }
        model.delete();
      }
    });

    it('takes arrays of words as given, and NFC-normalizes text and words', async () => {
      const model = await attn.loadModel(bytes('tiny-additive.safetensors'));
      const fromText = model.align('the cat sleeps', 'el gato duerme');
      const fromWords = model.align(['the', 'cat', 'sleeps'], ['el', 'gato', 'duerme']);
      assert.deepEqual(Array.from(fromWords.weights), Array.from(fromText.weights));
      const composed = model.align('sofá', 'sofá');
      const decomposed = model.align('sofa\u0301', 'sofa\u0301');
      assert.deepEqual(decomposed.sourceWords, composed.sourceWords);
      assert.deepEqual(Array.from(decomposed.weights), Array.from(composed.weights));
      assert.throws(() => model.align(['two words'], ['x']), /must be one word without spaces/);
      model.delete();
    });

    it('every alignment method runs; symmetrized ones need a reverse model', async () => {
      const forward = await attn.loadModel(bytes('tiny-additive.safetensors'));
      const reverse = await attn.loadModel(bytes('tiny-general.safetensors'));
      const pair = ['the cat sleeps on the sofa .', 'el gato duerme en el sofá .'];
      const links = {};
      for (const method of ['argmax', 'threshold', 'itermax', 'intersection', 'union', 'grow-diag-final-and', 'soft-itermax',
        'soft-threshold', 'soft-agreement']) {
        const result = forward.align(...pair, { method, reverse, threshold: 0.2 });
        links[method] = new Set(result.pharaoh.split(' ').filter(Boolean));
        if (['intersection', 'union', 'grow-diag-final-and', 'soft-itermax', 'soft-threshold', 'soft-agreement'].includes(method)) {
          assert.equal(result.reverseWeights.length, 49, method);
        }
      }
      for (const link of links.intersection) assert.ok(links.union.has(link));
      // both directions must attend: the geometric mean never exceeds the mean, so at one threshold
      // soft-agreement links a subset of soft-threshold's
      for (const link of links['soft-agreement']) assert.ok(links['soft-threshold'].has(link), link);
      for (const link of links['grow-diag-final-and']) assert.ok(links.union.has(link));
      assert.throws(() => forward.align(...pair, { method: 'union' }), /needs a reverse model/);
      assert.throws(() => forward.align(...pair, { method: 'union', reverse: {} }), /reverse must be an object from loadModel/);
      assert.throws(() => forward.align(...pair, { method: 'median' }), /unknown alignment method 'median'/);
      // 'attention' names a pair's choice, which a model alone cannot make
      assert.throws(() => forward.align(...pair, { method: 'attention', reverse }), /a language pair's choice/);
      const shifted = forward.align(...pair, { shift: true });
      assert.notDeepEqual(Array.from(shifted.weights), Array.from(forward.align(...pair).weights));
      reverse.delete();
      assert.throws(() => forward.align(...pair, { method: 'union', reverse }), /reverse model was deleted/);
      forward.delete();
    });

    it('attn.alignment names every method with what it needs, and the defaults as written', async () => {
      const { methods, statisticalKinds, mixes, symmetrizations, defaults } = attn.alignment;
      assert.ok(Object.isFrozen(attn.alignment) && Object.isFrozen(methods[0]) && Object.isFrozen(defaults));
      assert.ok(methods.some((m) => m.name === defaults.method));
      assert.ok(statisticalKinds.includes(defaults.statistical));
      assert.ok(mixes.includes(defaults.mix) && symmetrizations.includes(defaults.symmetrize));
      for (const key of ['statisticalWeight', 'posteriorThreshold', 'threshold']) {  // 0.3, not 0.30000001192092896
        assert.equal(Number(defaults[key].toPrecision(6)), defaults[key], key);
      }
      // What each rule says a method needs is what model.align asks for.
      const forward = await attn.loadModel(bytes('tiny-additive.safetensors'));
      const reverse = await attn.loadModel(bytes('tiny-general.safetensors'));
      const statistical = await attn.loadStatisticalAligner(bytes('tiny-hmm.safetensors'));
      const pair = ['the cat sleeps', 'el gato duerme'];
      for (const { name, description, needsModel, needsReverse, needsStatistical } of methods) {
        assert.ok(description.length > 0, name);
        if (!needsModel) {
          assert.ok(statisticalKinds.includes(name), `${name} is a statistical aligner alone`);
          assert.throws(() => forward.align(...pair, { method: name, reverse, statistical }), /use aligner\.align/, name);
          continue;
        }
        if (name === 'attention') {  // a language pair's choice (attn.alignment.pairs[].attentionMethod)
          assert.throws(() => forward.align(...pair, { method: name, reverse, statistical }), /a language pair's choice/);
          continue;
        }
        assert.equal(forward.align(...pair, { method: name, reverse, statistical }).targetWords.length, 3, name);
        if (needsReverse) assert.throws(() => forward.align(...pair, { method: name, statistical }), /needs a reverse model/, name);
        if (needsStatistical) assert.throws(() => forward.align(...pair, { method: name, reverse }), /needs a statistical aligner/, name);
        if (!needsReverse && !needsStatistical) forward.align(...pair, { method: name });
      }
      // readsThreshold says which methods' links move with the threshold (the page disables the box
      // for the others): at 0.001 every cell links, at 1 none does
      for (const { name, needsModel, readsThreshold } of methods) {
        if (!needsModel || name === 'attention') continue;
        const at = (threshold) => forward.align(...pair, { method: name, reverse, statistical, threshold }).pharaoh;
        assert.equal(at(0.001) !== at(1), readsThreshold, name);
        assert.equal(typeof readsThreshold, 'boolean', name);
      }
      // extractLinks takes exactly the methods that read one matrix alone
      const weights = new Float32Array([0.9, 0.1, 0.2, 0.8]);
      for (const rule of methods) {
        const extract = () => attn.extractLinks({ weights, rows: 2, cols: 2, method: rule.name });
        if (readsOneMatrix(rule)) assert.equal(extract().pharaoh, '0-0 1-1', rule.name);
        else assert.throws(extract, /unknown extraction method/, rule.name);
      }
      forward.delete();
      reverse.delete();
      statistical.delete();
    });

    it('the written types name the same methods, kinds, mixes and symmetrizations as the module', () => {
      const types = readFileSync(new URL('../../web/dist/attn.d.ts', import.meta.url), 'utf8');
      const union = (name) => {
        const body = new RegExp(`export type ${name} =([^;]*);`).exec(types)?.[1];
        assert.ok(body, `attn.d.ts has no type ${name}`);
        return body.split('|').map((member) => member.trim().replace(/^'|'$/g, '')).filter(Boolean);
      };
      const { methods, statisticalKinds, mixes, symmetrizations } = attn.alignment;
      assert.deepEqual(union('AlignMethodName'), methods.map((m) => m.name));
      assert.deepEqual(union('AlignMethod'), methods.filter((m) => m.needsModel).map((m) => m.name));
      assert.deepEqual(union('ExtractMethod'), methods.filter(readsOneMatrix).map((m) => m.name));
      assert.deepEqual(union('StatisticalKind'), statisticalKinds);
      assert.deepEqual(union('Mix'), mixes);
      assert.deepEqual(union('Symmetrization'), symmetrizations);
      assert.doesNotMatch(types, /@[A-Za-z.]+@/, 'a placeholder of the template is left');
    });

    it('translates (greedy is beam 1) with word-level attention over the output', async () => {
      const model = await attn.loadModel(bytes('tiny-additive.safetensors'));
      const result = model.translate('the cat sleeps', { beam: 1 });
      assert.equal(typeof result.text, 'string');
      assert.deepEqual(result.sourceWords, ['the', 'cat', 'sleeps']);
      assert.equal(result.weights.length, result.targetWords.length * 3);
      assert.ok(Number.isFinite(result.logProb));
      assert.deepEqual(result.cross.shape, [1, 1, result.targetWords.length, 3]);  // an RNN: one map
      assert.deepEqual(Array.from(result.cross.data), Array.from(result.weights));
      assert.throws(() => model.translate('the cat', { beam: 0 }), /beam must be in 1..64/);
      assert.throws(() => model.translate('', {}), /text has no words/);
      model.delete();
      assert.throws(() => model.translate('the cat'), /this model was deleted/);
    });

    it('damaged, truncated and wrong-architecture files are rejected with a clear Error', async () => {
      const good = bytes('tiny-additive.safetensors');
      await assert.rejects(attn.loadModel(good.slice(0, 100)), /truncated/);
      await assert.rejects(attn.loadModel(good.slice(0, good.length - 10)), /outside/);
      await assert.rejects(attn.loadModel([1, 2, 3]), /needs the model file as a Uint8Array/);
      const relabelled = bytes('tiny-general.safetensors');
      const text = new TextDecoder().decode(relabelled.slice(0, 4000));
      const at = text.indexOf('"attention":"general"') + '"attention":"'.length;
      relabelled.set(new TextEncoder().encode('additive'.slice(0, 7)), at);  // "additiv": unknown
      await assert.rejects(attn.loadModel(relabelled), /unknown attention/);
      let rejected = 0;
      for (let trial = 0; trial < 60; trial++) {
        const damaged = good.slice();
        const position = (trial * 7919) % 2000;
        damaged[position] ^= 1 << (trial % 8);
        try {
          (await attn.loadModel(damaged)).delete();
        } catch (error) {
          assert.ok(error instanceof Error);
          rejected++;
        }
      }
      assert.ok(rejected > 20, `${rejected} of 60 flips rejected`);
      const model = await attn.loadModel(good);  // still usable
      assert.equal(model.align('the cat', 'el gato').sourceWords.length, 2);
      model.delete();
    });

    it('extraction, symmetrization and AER work on plain matrices and Pharaoh strings', () => {
      const weights = new Float32Array([0.7, 0.1, 0.1, 0.1, 0.1, 0.2, 0.6, 0.1, 0.1, 0.2, 0.3, 0.4]);
      assert.equal(attn.extractLinks({ weights, rows: 3, cols: 4 }).pharaoh, '0-0 2-1 3-2');
      assert.equal(attn.extractLinks({ weights, rows: 3, cols: 4, method: 'threshold', threshold: 0.3 }).pharaoh, '0-0 2-1 2-2 3-2');
      assert.deepEqual(attn.extractLinks({ weights, rows: 3, cols: 4, method: 'itermax' }).links, [[0, 0], [2, 1], [3, 2]]);
      assert.equal(attn.symmetrize({ forward: '0-0 1-1 2-1 3-3', backward: '0-0 1-1 2-2 3-3', sourceLength: 4, targetLength: 4 }).pharaoh,
        '0-0 1-1 2-1 2-2 3-3');
      assert.equal(attn.symmetrize({ forward: '0-0 1-1', backward: '0-0', method: 'intersection' }).pharaoh, '0-0');
      const score = attn.alignmentError(['0-0 1-1 2-1', '0-1 1-0'], ['0-0 1-1 2?2', '0-0 1-0']);
      assert.ok(Math.abs(score.aer - (1 - 6 / 9)) < 1e-12);
      assert.ok(Math.abs(score.precision - 3 / 5) < 1e-12);
      assert.ok(Math.abs(score.recall - 3 / 4) < 1e-12);
      assert.throws(() => attn.alignmentError(['0-0'], []), /predicted has 1 sentences, gold has 0/);
      assert.throws(() => attn.alignmentError(['0-x'], ['0-0']), /'0-x' is not a link/);
      assert.throws(() => attn.extractLinks({ weights, rows: 3, cols: 5 }), /weights has 12 elements, expected 15/);
    });

    it('a Transformer loads from the same call; attentions() gives every map, by words or pieces', async () => {
      const model = await attn.loadModel(bytes('tiny-transformer.safetensors'));
      assert.equal(model.info.architecture, 'transformer');
      assert.equal(model.info.format, 'attnscope-transformer-v1');
      assert.equal(model.info.layers, 2);
      assert.equal(model.info.heads, 2);
      assert.equal(model.info.encoderLayers, 2);
      const rnn = await attn.loadModel(bytes('tiny-additive.safetensors'));
      assert.equal(rnn.info.architecture, 'rnn');
      assert.equal(rnn.info.layers, 1);
      assert.equal(rnn.info.heads, 1);

      const words = model.attentions('the cat sleeps .', ['el', 'gato', 'duerme', '.']);
      assert.deepEqual(words.source, ['the', 'cat', 'sleeps', '.']);
      assert.deepEqual(words.target, ['el', 'gato', 'duerme', '.']);
      assert.deepEqual(words.cross.shape, [2, 2, 4, 4]);
      assert.deepEqual(words.encoder.shape, [2, 2, 4, 4]);
      assert.deepEqual(words.decoder.shape, [2, 2, 4, 4]);
      for (const map of [words.cross, words.encoder, words.decoder]) {
        assert.ok(map.data instanceof Float32Array);
        assert.equal(map.data.length, map.shape.reduce((a, b) => a * b, 1));
      }
      // align() reads the alignment head of the cross-attention
      const aligned = model.align('the cat sleeps .', 'el gato duerme .');
      const { alignmentLayer: l, alignmentHead: h } = model.info;
      assert.equal(model.info.alignmentShift, 0);  // the fixture's head predicts, as Garg et al.
      const head = words.cross.data.subarray(((l * 2 + h) * 4) * 4, ((l * 2 + h + 1) * 4) * 4);
      for (let i = 0; i < 16; i++) assert.ok(Math.abs(aligned.weights[i] - head[i]) < 1e-6);
      // translate() gives every layer's and head's cross-attention of its output; the alignment
      // head's is its weights
      const translated = model.translate('the cat sleeps .', { beam: 2 });
      assert.ok(translated.text.length > 0);
      const [tl, th, tt, ts] = translated.cross.shape;
      assert.deepEqual([tl, th, tt, ts], [model.info.layers, model.info.heads, translated.targetWords.length, 4]);
      assert.ok(translated.cross.data instanceof Float32Array);
      assert.equal(translated.cross.data.length, tl * th * tt * ts);
      const aligning = translated.cross.data.subarray((l * th + h) * tt * ts, (l * th + h + 1) * tt * ts);
      for (let i = 0; i < tt * ts; i++) assert.ok(Math.abs(aligning[i] - translated.weights[i]) < 1e-6);

      const pieces = model.attentions('the cat sleeps .', 'el gato duerme .', { pieces: true });
      assert.equal(pieces.source.at(-1), '</s>');
      assert.equal(pieces.target.at(-1), '</s>');
      const [L, H, T, S] = pieces.cross.shape;
      assert.deepEqual([T, S], [pieces.target.length, pieces.source.length]);
      assert.ok(pieces.source.length > words.source.length);  // the fixture splits words into pieces
      const rows = (map, cols) => {
        for (let r = 0; r < map.data.length / cols; r++) {
          let sum = 0;
          for (let c = 0; c < cols; c++) sum += map.data[r * cols + c];
          assert.ok(Math.abs(sum - 1) < 1e-5, `row ${r} sums to ${sum}`);
        }
      };
      rows(pieces.cross, S);
      rows(pieces.encoder, S);
      rows(pieces.decoder, T);
      for (let m = 0; m < L * H; m++) {
        for (let t = 0; t < T; t++) for (let u = t + 1; u < T; u++) assert.equal(pieces.decoder.data[(m * T + t) * T + u], 0);
      }
      // an RNN: cross-attention only
      const fromRnn = rnn.attentions('the cat', 'el gato');
      assert.deepEqual(fromRnn.cross.shape, [1, 1, 2, 2]);
      assert.deepEqual(fromRnn.encoder.shape, [0, 1, 2, 2]);
      assert.equal(fromRnn.decoder.data.length, 0);

      assert.equal(pieces.logProbs, undefined);  // scored only when asked

      // logProbs: the PyTorch reference's log-probabilities, the same maps as without them
      const reference = JSON.parse(readFileSync(new URL('tiny-transformer-reference.json', DATA), 'utf8')).cases[0];
      const scored = model.attentions(reference.source, reference.target, { pieces: true, logProbs: true });
      assert.ok(scored.logProbs instanceof Float32Array);
      assert.equal(scored.logProbs.length, scored.target.length);
      assert.equal(scored.logProbs.length, reference.log_probs.length);
      scored.logProbs.forEach((lp, t) => assert.ok(Math.abs(lp - reference.log_probs[t]) < 1e-4, `piece ${t}: ${lp}`));
      const total = reference.log_probs.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(scored.logProb - total) < 1e-3);
      const unscored = model.attentions(reference.source, reference.target, { pieces: true });
      assert.deepEqual(scored.cross.data, unscored.cross.data);
      assert.deepEqual(scored.decoder.data, unscored.decoder.data);
      // by words: a word's is the sum of its pieces', then </s>'s; the same total
      const byWords = model.attentions(reference.source, reference.target, { logProbs: true });
      assert.equal(byWords.logProbs.length, byWords.target.length + 1);
      assert.ok(Math.abs(byWords.logProbs.at(-1) - scored.logProbs.at(-1)) < 1e-6);
      assert.ok(Math.abs(byWords.logProbs.reduce((a, b) => a + b, 0) - scored.logProb) < 1e-4);
      assert.ok(Math.abs(byWords.logProb - scored.logProb) < 1e-9);
      for (const lp of byWords.logProbs) assert.ok(lp <= 0);
      // an RNN scores too, step by step
      const rnnScored = rnn.attentions('the cat', 'el gato', { pieces: true, logProbs: true });
      assert.equal(rnnScored.logProbs.length, rnnScored.target.length);
      assert.ok(Math.abs(rnnScored.logProbs.reduce((a, b) => a + b, 0) - rnnScored.logProb) < 1e-4);
      assert.ok(rnnScored.logProb < 0);

      assert.throws(() => model.attentions('', 'el gato'), /source has no words/);
      assert.throws(() => model.attentions('the', 'el', { pieces: 'yes' }), /pieces must be true or false/);
      assert.throws(() => model.attentions('the', 'el', { logProbs: 1 }), /logProbs must be true or false/);
      assert.throws(() => model.attentions('the', 'el', { layers: 2 }), /layers/);
      assert.throws(() => model.attentions(3, 'el'), /source/);
      model.delete();
      rnn.delete();
      assert.throws(() => model.attentions('the', 'el'), /this model was deleted/);
    });

    it('a multilingual model writes the language forTarget chooses, shares its weights and refuses others', async () => {
      const multi = JSON.parse(readFileSync(new URL('tiny-multilingual-reference.json', DATA), 'utf8'));
      // Embind keeps a handle for each property name the first time it is set: one pass first
      const warm = await attn.loadModel(bytes('tiny-multilingual.safetensors'));
      const warmFrench = warm.forTarget('fr');
      warmFrench.attentions('the cat', 'el gato', { pieces: true });
      assert.throws(() => warm.translate('the cat'));
      warmFrench.delete();
      warm.delete();
      const before = attn.liveHandles();
      const model = await attn.loadModel(bytes('tiny-multilingual.safetensors'));
      assert.deepEqual(model.info.languages, ['en', 'es', 'fr']);
      assert.equal(model.info.targetLanguage, '');
      assert.throws(() => model.translate('the cat'), /multilingual: choose the language to translate into \(en, es, fr\)/);
      assert.throws(() => model.forTarget('de'), /does not write 'de' \(it writes: en, es, fr\)/);
      assert.throws(() => model.forTarget(3), /language code/);
      for (const expected of multi.cases) {
        const writing = model.forTarget(expected.language);
        assert.equal(writing.info.targetLanguage, expected.language);
        const maps = writing.attentions(expected.source, expected.target, { pieces: true });
        const cross = expected.cross.flat(3);
        assert.equal(maps.cross.data.length, cross.length);
        for (let k = 0; k < cross.length; k++) assert.ok(Math.abs(maps.cross.data[k] - cross[k]) < 1e-4, `${expected.language} ${k}`);
        writing.delete();
      }
      model.delete();
      assert.equal(attn.liveHandles(), before);
    });

    it('an HMM that splits compounds (format version 3) links a compound it never saw, as the CLI does', async () => {
      // tests/data/tiny-hmm-compounds.safetensors: `attn hmm-train --target-compounds` on 60 pairs
      // of single nouns; "kutatóközpont" (research centre) is never in them, its parts are
      const aligner = await attn.loadStatisticalAligner(bytes('tiny-hmm-compounds.safetensors'));
      const source = 'the research centre likes the press', target = 'a kutatóközpont szereti a sajtó';
      const { pharaoh } = aligner.align(source, target);
      assert.equal(pharaoh, '0-0 1-1 2-1 3-2 4-3 5-4');
      const cli = new URL('../../build/bin/attn', import.meta.url);
      if (existsSync(cli)) {
        const run = spawnSync(cli.pathname, ['align', '--method', 'hmm', '--hmm', new URL('tiny-hmm-compounds.safetensors', DATA).pathname],
          { input: `${source} ||| ${target}\n`, encoding: 'utf8' });
        assert.equal(run.stdout.trim(), pharaoh);
      }
      aligner.delete();
    });

    it('leaves no Embind handle behind', async () => {
      const before = attn.liveHandles();
      for (let i = 0; i < 5; i++) {
        const model = await attn.loadModel(bytes('tiny-additive.safetensors'));
        model.align('the cat', 'el gato', { method: 'itermax' });
        model.translate('the cat', { beam: 2 });
        model.attentions('the cat', 'el gato', { pieces: true });
        assert.throws(() => model.align('', 'x'));
        assert.throws(() => model.attentions('', 'x'));
        model.delete();
        const transformer = await attn.loadModel(bytes('tiny-transformer.safetensors'));
        transformer.attentions('the cat', 'el gato');
        transformer.align('the cat', 'el gato');
        transformer.delete();
        await assert.rejects(attn.loadModel(new Uint8Array(4)));
      }
      assert.equal(attn.liveHandles(), before);
    });
  });
}

describe('the statistical aligner from JS', async () => {
  const attn = await loadAttn({ simd: true });
  it('loads an IBM Model 2 file, aligns with posteriors, and rejects other files', async () => {
    const path = new URL('../../models/ibm2-en-es.safetensors', import.meta.url);
    const aligner = await attn.loadStatisticalAligner(new Uint8Array(readFileSync(path)));
    const result = aligner.align('The house is red .', 'La casa es roja .');
    assert.equal(result.weights.length, 25);
    assert.match(result.pharaoh, /0-0/);
    assert.match(result.pharaoh, /1-1/);  // house - casa
    for (let t = 0; t < 5; t++) {
      const sum = Array.from(result.weights.slice(t * 5, t * 5 + 5)).reduce((a, b) => a + b, 0);
      assert.ok(sum > 0 && sum <= 1.0001);
    }
    // the hybrid method: the fixtures' attention mixed with these posteriors
    const forward = await attn.loadModel(bytes('tiny-additive.safetensors'));
    const reverse = await attn.loadModel(bytes('tiny-general.safetensors'));
    const pair = ['The house is red .', 'La casa es roja .'];
    // weight 0 is attention alone: grow-diag-final-and of both directions' argmax when asked for it ...
    const gdfa = forward.align(...pair, { method: 'hybrid', reverse, statistical: aligner, statisticalWeight: 0, symmetrize: 'grow-diag-final-and' });
    assert.equal(gdfa.pharaoh, forward.align(...pair, { method: 'grow-diag-final-and', reverse }).pharaoh);
    // ... and by default the cells where the mean of both directions' attention reaches the threshold
    const threshold = attn.alignment.defaults.posteriorThreshold;
    const none = forward.align(...pair, { method: 'hybrid', reverse, statistical: aligner, statisticalWeight: 0 });
    const S = none.sourceWords.length, T = none.targetWords.length, expected = [];
    for (let s = 0; s < S; s++) {
      for (let t = 0; t < T; t++) if ((none.weights[t * S + s] + none.reverseWeights[t * S + s]) / 2 >= threshold) expected.push(`${s}-${t}`);
    }
    assert.deepEqual(none.pharaoh.split(' ').filter(Boolean).sort(), expected.sort());
    const all = forward.align(...pair, { method: 'hybrid', reverse, statistical: aligner, statisticalWeight: 1 });
    assert.match(all.pharaoh, /1-1/);
    assert.throws(() => forward.align(...pair, { method: 'hybrid', reverse }), /needs a statistical aligner \(IBM Model 2 or the HMM\)/);
    assert.throws(() => forward.align(...pair, { method: 'hybrid', reverse, statistical: {} }), /statistical must be an object from loadStatisticalAligner/);
    forward.delete();
    reverse.delete();
    aligner.delete();
    assert.throws(() => aligner.align('a', 'b'), /deleted/);
    await assert.rejects(attn.loadStatisticalAligner(bytes('tiny-additive.safetensors')),
      /not a statistical aligner: the format is 'attnscope-rnn-v1', expected attnscope-ibm2-v1 or attnscope-hmm-v1/);
  });
});

describe('the HMM aligner and attn align\'s default method from JS', async () => {
  const attn = await loadAttn({ simd: true });
  const shipped = (name) => new Uint8Array(readFileSync(new URL(`../../models/${name}`, import.meta.url)));
  it('loads both aligners, links by posterior mean (the default) or grow-diag-final-and, and checks its options', async () => {
    const hmm = await attn.loadStatisticalAligner(shipped('hmm-en-es.safetensors'));
    const ibm2 = await attn.loadStatisticalAligner(shipped('ibm2-en-es.safetensors'));
    assert.equal(hmm.kind, 'hmm');
    assert.equal(ibm2.kind, 'ibm2');
    const pair = ['The red house is small .', 'La casa roja es pequeña .'];
    const { symmetrize, posteriorThreshold } = attn.alignment.defaults;
    for (const aligner of [hmm, ibm2]) {
      const byDefault = aligner.align(...pair);
      const gdfa = aligner.align(...pair, { symmetrize: 'grow-diag-final-and' });
      assert.equal(byDefault.pharaoh, aligner.align(...pair, { symmetrize, threshold: posteriorThreshold }).pharaoh, aligner.kind);
      for (const result of [byDefault, gdfa]) {
        assert.match(result.pharaoh, /(^| )1-2( |$)/, aligner.kind);  // red - roja
        assert.match(result.pharaoh, /(^| )2-1( |$)/, aligner.kind);  // house - casa
      }
      // the posterior links are exactly the cells whose mean of both directions reaches the threshold
      for (const threshold of [0.05, 0.35, 0.9]) {
        const result = aligner.align(...pair, { symmetrize: 'posterior', threshold });
        const S = result.sourceWords.length, T = result.targetWords.length, expected = [];
        for (let s = 0; s < S; s++) for (let t = 0; t < T; t++) if (result.weights[t * S + s] >= threshold) expected.push(`${s}-${t}`);
        assert.deepEqual(result.pharaoh.split(' ').filter(Boolean).sort(), expected.sort(), `${aligner.kind} threshold ${threshold}`);
      }
      assert.throws(() => aligner.align(...pair, { symmetrize: 'intersection' }),
        /symmetrize: unknown symmetrization 'intersection' \(known: grow-diag-final-and, posterior\)/);
      assert.throws(() => aligner.align(...pair, { symmetrize: 'posterior', threshold: 0 }), /threshold must be in \(0, 1\]/);
      assert.throws(() => aligner.align(...pair, { treshold: 0.3 }), /treshold/);
    }
    hmm.delete();
    ibm2.delete();
  });

  it('model.align and aligner.align give the same links for NFD and NFC strings (C++ normalizes)', async () => {
    const forward = await attn.loadModel(shipped('en-es-additive.safetensors'));
    const reverse = await attn.loadModel(shipped('es-en-additive.safetensors'));
    const hmm = await attn.loadStatisticalAligner(shipped('hmm-en-es.safetensors'));
    const ibm2 = await attn.loadStatisticalAligner(shipped('ibm2-en-es.safetensors'));
    const pairs = [
      ['The red house is small .', 'La casa roja es pequeña .'],
      ['Where is the station ?', '¿ Dónde está la estación ?'],
      ['The house is small .', 'PEQUEÑA ES LA CASA .'],
    ];
    const same = (nfd, nfc, what) => {
      assert.equal(nfd.pharaoh, nfc.pharaoh, what);
      assert.deepEqual(Array.from(nfd.weights), Array.from(nfc.weights), what);
      assert.deepEqual(nfd.targetWords, nfc.targetWords, what);
    };
    for (const pair of pairs) {
      const nfc = pair.map((text) => text.normalize('NFC')), nfd = pair.map((text) => text.normalize('NFD'));
      assert.notEqual(nfd[1], nfc[1]);
      for (const options of [{}, { method: 'hybrid', reverse, statistical: hmm, statisticalWeight: 0.6, posteriorThreshold: 0.35 }]) {
        const expected = forward.align(...nfc, options);
        same(forward.align(...nfd, options), expected, `model.align ${nfc[1]}`);
        same(forward.align(nfd[0].split(' '), nfd[1].split(' '), options), expected, `model.align, words ${nfc[1]}`);
        assert.deepEqual(expected.targetWords, nfc[1].split(' '));  // the words come back NFC
      }
      for (const [name, aligner] of [['hmm', hmm], ['ibm2', ibm2]]) {
        same(aligner.align(...nfd), aligner.align(...nfc), `${name} ${nfc[1]}`);
        same(aligner.align(nfd[0].split(' '), nfd[1].split(' ')), aligner.align(...nfc), `${name}, words ${nfc[1]}`);
      }
    }
    for (const handle of [forward, reverse, hmm, ibm2]) handle.delete();
  });

  it('gives the same links as `attn align` with no options, both using the library\'s defaults', async () => {
    const cli = new URL('../../build/bin/attn', import.meta.url).pathname;
    if (!existsSync(cli)) assert.fail(`${cli} is missing: ./run build first`);
    const pairs = [
      ['The red house is small .', 'La casa roja es pequeña .'],
      ['I would like a cup of coffee , please .', 'Quisiera una taza de café , por favor .'],
      ['The committee approved the new budget yesterday .', 'El comité aprobó ayer el nuevo presupuesto .'],
    ];
    const run = spawnSync(cli, ['align'], { input: pairs.map(([s, e]) => `${s} ||| ${e}`).join('\n') + '\n', encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const expected = run.stdout.trim().split('\n');
    // the default pair's attention models: the multilingual Transformer writing Spanish, and English
    const multilingual = await attn.loadModel(shipped(attn.alignment.pairs[0].files.forward));
    const forward = multilingual.forTarget('es'), reverse = multilingual.forTarget('en');
    const statistical = await attn.loadStatisticalAligner(shipped(`${attn.alignment.defaults.statistical}-en-es.safetensors`));
    const sorted = (text) => text.split(' ').filter(Boolean).sort().join(' ');
    pairs.forEach(([source, target], i) => {
      // only the method is named: every other setting is the default that `attn align` uses too
      const result = forward.align(source.split(' '), target.split(' '), { method: attn.alignment.defaults.method, reverse, statistical });
      assert.equal(sorted(result.pharaoh), sorted(expected[i]), `pair ${i}`);
      // (defaults.statistical names the aligner's kind; the option is the loaded aligner)
      const spelledOut = forward.align(source.split(' '), target.split(' '), { ...attn.alignment.defaults, reverse, statistical });
      assert.equal(spelledOut.pharaoh, result.pharaoh, `pair ${i}, the defaults spelled out`);
    });
    assert.throws(() => forward.align(...pairs[0], { method: 'hybrid', reverse, statistical, posteriorThreshold: 2 }), /posteriorThreshold must be in/);
    assert.throws(() => forward.align(...pairs[0], { method: 'hybrid', reverse, statistical, mix: 'cubic' }), /mix: unknown mix 'cubic' \(known: linear, geometric\)/);
    forward.delete();
    reverse.delete();
    multilingual.delete();
    statistical.delete();
  });
});
