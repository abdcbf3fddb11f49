// The Images view's scenes: OpenMoji objects on a plain light background, as the captioner learned
// from them (tools/data/scenes/). A scene is { objects: [{ name, x, y, size }] }: x and y the
// sprite square's top-left corner and size its side, all as fractions of the image side. It is
// drawn by the rule tools/data/scenes/chromium.mjs redraws the training scenes with (the
// background filled, each sprite at round(x * side), round(y * side), max(1, round(size * side))
// square), so the model sees the page's scene as it saw its own. Pure but for drawScene, which
// takes a 2-D context (tests/js/caption.test.mjs runs the rest under Node).
import { english, message } from './messages.mjs';

/** The background: a light colour of the training range (each channel 222-255). */
export const BACKGROUND = [244, 240, 232];
/** Sprite sides the training scenes had (fractions of the image side), and what the editor allows. */
export const TRAINED_SIZES = [0.2, 0.35];
export const SIZE_LIMITS = [0.1, 0.6];
/** At most this many objects: training scenes had 1-4. */
export const MAX_OBJECTS = 6;
export const TRAINED_COUNT = 4;

/** Scenes in the spirit of Xu et al.'s gallery, one click each (sizes in the training range). */
export const SCENE_PRESETS = [
// (x, y, size in pixels of the 96-pixel image the scenes were designed at)
  { id: 'dog-ball', label: 'A dog and its ball', objects: [['dog', 10, 40, 32], ['ball', 62, 50, 24]] },
  { id: 'boat-sun', label: 'A boat under the sun', objects: [['sun', 56, 8, 28], ['boat', 20, 58, 32]] },
  { id: 'bird-tree', label: 'A bird above a tree', objects: [['bird', 36, 6, 24], ['tree', 32, 52, 34]] },
  { id: 'cats-house', label: 'Two cats by a house', objects: [['cat', 6, 20, 26], ['cat', 8, 58, 26], ['house', 60, 36, 32]] },
  { id: 'street', label: 'A car, a tree and a house', objects: [['car', 4, 50, 28], ['tree', 36, 20, 30], ['house', 66, 56, 28]] },
  { id: 'pizza-clock', label: 'A pizza under a clock', objects: [['clock', 34, 6, 30], ['pizza', 36, 60, 22]] },
].map(({ id, label, objects }) => ({
  id, label, scene: { objects: objects.map(([name, x, y, size]) => ({ name: String(name), x: Number(x) / 96, y: Number(y) / 96, size: Number(size) / 96 })) },
}));
export const DEFAULT_PRESET = SCENE_PRESETS[0];

const clamp = (x, low, high) => Math.min(high, Math.max(low, x));
const PER = 1000;  // the hash writes fractions in thousandths of the side

/** An object kept inside the image: its size within SIZE_LIMITS, its square within the side. */
export function placed({ name, x, y, size }) {
  const side = clamp(size, ...SIZE_LIMITS);
  return { name, x: clamp(x, 0, 1 - side), y: clamp(y, 0, 1 - side), size: side };
}

/** The scene as the hash writes it: 'dog_104_417_333.ball_646_521_250' (name, x, y, size in thousandths). */
export function encodeScene(scene) {
  return scene.objects.map(({ name, x, y, size }) => [name, ...[x, y, size].map((v) => Math.round(v * PER))].join('_')).join('.');
}

/**
 * The hash's scene text -> a scene, keeping the objects `known` names (the model's); null where
 * the text holds no object it can read. Unknown names and numbers out of range are dropped or
 * clamped, never guessed.
 */
export function decodeScene(text, known) {
  const objects = [];
  for (const part of String(text ?? '').split('.').filter(Boolean)) {
    const [name, ...numbers] = part.split('_');
    const [x, y, size] = numbers.map(Number);
    if (!known.has(name) || numbers.length !== 3 || ![x, y, size].every(Number.isFinite)) continue;
    objects.push(placed({ name, x: x / PER, y: y / PER, size: size / PER }));
  }
  return objects.length ? { objects: objects.slice(0, MAX_OBJECTS) } : null;
}

