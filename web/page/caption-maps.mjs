// A word's attention drawn over its image as Xu et al.'s figures draw it: the grid map scaled to
// the image and smoothed (bilinear, then a Gaussian blur of about half a cell), each map
// normalised to its own largest weight, the image veiled in black where the weight is low and left
// bright where the model looked; a hard word's sampled cell is outlined too. The strip of every
// word's map side by side (the paper's figure) is exported as PNG or SVG with its words and the
// line saying what drew it.
import { blobOf, dataUrlOf, download, wrapLines } from './export.mjs';

/** How dark the veil is where a map is zero (1: black). */
export const VEIL = 0.62;

/** [row, col] of a map's largest weight (the first of equals). */
export function peakOf(map, width) {
  let best = 0;
  for (let i = 1; i < map.length; i++) if (map[i] > map[best]) best = i;
  return [Math.floor(best / width), best % width];
}

/** The weight at each cell as a veil's opacity: VEIL at zero, none at the map's largest weight. */
export function veilOf(map) {
  let most = 0;
  for (const x of map) if (x > most) most = x;
  return Array.from(map, (x) => (most > 0 && Number.isFinite(x) ? VEIL * (1 - Math.max(0, x) / most) : VEIL));
}

// One small canvas per grid size: the veil's cells with a border of their edge's copies, so the
// blur does not fade at the image's edges; and one SMOOTH times as large, where the cells are
// scaled up and blurred (a blur at that size costs little; the picture's size would cost a hundred
// times as much), which is then scaled to the picture.
const SMOOTH = 8;
const canvases = new Map();
function smoothVeil(map, [height, width]) {
  const key = `${height}x${width}`;
  if (!canvases.has(key)) {
    canvases.set(key, [
      Object.assign(document.createElement('canvas'), { width: width + 2, height: height + 2 }),
      Object.assign(document.createElement('canvas'), { width: (width + 2) * SMOOTH, height: (height + 2) * SMOOTH }),
    ]);
  }
  const [cells, smooth] = canvases.get(key);
  const context = cells.getContext('2d');
  const pixels = context.createImageData(width + 2, height + 2);
  const alpha = veilOf(map);
  for (let y = 0; y < height + 2; y++) {
    for (let x = 0; x < width + 2; x++) {
      const cell = Math.min(height - 1, Math.max(0, y - 1)) * width + Math.min(width - 1, Math.max(0, x - 1));
      pixels.data[(y * (width + 2) + x) * 4 + 3] = Math.round(255 * alpha[cell]);
    }
  }
  context.putImageData(pixels, 0, 0);
  const large = smooth.getContext('2d');
  large.clearRect(0, 0, smooth.width, smooth.height);
  large.imageSmoothingEnabled = true;
  large.imageSmoothingQuality = 'high';
  large.filter = `blur(${0.45 * SMOOTH}px)`;
  large.drawImage(cells, 0, 0, smooth.width, smooth.height);
  large.filter = 'none';
  return smooth;
}

/**
 * Veils the rectangle `rect` ({x, y, width, height}) of `context`, where the image is, by `map`
 * ([height * width] weights over `grid` [height, width]); `cell` (a row-major index) is outlined
 * in `colour` (a hard word's sampled cell).
 */
export function paintAttention(context, map, grid, rect, { cell = -1, colour = '#ffd400' } = {}) {
  const [height, width] = grid;
  const cellWidth = rect.width / width, cellHeight = rect.height / height;
  context.save();
  context.beginPath();
  context.rect(rect.x, rect.y, rect.width, rect.height);
  context.clip();
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'medium';
  context.drawImage(smoothVeil(map, grid), rect.x - cellWidth, rect.y - cellHeight, rect.width + 2 * cellWidth, rect.height + 2 * cellHeight);
  if (cell >= 0) {
    const line = Math.max(1.5, Math.min(cellWidth, cellHeight) / 8);
    context.strokeStyle = colour;
    context.lineWidth = line;
    context.strokeRect(rect.x + (cell % width) * cellWidth + line / 2, rect.y + Math.floor(cell / width) * cellHeight + line / 2,
      cellWidth - line, cellHeight - line);
  }
  context.restore();
}

/** The rectangle an image of `width` x `height` fills inside a `side` x `side` square, centred (contain). */
export function containRect(width, height, side) {
  const scale = side / Math.max(width, height);
  return { x: (side - width * scale) / 2, y: (side - height * scale) / 2, width: width * scale, height: height * scale };
}

