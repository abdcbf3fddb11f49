// docs/BENCHMARKS.md's Chromium section (tools/bench/browser_report.mjs) from tools/bench/browser.mjs's
// JSON lines: the right rows compared, the median and range over runs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserFigures, browserSection } from '../../tools/bench/browser_report.mjs';
import { attentionFlops, forcedDecodingFlops } from '../../tools/bench/flops.mjs';

const row = (group, impl, ms, paired = 1) => ({ group, impl, median_ms: ms, gflops: 100 / ms, vs: 'attn-relaxed', ratio: 1, paired_median: paired, paired_min: paired, paired_max: paired });
const run = (scale) => [
  { browser: 'HeadlessChrome/120', rounds: 20, warmupMs: 1500, threads2: true, sink: 1 },
  { impl: 'simd128-peak-chromium', gflops: 40 * scale, threads: 1, loop: 'chains_13' },
  // the two-thread row first: it must not be taken for the one-thread relaxed row
  row('maps 10x10', 'attn-relaxed-2t', 3 * scale), row('maps 10x10', 'attn-relaxed', 5 * scale),
  row('maps 10x10', 'attn-simd', 6 * scale), row('maps 10x10', 'ort-web maps+x', 10 * scale, 2.1),
  row('attention 1x1x16x16x64', 'attn-relaxed', 1), row('attention 1x1x16x16x64', 'attn-simd', 1.5),
  row('attention 1x1x16x16x64', 'ort-web sdpa', 4 * scale, 3.9),
];

describe('the browser benchmark report', () => {
  it('compares ORT with the one-thread relaxed row and gives the median and range over runs', () => {
    const [maps, kernel] = browserFigures([run(1), run(1.2), run(0.9)]);
    assert.equal(maps.group, 'maps 10x10');
    assert.deepEqual(maps.ortOverRelaxed.map((x) => +x.toFixed(6)), [2, 2, 2]);
    assert.deepEqual(maps.oneOverTwo.map((x) => +x.toFixed(6)), [5 / 3, 5 / 3, 5 / 3].map((x) => +x.toFixed(6)));
    assert.equal(maps.relaxed, 5);
    assert.deepEqual(kernel.ortOverRelaxed, [4, 4.8, 3.6]);
    assert.equal(kernel.oneOverTwo, null);
    // the peak is the median over the runs; each row's GFLOP/s the median of its runs'
    assert.equal(maps.peak, 40);
    assert.equal(maps.relaxedGflops, 20);
    assert.equal(maps.ortGflops, 10);
  });

  it('counts the matrix products of forced decoding and of the attention kernels', () => {
    const arch = { model_dim: 256, ff_dim: 1024, encoder_layers: 3, decoder_layers: 3, vocab_size: 8192, heads: 4 };
    // by hand: 3 encoder layers (QKV, scores and weights times V, the output projection, the
    // feed-forward), 3 decoder layers (self- and cross-attention), 2 decoder feed-forwards
    assert.equal(forcedDecodingFlops(arch, 75, 81), 829946880);
    // the whole model: the last feed-forward and the output layer (81 x 256 x 8192) too
    assert.equal(forcedDecodingFlops(arch, 75, 81, { logProbs: true }), 1254620160);
    assert.equal(attentionFlops([1, 2, 3, 5, 8]), 2 * (4 * 3 * 5 * 8 + 5 * 3 * 5));
  });

  it('writes the section from the runs in a folder, and nothing without them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'attn-browser-report-'));
    try {
      assert.equal(browserSection(dir), '');
      [run(1), run(1.2), run(0.9)].forEach((lines, i) =>
        writeFileSync(join(dir, `browser-${i + 1}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\nhuman table\n'));
      const section = browserSection(dir);
      assert.match(section, /3 separate runs/);
      assert.match(section, /\| maps 10x10 \| 5\.000 \| 6\.000 \| 10\.00 \| 2\.00 \(2\.00–2\.00\) \| 2\.10 \(2\.10–2\.10\) \|/);
      assert.match(section, /peak .+: \*\*40\.00 GFLOP\/s\*\*/s);
      assert.match(section, /\| 20\.00 \(50 %\) \| 10\.00 \(25 %\) \|\n/);
      assert.match(section, /1\.8 times onnxruntime-web's speed on the maps rows would\s+need 10x10 18\.00 GFLOP\/s \(45 %\)/);
      assert.match(section, /fused multiply-adds take\s+0\.67–0\.83× of SIMD128's time/);
      assert.match(section, /Attention kernels, geometric mean of ORT \/ attnscope: relaxed 4\.00 \(3\.60–4\.80\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