/** The sprite squares of `scene` in pixels of an image `side` wide, as the training renderer rounds them. */
export const spriteRects = (scene, side) => scene.objects.map(({ x, y, size }) => {
  const pixels = Math.max(1, Math.round(size * side));
  return { x: Math.round(x * side), y: Math.round(y * side), side: pixels };
});

/**
 * Draws `scene` into the square (left, top, side) of a 2-D context: the background, then each
 * object's artwork (`images`: name -> a decoded image) in order, later ones on top.
 */
export function drawScene(context, scene, images, side, left = 0, top = 0) {
  context.fillStyle = `rgb(${BACKGROUND.join(',')})`;
  context.fillRect(left, top, side, side);
  const rects = spriteRects(scene, side);
  scene.objects.forEach(({ name }, i) => {
    const image = images.get(name);
    if (image) context.drawImage(image, left + rects[i].x, top + rects[i].y, rects[i].side, rects[i].side);
  });
}

/**
 * Where a new object of `size` goes: the free spot farthest from every object's centre on a coarse
 * grid (the first of equals), so a palette click never hides what is there.
 */
export function freeSpot(scene, size) {
  const centres = scene.objects.map((o) => [o.x + o.size / 2, o.y + o.size / 2]);
  let best = { x: (1 - size) / 2, y: (1 - size) / 2 }, farthest = -1;
  for (let i = 0; i <= 8; i++) {
    for (let j = 0; j <= 8; j++) {
      const x = (i / 8) * (1 - size), y = (j / 8) * (1 - size);
      const nearest = Math.min(4, ...centres.map(([cx, cy]) => Math.hypot(cx - x - size / 2, cy - y - size / 2)));
      if (nearest > farthest + 1e-9) {
        farthest = nearest;
        best = { x, y };
      }
    }
  }
  return best;
}

/** What about a scene lies outside what the model learned from, in words ('' when nothing), as a
 * message (messages.mjs) for the page to say in the reader's language. */
export function outsideTrainingMessage(scene) {
  const notes = [];
  if (scene.objects.length === 0) notes.push(message('an empty scene'));
  if (scene.objects.length > TRAINED_COUNT) notes.push(message('{count} objects (training scenes had 1–{most})', { count: scene.objects.length, most: TRAINED_COUNT }));
  const [low, high] = TRAINED_SIZES;
  const sizes = scene.objects.filter((o) => o.size < low - 0.005 || o.size > high + 0.005).length;
  const range = { low: low * 100, high: high * 100 };
  if (sizes === 1) notes.push(message('an object outside the trained sizes ({low}–{high} % of the side)', range));
  if (sizes > 1) notes.push(message('{count} objects outside the trained sizes ({low}–{high} % of the side)', { count: sizes, ...range }));
  if (overlapping(scene)) notes.push(message('overlapping objects (training scenes kept them apart)'));
  if (!notes.length) return '';
  return message('This scene has {notes}: the caption may go wrong.', { notes: notes.reduce((list, note) => message('{list}, {note}', { list, note })) });
}

/** outsideTrainingMessage's words in English. */
export const outsideTraining = (scene) => english(outsideTrainingMessage(scene));

// Two sprite squares overlapping by more than a quarter of the smaller one's side.
function overlapping({ objects }) {
  for (let i = 0; i < objects.length; i++) {
    for (let j = i + 1; j < objects.length; j++) {
      const a = objects[i], b = objects[j];
      const dx = Math.min(a.x + a.size, b.x + b.size) - Math.max(a.x, b.x);
      const dy = Math.min(a.y + a.size, b.y + b.size) - Math.max(a.y, b.y);
      if (dx > 0.25 * Math.min(a.size, b.size) && dy > 0.25 * Math.min(a.size, b.size)) return true;
    }
  }
  return false;
}
