// The Images view's requests, answered in the model worker (worker.mjs), which loads the captioner
// the first time one comes. Messages:
//   {type: 'caption', id, image: {data, width, height}, hard, seed}  -> {type: 'result', id, result: caption}
//   {type: 'captionPhoto', id, file, hard, seed}                     -> same, with the photo's width and height
//   {type: 'captionByo', id, image: File, attention: File, words: [...]} -> {words, attention, width, height}
// caption: {words, attention: {data, shape: [T, h, w]}, cells, logProbs, milliseconds}. A photo is
// decoded here (never on the page's thread), at most PHOTO_SIDE pixels a side (the model resizes it
// to its own size by its rule anyway), and captioned as the page's scenes are.
import { parseCaptionAttention } from './caption-byo.mjs';
import { problem } from './messages.mjs';

export const PHOTO_SIDE = 1024;
const MAX_FILE = 64 * 1024 * 1024;

// A PNG or JPEG file -> an ImageBitmap, or an error naming the file.
async function decode(file) {
  if (file.size > MAX_FILE) throw problem('{file} is larger than 64 MiB', { file: file.name });
  if (file.size === 0) throw problem('{file} is empty', { file: file.name });
  try {
    return await createImageBitmap(file);
  } catch {
    throw problem('{file} is not an image this browser can read (PNG or JPEG)', { file: file.name });
  }
}

// The pixels of a bitmap, shrunk to at most PHOTO_SIDE a side.
function pixelsOf(bitmap) {
  const scale = Math.min(1, PHOTO_SIDE / Math.max(bitmap.width, bitmap.height));
  const width = Math.max(1, Math.round(bitmap.width * scale)), height = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, 0, 0, width, height);
  const { data } = context.getImageData(0, 0, width, height);
  return { data: new Uint8Array(data.buffer), width, height };
}

/** The handlers for worker.mjs's answerRequests; `captioner()` resolves with the loaded model. */
export function captionHandlers(captioner) {
  const caption = async ({ image, hard, seed }) => {
    const model = await captioner();
    const started = performance.now();
    const result = model.caption(image, hard ? { hard: true, seed: Number(seed) || 0 } : {});
    return {
      words: result.words, attention: result.attention, cells: Array.from(result.cells), logProbs: Array.from(result.logProbs),
      finished: result.finished, milliseconds: performance.now() - started,
    };
  };
  return {
    caption,
    captionPhoto: async ({ file, hard, seed }) => {
      const bitmap = await decode(file);
      const image = pixelsOf(bitmap);
      bitmap.close();
      return { ...(await caption({ image, hard, seed })), width: image.width, height: image.height };
    },
    captionByo: async ({ image, attention, words }) => {
      const bitmap = await decode(image);
      const { width, height } = bitmap;
      bitmap.close();
      if (attention.size > MAX_FILE) throw problem('{file} is larger than 64 MiB', { file: attention.name });
      const parsed = parseCaptionAttention({ name: attention.name, bytes: new Uint8Array(await attention.arrayBuffer()) }, words);
      return { words: parsed.words, attention: { data: parsed.data, shape: parsed.shape }, width, height };
    },
  };
}
