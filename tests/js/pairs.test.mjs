// The language pairs from JS: attn.alignment.pairs (models/pairs.json, built into the module) and
// the model index the build writes from it (web/dist/models/index.json), and each pair's shipped
// models loaded the way the README documents, aligning the explorer's example by the pair's
// default method. Both builds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import loadAttn from '../../web/dist/attn.mjs';
import { PAIR_EXAMPLES } from '../data/pair_examples.mjs';

const MODELS = new URL('../../models/', import.meta.url);
const index = JSON.parse(readFileSync(new URL('../../web/dist/models/index.json', import.meta.url), 'utf8'));

for (const simd of [true, false]) {
  describe(`language pairs [${simd ? 'SIMD' : 'scalar'} build]`, async () => {
    const attn = await loadAttn({ simd });
    const pairs = attn.alignment.pairs;

    it('lists en-es first and English with each XL-WA language, French, German and Chinese, each with its files and default method', () => {
      assert.deepEqual(pairs.map((pair) => pair.name),
        ['en-es', 'en-bg', 'en-da', 'en-de', 'en-et', 'en-fr', 'en-hu', 'en-it', 'en-nl', 'en-pt', 'en-ru', 'en-sl', 'en-zh']);
      assert.equal(pairs[0].method, attn.alignment.defaults.method);
      for (const pair of pairs) {
        assert.equal(pair.name, `en-${pair.language}`);
        assert.equal(pair.files.hmm, `hmm-${pair.name}.safetensors`);
        assert.ok(attn.alignment.methods.some((method) => method.name === pair.method), pair.name);
        if (!pair.files.forward) assert.equal(pair.method, 'hmm', `${pair.name} has no attention model: the HMM aligns`);
        // 'attention' resolves to an extraction that reads the attention models alone
        const rule = attn.alignment.methods.find((method) => method.name === pair.attentionMethod);
        assert.ok(rule && rule.name !== 'attention' && rule.needsModel && !rule.needsStatistical, pair.name);
        assert.ok(pair.attentionThreshold > 0 && pair.attentionThreshold <= 1, pair.name);
        assert.equal(typeof pair.attachArticles, 'boolean', pair.name);
        assert.equal(typeof pair.mutualBest, 'boolean', pair.name);
        // every pair aligns with one of the two multilingual Transformers, both directions: the one
        // that learned Chinese too for en-zh and wherever it measured better, the twelve-language
        // one elsewhere (en-es's); the hybrid mixes at the library's default for every pair (0.4,
        // chosen on the twelve dev sets of the pairs with a Transformer, each pair by the other eleven)
        assert.ok(['multilingual-transformer.safetensors', 'multilingual-zh-transformer.safetensors'].includes(pair.files.forward), pair.name);
        if (pair.name === 'en-zh') assert.equal(pair.files.forward, 'multilingual-zh-transformer.safetensors');
        if (pair.name === 'en-es') assert.equal(pair.files.forward, 'multilingual-transformer.safetensors');
        assert.equal(pair.files.reverse, pair.files.forward, pair.name);
        assert.equal(pair.statisticalWeight, attn.alignment.defaults.statisticalWeight, pair.name);
        assert.equal(pair.statisticalWeight, 0.4, pair.name);
        // a multilingual file's directions, as the command line reads them from a file's name
        assert.deepEqual(pair.directionModels, { forward: `en-${pair.language}-transformer`, reverse: `${pair.language}-en-transformer` });
      }
      assert.throws(() => { pairs[0].files.hmm = 'other'; }, TypeError);  // frozen, like the rest of the rules
    });

    it('the model index lists every pair with exactly the files it ships, all present in models/', () => {
      assert.deepEqual(Object.keys(index.pairs), pairs.map((pair) => pair.name));
      for (const pair of pairs) {
        const listed = index.pairs[pair.name];
        assert.deepEqual(listed.files, pair.files, pair.name);
        assert.equal(listed.method, pair.method);
        assert.equal(listed.posteriorThreshold, pair.posteriorThreshold);
        assert.equal(listed.statisticalWeight, pair.statisticalWeight);
        assert.equal(listed.attachArticles, pair.attachArticles, pair.name);
        assert.equal(listed.mutualBest, pair.mutualBest, pair.name);
        assert.deepEqual(listed.directionModels, pair.directionModels, pair.name);
        let bytes = 0;
        for (const file of Object.values(pair.files)) {
          assert.ok(index.models.includes(file), `${file} is in the index's models`);
          assert.ok(existsSync(new URL(file, MODELS)), `models/${file}`);
          bytes += readFileSync(new URL(file, MODELS)).length;
        }
        assert.equal(listed.bytes, bytes, pair.name);
      }
    });

    it('each pair\'s aligner loads from its file and links the example sentence pair', async () => {
      for (const pair of pairs) {
        const example = PAIR_EXAMPLES[pair.language];
        const aligner = await attn.loadStatisticalAligner(new Uint8Array(readFileSync(new URL(pair.files.hmm, MODELS))));
        assert.equal(aligner.kind, 'hmm');
        const result = aligner.align(example.source, example.target, { threshold: pair.posteriorThreshold });
        assert.deepEqual(result.targetWords, example.target.split(' '), pair.name);  // Cyrillic and diacritics intact
        const links = result.pharaoh.split(' ');
        for (const link of example.links) assert.ok(links.includes(link), `${pair.name}: ${link} in ${result.pharaoh}`);
        aligner.delete();
      }
    });

    it('attachArticles gives an English article left unlinked the next word\'s links, as the pairs that set it do', async () => {
      const ru = pairs.find((pair) => pair.name === 'en-ru');
      assert.equal(ru.attachArticles, true);
      assert.equal(pairs[0].attachArticles, false);  // en-es: Spanish has articles of its own
      const aligner = await attn.loadStatisticalAligner(new Uint8Array(readFileSync(new URL(ru.files.hmm, MODELS))));
      const source = 'The old man walks to the market every morning .';
      const target = 'Старик каждое утро ходит на рынок .';
      const kept = aligner.align(source, target, { threshold: ru.posteriorThreshold });
      const attached = aligner.align(source, target, { threshold: ru.posteriorThreshold, attachArticles: true });
      const targetsOf = (result, s) => result.links.filter(([source_]) => source_ === s).map(([, t]) => t);
      // "The" (0) and "the" (5), where the HMM leaves them out, take "old"'s and "market"'s targets
      assert.deepEqual(targetsOf(kept, 0), []);
      assert.ok(targetsOf(kept, 1).length > 0);
      for (const article of [0, 5]) {
        const expected = targetsOf(kept, article).length ? targetsOf(kept, article) : targetsOf(kept, article + 1);
        assert.deepEqual(targetsOf(attached, article), expected, `source word ${article}`);
      }
      const others = (result) => result.links.filter(([s]) => s !== 0 && s !== 5);
      assert.deepEqual(others(attached), others(kept));
      assert.throws(() => aligner.align(source, target, { attachArticles: 'yes' }), /attachArticles must be true or false/);
      aligner.delete();
    });

    it('mutualBest adds to the hybrid\'s links the words that are each other\'s best, as the pairs that set it do', async () => {
      const zh = pairs.find((pair) => pair.name === 'en-zh');
      assert.equal(zh.mutualBest, true);
      assert.equal(pairs[0].mutualBest, false);  // en-es: its dev set measured it worse
      const file = await attn.loadModel(new Uint8Array(readFileSync(new URL(zh.files.forward, MODELS))));
      const forward = file.forTarget('zh'), reverse = file.forTarget('en');
      const aligner = await attn.loadStatisticalAligner(new Uint8Array(readFileSync(new URL(zh.files.hmm, MODELS))));
      const { source, target } = PAIR_EXAMPLES.zh;
      const options = { method: 'hybrid', reverse, statistical: aligner, statisticalWeight: zh.statisticalWeight, posteriorThreshold: zh.posteriorThreshold };
      const links = (result) => result.pharaoh.split(' ').filter(Boolean);
      const plain = links(forward.align(source, target, options));
      const best = links(forward.align(source, target, { ...options, mutualBest: true }));
      for (const link of plain) assert.ok(best.includes(link), `${link} stays`);
      // "walks" (3) and "走路" (3): each other's best, below the threshold
      assert.ok(!plain.includes('3-3') && best.includes('3-3'), best.join(' '));
      assert.throws(() => forward.align(source, target, { ...options, mutualBest: 'yes' }), /mutualBest must be true or false/);
      for (const handle of [forward, reverse, file, aligner]) handle.delete();
    });
  });
}
