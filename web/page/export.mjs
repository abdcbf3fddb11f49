// Exports of a heatmap as the page shows it (painters.mjs's painter, so they cannot drift apart): a
// standalone SVG and a PNG, each with a title and the colour legend, in the page's colour scheme
// (its background with it, so dark-mode labels never land on white). The SVG names its font
// (DejaVu Sans, then common fallbacks) rather than embedding one; cells are rectangles up to
// SVG_CELLS of them, one embedded image above. Also the matrix as JSON (the format the explorer
// reads) and the links as text.
import { colourMap, rgb } from './colormap.mjs';
import { CanvasSurface } from './canvas.mjs';
import { t } from './i18n.mjs';
import { DEFAULT_CELL, FONT_SIZE, GAP_FROM, LINK_WIDTH, layoutFigure, markOf, measurer, paintHeatmap, paintLegend, strokedBox, themeOf } from './painters.mjs';

const SVG = 'http://www.w3.org/2000/svg';
const SVG_CELLS = 10000;
const FONT_FAMILY = '"DejaVu Sans", Verdana, Arial, sans-serif';
const MARGIN = 12, TITLE = 30, CAPTION = 18, LEGEND_GAP = 14;

/** Offers a blob to the reader as a file named `name`. */
export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const anchor = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function svgElement(name, attributes = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The painter's surface for SVG: elements instead of pixels.
export class SvgSurface {
  constructor(root, cellsUrl) {
    this.stack = [root];
    this.cellsUrl = cellsUrl;  // the cells as one PNG, for figures over SVG_CELLS
  }

  add(name, attributes, text) {
    this.stack.at(-1).append(svgElement(name, attributes, text));
  }

  fill(x, y, width, height, colour) {
    this.add('rect', { x, y, width, height, fill: colour });
  }

  veil() {}  // exports show no highlight

  outline(x, y, width, height, colour, lineWidth, kind) {
    this.add('rect', {
      ...strokedBox(x, y, width, height, lineWidth), fill: 'none', stroke: colour, 'stroke-width': lineWidth, ...(kind ? { class: kind } : {}),
    });
  }

  mark(x, y, cell, colour, kind, inset) {
    const mark = markOf(x, y, cell, inset);
    if (mark.filled) this.add('rect', { x: mark.x, y: mark.y, width: mark.width, height: mark.height, fill: colour, class: kind });
    else this.outline(mark.x, mark.y, mark.width, mark.height, colour, LINK_WIDTH, kind);
  }

  triangle(points, colour, kind) {
    this.add('polygon', { points: points.map((point) => point.join(',')).join(' '), fill: colour, ...(kind ? { class: kind } : {}) });
  }

  text(text, x, y, { fill, anchor = 'start', rotate = 0, bold = false, size = FONT_SIZE, className }) {
    this.add('text', {
      x, y, fill, 'text-anchor': anchor, ...(rotate ? { transform: `rotate(${rotate} ${x} ${y})` } : {}),
      ...(bold ? { 'font-weight': 700 } : {}), ...(size !== FONT_SIZE ? { 'font-size': size } : {}), ...(className ? { class: className } : {}),
    }, text);
  }

  group(dx, dy, paint) {
    const group = svgElement('g', { transform: `translate(${dx} ${dy})` });
    this.stack.at(-1).append(group);
    this.stack.push(group);
    paint();
    this.stack.pop();
  }

  clip(_x, _y, _width, _height, paint) {
    paint();  // an export shows the whole figure: nothing to clip
  }

  cells(figure, { x, y, cell, s0, s1, t0, t1 }) {
    if (!this.cellsUrl) {
      const map = colourMap(figure.colormap);
      for (let t = t0; t < t1; t++) {
        for (let s = s0; s < s1; s++) {
          this.add('rect', { x: x + (s - s0) * cell, y: y + (t - t0) * cell, width: cell - (cell >= GAP_FROM ? 1 : 0), height: cell - (cell >= GAP_FROM ? 1 : 0), fill: rgb(map(figure.weights[t * figure.cols + s])), class: 'cell' });
        }
      }
      return;
    }
    this.add('image', {
      href: this.cellsUrl, x, y, width: (s1 - s0) * cell, height: (t1 - t0) * cell, preserveAspectRatio: 'none', 'image-rendering': 'optimizeSpeed',
    });
  }
}

/** `text` in lines of at most `width` pixels as `measure` reads them, broken at spaces; a run
 * wider than a line (Chinese, written without spaces, or one very long word) is broken between its
 * characters. */
export function wrapLines(text, width, measure) {
  const lines = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = lines.at(-1);
    if (last !== undefined && measure(`${last} ${word}`) <= width) {
      lines[lines.length - 1] = `${last} ${word}`;
      continue;
    }
    let piece = '';
    for (const character of word) {  // code points: a character is never split
      if (piece && measure(piece + character) > width) {
        lines.push(piece);
        piece = '';
      }
      piece += character;
    }
    lines.push(piece);
  }
  return lines;
}

