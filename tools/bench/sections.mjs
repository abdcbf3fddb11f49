// What the benchmark reports share: the median (the mean of the middle two for an even count,
// undefined for none), and the rewriting of one marked section of docs/BENCHMARKS.md
// (`<!-- NAME:start ... <!-- NAME:end -->`, appended where the file has none yet).
import { readFileSync, writeFileSync } from 'node:fs';

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : undefined;
};

export function writeSection(name, section) {
  const path = new URL('../../docs/BENCHMARKS.md', import.meta.url);
  const doc = readFileSync(path, 'utf8');
  const block = new RegExp(`<!-- ${name}:start[^]*?<!-- ${name}:end -->`);
  writeFileSync(path, block.test(doc) ? doc.replace(block, () => section) : `${doc.trimEnd()}\n\n${section}\n`);
}
