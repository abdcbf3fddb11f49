// A safetensors file's JSON header alone (docs/MODEL_FORMAT.md: an 8-byte little-endian length,
// then the header), read without the tensors: the multilingual file is 16 MB. Used by the build's
// model index and artwork steps and by the benchmarks.
import { open } from 'node:fs/promises';

/** The parsed header of the safetensors file at `path` (its tensors' entries and `__metadata__`). */
export async function safetensorsHeader(path) {
  const handle = await open(path);
  try {
    const size = Buffer.alloc(8);
    await handle.read(size, 0, 8, 0);
    const json = Buffer.alloc(Number(size.readBigUInt64LE(0)));
    await handle.read(json, 0, json.length, 8);
    return JSON.parse(json.toString('utf8'));
  } finally {
    await handle.close();
  }
}
