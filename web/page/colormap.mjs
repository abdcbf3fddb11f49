// Viridis (perceptually uniform, colour-blind safe), sampled at 9 stops and interpolated in sRGB.
const VIRIDIS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
];

// [r, g, b] for t in [0, 1] (clamped).
export function viridis(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  return VIRIDIS[i].map((c, k) => Math.round(c + f * (VIRIDIS[i + 1][k] - c)));
}

export function rgb([r, g, b]) {
  return `rgb(${r}, ${g}, ${b})`;
}

// Text on a cell stays readable: dark text on the light end of the map, light on the dark end.
export function textColourFor([r, g, b]) {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 140 ? '#111' : '#fff';
}

// Grayscale for print and for readers who prefer it: white (0) to black (1).
export function grayscale(t) {
  const v = Math.round(255 * (1 - Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0))));
  return [v, v, v];
}

// As Bahdanau, Cho and Bengio's alignment figures draw attention: black (0) to white (1).
export function bahdanau(t) {
  const v = Math.round(255 * Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)));
  return [v, v, v];
}

const MAPS = { viridis, gray: grayscale, bahdanau };

// The colour function called `name` ('viridis', 'gray' or 'bahdanau'; anything else is viridis).
export const colourMap = (name) => MAPS[name] ?? viridis;

// The colours of a map's two ends in words, [at 0, at 1], for a legend's accessible name.
const ENDS = { viridis: ['dark purple', 'yellow'], gray: ['white', 'black'], bahdanau: ['black', 'white'] };
export const colourEnds = (name) => ENDS[name] ?? ENDS.viridis;

// 256 steps of a map as RGBA pixels (Uint32 in the platform's byte order, for an ImageData view).
export function colourTable(name) {
  const map = colourMap(name);
  const bytes = new Uint8ClampedArray(256 * 4);
  for (let i = 0; i < 256; i++) {
    bytes.set([...map(i / 255), 255], i * 4);
  }
  return new Uint32Array(bytes.buffer);
}

// weights[from..to) -> pixels[from..to) (Uint32 RGBA) through a colourTable; NaN and <= 0 take the first step.
export function colourInto(pixels, weights, table, from = 0, to = weights.length) {
  for (let i = from; i < to; i++) {
    const x = weights[i];
    pixels[i] = table[x > 0 ? (x >= 1 ? 255 : (x * 255 + 0.5) | 0) : 0];
  }
}