// ---- the strip, exported ----

const TILE = 160, GAP = 10, LABEL = 22, MARGIN = 14, TITLE = 30, LINE = 17, COLUMNS = 6;
const FONT = '"DejaVu Sans", Verdana, Arial, sans-serif';

// Where each tile goes: COLUMNS a row, the title and the wrapped caption lines above.
function stripLayout(count, caption, measure) {
  const columns = Math.max(1, Math.min(COLUMNS, count));
  const rows = Math.max(1, Math.ceil(count / columns));
  const width = 2 * MARGIN + columns * TILE + (columns - 1) * GAP;
  const lines = wrapLines(caption, width - 2 * MARGIN, measure);
  const top = TITLE + lines.length * LINE + 8;
  const tiles = Array.from({ length: count }, (_, i) => ({
    x: MARGIN + (i % columns) * (TILE + GAP), y: top + Math.floor(i / columns) * (TILE + LABEL + GAP),
  }));
  return { width, height: top + rows * (TILE + LABEL + GAP) + MARGIN - GAP, lines, tiles };
}

/**
 * The strip as one picture. figure: {title, caption (what drew it), words, tiles: (i, size) -> a
 * canvas of word i's map at size x size, fg, bg}. Returns {width, height, draw(context)} for PNG
 * and svg() for SVG text.
 */
export function stripFigure(figure) {
  const measureContext = document.createElement('canvas').getContext('2d');
  measureContext.font = `12px ${FONT}`;
  const layout = stripLayout(figure.words.length, figure.caption, (text) => measureContext.measureText(text).width);
  const draw = (context) => {
    context.fillStyle = figure.bg;
    context.fillRect(0, 0, layout.width, layout.height);
    context.fillStyle = figure.fg;
    context.font = `700 14px ${FONT}`;
    context.fillText(figure.title, MARGIN, 21);
    context.font = `12px ${FONT}`;
    layout.lines.forEach((line, k) => context.fillText(line, MARGIN, TITLE + 10 + k * LINE));
    context.textAlign = 'center';
    context.font = `14px ${FONT}`;
    layout.tiles.forEach(({ x, y }, i) => {
      context.drawImage(figure.tiles(i, TILE * 2), x, y, TILE, TILE);
      context.fillText(figure.words[i], x + TILE / 2, y + TILE + 16);
    });
  };
  const svg = async () => {
    const text = (value, attributes) => `<text ${attributes}>${escapeXml(value)}</text>`;
    const parts = [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family='${FONT}' role="img">`,
      `<title>${escapeXml(figure.title)}</title>`,
      `<rect width="${layout.width}" height="${layout.height}" fill="${figure.bg}"/>`,
      text(figure.title, `x="${MARGIN}" y="21" font-size="14" font-weight="700" fill="${figure.fg}" class="title"`),
      ...layout.lines.map((line, k) => text(line, `x="${MARGIN}" y="${TITLE + 10 + k * LINE}" font-size="12" fill="${figure.fg}" class="caption"`)),
    ];
    for (const [i, { x, y }] of layout.tiles.entries()) {
      const url = await canvasDataUrl(figure.tiles(i, TILE * 2));
      parts.push(`<image href="${url}" x="${x}" y="${y}" width="${TILE}" height="${TILE}" class="map"/>`,
        text(figure.words[i], `x="${x + TILE / 2}" y="${y + TILE + 16}" font-size="14" text-anchor="middle" fill="${figure.fg}" class="word"`));
    }
    parts.push('</svg>');
    return parts.join('\n');
  };
  return { width: layout.width, height: layout.height, draw, svg };
}

const escapeXml = (text) => String(text).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]);

/** @param {HTMLCanvasElement} canvas */
const canvasDataUrl = async (canvas) => dataUrlOf(await blobOf(canvas));

/** The strip as a PNG blob, at twice its size. */
export async function stripPng(figure) {
  const picture = stripFigure(figure);
  const canvas = Object.assign(document.createElement('canvas'), { width: picture.width * 2, height: picture.height * 2 });
  const context = canvas.getContext('2d');
  context.scale(2, 2);
  picture.draw(context);
  return blobOf(canvas);
}

/** The strip as standalone SVG text (each map an embedded PNG, the words as text). */
export const stripSvg = (figure) => stripFigure(figure).svg();

export { download };
