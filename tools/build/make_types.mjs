// Writes the module's types, web/dist/attn.d.ts and attn.d.mts (TypeScript reads an .mjs import's
// types from the .d.mts beside it), from the template web/src/attn.d.ts.in (with the files its
// "@include FILE@" lines name, as web/src/alignment.d.ts.in): each @Name@ in it
// becomes a union of names or a default read from the built module's attn.alignment, so the types
// never copy a rule of attn/align/methods.hpp. web/CMakeLists.txt runs it after linking the module:
//   node tools/build/make_types.mjs web/src/attn.d.ts.in web/dist simd|scalar
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readsOneMatrix } from '../../web/page/methods.mjs';

const [template, dist, flavour] = process.argv.slice(2);
if (!template || !dist || !['simd', 'scalar'].includes(flavour)) {
  console.error('usage: node tools/build/make_types.mjs TEMPLATE DIST simd|scalar');
  process.exit(2);
}

const { default: loadAttn } = await import(pathToFileURL(resolve(dist, 'attn.mjs')).href);
const { alignment } = await loadAttn({ simd: flavour === 'simd', warmUp: false });

const literal = (value) => (typeof value === 'string' ? `'${value}'` : String(value));
// A union on one line while it is short, one member a line when long.
const union = (names) => (names.length > 4 ? `\n  | ${names.map(literal).join('\n  | ')}` : names.map(literal).join(' | '));
const names = (methods) => methods.map((method) => method.name);
const values = {
  AlignMethodName: union(names(alignment.methods)),
  AlignMethod: union(names(alignment.methods.filter((method) => method.needsModel))),
  ExtractMethod: union(names(alignment.methods.filter(readsOneMatrix))),
  StatisticalKind: union(alignment.statisticalKinds),
  Mix: union(alignment.mixes),
  Symmetrization: union(alignment.symmetrizations),
  PairName: union(alignment.pairs.map((pair) => pair.name)),
};
for (const [name, value] of Object.entries(alignment.defaults)) values[`default.${name}`] = literal(value);

// "@include FILE@" on a line of its own: FILE, beside the template, there (the template in parts)
const included = async (text) => {
  const parts = await Promise.all(text.split(/^@include ([\w.-]+)@$/m).map((part, i) =>
    (i % 2 ? readFile(resolve(dirname(template), part), 'utf8') : part)));
  return parts.join('');
};
const text = (await included(await readFile(template, 'utf8'))).replace(/@([A-Za-z]+(?:\.[A-Za-z]+)?)@/g, (placeholder, name) => {
  if (!(name in values)) throw new Error(`${template}: ${placeholder} is not one of ${Object.keys(values).join(', ')}`);
  return values[name];
}).replace(/ +\n/g, '\n');  // "= " before a union that starts on the next line
for (const file of ['attn.d.ts', 'attn.d.mts']) await writeFile(resolve(dist, file), text);
