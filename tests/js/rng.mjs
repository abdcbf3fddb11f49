// Seeded random numbers for the JS tests, apart from helpers.mjs so that a test can draw them
// without loading the module's builds.

/** mulberry32: a seeded PRNG, uniform in [0, 1). */
export function makeRng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** integer in [lo, hi] */
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    /** standard normal (Box-Muller) */
    normal: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
    /** Float32Array of n values uniform in [-scale, scale) */
    floats: (n, scale = 1) => Float32Array.from({ length: n }, () => scale * (2 * next() - 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  };
}
