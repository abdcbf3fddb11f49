// Writes a module linked by Emscripten 3.1.6 with -mrelaxed-simd again, with relaxed SIMD's
// standard opcodes: `node tools/build/relaxed_simd.mjs FILE.wasm [WASM_DIS]` (in place; the relaxed-SIMD
// build's POST_BUILD step, web/CMakeLists.txt and tests/CMakeLists.txt).
//
// Debian's Emscripten compiles with clang 14 and links with binaryen 108, both of which know only
// the pre-standard encoding of relaxed SIMD (f32x4.relaxed_fma is 0xfd 0xaf 0x01), which engines
// reject. The same binaryen's wasm-dis prints the module as text, naming each instruction; npm's
// binaryen 116 (package-lock.json), the last whose parser reads binaryen 108's text and among the
// first to write the standard encoding (f32x4.relaxed_madd, 0xfd 0x85 0x02), parses that text and
// writes the binary. Nothing is edited by hand or searched for in bytes: both ends are binaryen's
// own decoder and encoder. The function, import and export counts and the number of fused
// multiply-adds are checked equal across the step, and the module must hold some: a relaxed-SIMD
// build without them would be the SIMD128 build under another name.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import binaryen from 'binaryen';

const [file, wasmDis = 'wasm-dis'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tools/build/relaxed_simd.mjs FILE.wasm [WASM_DIS]');
  process.exit(2);
}

function fail(message) {
  console.error(`relaxed_simd: ${file}: ${message}`);
  process.exit(1);
}

// The fused multiply-adds in a module's text, by either name binaryen has given them.
const MADD = /\(f32x4\.relaxed_(?:fma|madd)\b/g;
const count = (text, pattern) => (text.match(pattern) ?? []).length;

function shape(module) {
  return {
    functions: module.getNumFunctions(),
    imports: count(module.emitText(), /^ \(import /gm),
    exports: module.getNumExports(),
  };
}

let text;
try {
  text = execFileSync(wasmDis, [file], { encoding: 'utf8', maxBuffer: 1 << 30 });
} catch (error) {
  fail(`${wasmDis} could not read it (it must be the binaryen that Emscripten links with): ${error.message}`);
}
const fused = count(text, MADD);
if (fused === 0) fail('no f32x4 fused multiply-add: was it compiled with -mrelaxed-simd?');

const features =
  binaryen.Features.MVP | binaryen.Features.SIMD128 | binaryen.Features.RelaxedSIMD | binaryen.Features.BulkMemory |
  binaryen.Features.SignExt | binaryen.Features.MutableGlobals | binaryen.Features.NontrappingFPToInt |
  binaryen.Features.Atomics;
const module = binaryen.parseText(text);
module.setFeatures(features);
if (!module.validate()) fail("binaryen 116 finds the module invalid after reading wasm-dis's text");
const before = shape(module);
const bytes = module.emitBinary();
module.dispose();

// Read back: the same shape and as many fused multiply-adds, now with the standard opcodes.
const check = binaryen.readBinary(bytes);
check.setFeatures(features);
if (!check.validate()) fail("the module written is invalid");
const after = shape(check);
const fusedAfter = count(check.emitText(), MADD);
check.dispose();
if (JSON.stringify(after) !== JSON.stringify(before) || fusedAfter !== fused) {
  fail(`the module changed: ${JSON.stringify(before)}, ${fused} multiply-adds before; ` +
    `${JSON.stringify(after)}, ${fusedAfter} after`);
}
const temporary = `${file}.relaxed-tmp`;
fs.writeFileSync(temporary, bytes);
fs.renameSync(temporary, file);
console.log(`relaxed_simd: ${file}: ${fused} f32x4.relaxed_madd in ${after.functions} functions (standard opcodes)`);