// The exported figure's geometry: a title and the lines saying what drew it (figure.titleIn() and
// figure.captionIn(), in the interface's language, where the view gives them; else figure.title and
// figure.caption), the lines wrapped to the figure's width or CAPTION_WIDTH, whichever is wider, so
// a slide gets the figure and not a long strip of text; the heatmap at a readable size (cells of at
// least one pixel for large matrices), the legend below.
const CAPTION_WIDTH = 560;
function documentOf(heatmap) {
  const figure = heatmap.figure;
  const theme = themeOf(heatmap.host);
  const cell = Math.max(1, Math.min(DEFAULT_CELL(figure.cols), Math.floor(2400 / Math.max(figure.rows, figure.cols))));
  const measure = measurer(theme);
  const layout = layoutFigure(figure, cell, measure);
  const title = figure.titleIn?.() ?? figure.title ?? heatmap.label;
  const room = Math.max(layout.width, CAPTION_WIDTH);
  const captionSize = (text) => measure(text) * 1.1;  // the measurer's 13 px labels, for 12 px text with margin
  const caption = wrapLines(figure.captionIn?.() ?? figure.caption ?? '', room, captionSize);
  const top = TITLE + caption.length * CAPTION;
  const width = Math.ceil(Math.max(layout.width, 320, measure(title) * 1.3, ...caption.map(captionSize)) + 2 * MARGIN);
  const height = Math.ceil(top + layout.height + LEGEND_GAP + 30 + MARGIN);
  return { figure, theme, layout, title, caption, top, width, height };
}

function paintDocument(surface, { figure, theme, layout, title, caption, top, width, height }) {
  surface.fill(0, 0, width, height, theme.bg);
  surface.text(title, MARGIN, 21, { fill: theme.fg, bold: true, size: 14, className: 'title' });
  caption.forEach((line, k) => surface.text(line, MARGIN, TITLE + 10 + k * CAPTION, { fill: theme.fg, size: 12, className: 'caption' }));
  surface.group(MARGIN, top, () => paintHeatmap(surface, figure, layout, theme, { x: 0, y: 0, width: layout.width, height: layout.height }));
  surface.group(MARGIN, top + layout.height + LEGEND_GAP, () => {
    paintLegend(surface, theme, { colormap: figure.colormap, links: figure.links.length > 0, gold: (figure.gold ?? []).length > 0, width: 120, labels: { link: t('link'), gold: t('gold link') } });
  });
}

/** A canvas as a PNG blob. @param {HTMLCanvasElement} canvas @returns {Promise<Blob>} */
export const blobOf = (canvas) => new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the browser could not encode the PNG'))), 'image/png'));

/** A blob as a data: URL. @param {Blob} blob */
export const dataUrlOf = (blob) => new Promise((resolve, reject) => {
  const reader = new FileReader();
  reader.onload = () => resolve(reader.result);
  reader.onerror = () => reject(reader.error);
  reader.readAsDataURL(blob);
});

/** The heatmap as standalone SVG text. */
export async function svgText(heatmap) {
  const document_ = documentOf(heatmap);
  const { figure, width, height, title, theme } = document_;
  let cellsUrl = null;
  if (figure.rows * figure.cols > SVG_CELLS) {
    const canvas = Object.assign(document.createElement('canvas'), { width: figure.cols, height: figure.rows });
    canvas.getContext('2d').drawImage(heatmap.bitmap, 0, 0);  // the cells as the page shows them
    cellsUrl = await dataUrlOf(await blobOf(canvas));
  }
  const root = svgElement('svg', {
    xmlns: SVG, width, height, viewBox: `0 0 ${width} ${height}`, 'font-family': FONT_FAMILY, 'font-size': FONT_SIZE, role: 'img',
  });
  root.append(svgElement('title', {}, title));
  root.dataset.background = theme.bg;
  paintDocument(new SvgSurface(root, cellsUrl), document_);
  return new XMLSerializer().serializeToString(root);
}

/** The heatmap as a PNG blob, at twice the size where that stays under about 36 million pixels. */
export async function pngBlob(heatmap) {
  const document_ = documentOf(heatmap);
  const scale = Math.min(2, Math.sqrt(36e6 / (document_.width * document_.height)));
  const canvas = Object.assign(document.createElement('canvas'), { width: Math.round(document_.width * scale), height: Math.round(document_.height * scale) });
  const context = canvas.getContext('2d');
  context.scale(scale, scale);
  paintDocument(new CanvasSurface(context, document_.theme, heatmap.bitmap), document_);
  return blobOf(canvas);
}

export async function exportSvg(heatmap, name = 'attention.svg') {
  download(name, new Blob([await svgText(heatmap)], { type: 'image/svg+xml' }));
}

export async function exportPng(heatmap, name = 'attention.png') {
  download(name, await pngBlob(heatmap));
}

// { source: [...], target: [...], weights: [[...] per target word] }: what "bring your own" reads,
// with what drew it where the figure says (about: {pair, method, model, caption}; readers ignore it).
export function matrixJson({ weights, rows, cols, rowLabels, colLabels, about }) {
  const nested = Array.from({ length: rows }, (_, t) => Array.from(weights.subarray(t * cols, (t + 1) * cols), (x) => +x.toFixed(6)));
  return JSON.stringify({ source: colLabels, target: rowLabels, weights: nested, ...(about ? { about } : {}) }, null, 1);
}

export function exportJson(figure, name = 'attention.json') {
  download(name, new Blob([matrixJson(figure)], { type: 'application/json' }));
}

export function exportLinks(pharaoh, name = 'links.txt') {
  download(name, new Blob([`${pharaoh}\n`], { type: 'text/plain' }));
}
