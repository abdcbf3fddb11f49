// The canvas side of the page's figures: CanvasSurface (the painter's surface on a canvas, cells from
// one bitmap, one pixel a cell, scaled, so a 2048 x 2048 matrix costs what a 10 x 10 one does) and
// CanvasFigure, the host every figure builds on: a canvas that sits still (position: sticky) over a
// plane as large as the figure, so the figure scrolls natively (scrollbars, touch, wheel) and only
// what is in view is painted.
import { colourInto, colourTable } from './colormap.mjs';
import { FONT_SIZE, GAP_FROM, LINK_WIDTH, fontOf, markOf, strokedBox, themeOf } from './painters.mjs';

// The canvas side of the painter's surface. Cells come from the figure's bitmap, one pixel a cell.
export class CanvasSurface {
  /**
   * @param {CanvasRenderingContext2D} context
   * @param {object} theme the page's colours and font (painters.mjs themeOf)
   * @param {ImageBitmap | HTMLCanvasElement | OffscreenCanvas | null} bitmap the figure's cells, one pixel a cell
   */
  constructor(context, theme, bitmap) {
    this.context = context;
    this.theme = theme;
    this.bitmap = bitmap;
  }

  fill(x, y, width, height, colour) {
    this.context.fillStyle = colour;
    this.context.fillRect(x, y, width, height);
  }

  veil(x, y, width, height, colour) {
    this.context.globalAlpha = 0.55;
    this.fill(x, y, width, height, colour);
    this.context.globalAlpha = 1;
  }

  outline(x, y, width, height, colour, lineWidth) {
    this.context.strokeStyle = colour;
    this.context.lineWidth = lineWidth;
    const box = strokedBox(x, y, width, height, lineWidth);
    this.context.strokeRect(box.x, box.y, box.width, box.height);
  }

  // A link on a cell: an outline inset from its edge; a filled square where cells are too small.
  mark(x, y, cell, colour, _kind, inset) {
    const mark = markOf(x, y, cell, inset);
    if (mark.filled) this.fill(mark.x, mark.y, mark.width, mark.height, colour);
    else this.outline(mark.x, mark.y, mark.width, mark.height, colour, LINK_WIDTH);
  }

  /** @param {[number, number][]} points @param {string} colour @param {string} [_kind] */
  triangle(points, colour, _kind) {
    const context = this.context;
    context.fillStyle = colour;
    context.beginPath();
    context.moveTo(...points[0]);
    for (const point of points.slice(1)) context.lineTo(...point);
    context.closePath();
    context.fill();
  }

  text(text, x, y, { fill, anchor = 'start', rotate = 0, bold = false, size = FONT_SIZE }) {
    const context = this.context;
    context.font = fontOf(this.theme, { bold, size });
    context.fillStyle = fill;
    context.textAlign = { start: 'left', middle: 'center', end: 'right' }[anchor];
    if (!rotate) {
      context.fillText(text, x, y);
      return;
    }
    context.save();
    context.translate(x, y);
    context.rotate((rotate * Math.PI) / 180);
    context.fillText(text, 0, 0);
    context.restore();
  }

  line(x1, y1, x2, y2, colour, width, opacity) {
    const context = this.context;
    context.globalAlpha = opacity;
    context.strokeStyle = colour;
    context.lineWidth = width;
    context.beginPath();
    context.moveTo(x1, y1);
    context.lineTo(x2, y2);
    context.stroke();
    context.globalAlpha = 1;
  }

  group(dx, dy, paint) {
    this.context.save();
    this.context.translate(dx, dy);
    paint();
    this.context.restore();
  }

  clip(x, y, width, height, paint) {
    this.context.save();
    this.context.beginPath();
    this.context.rect(x, y, width, height);
    this.context.clip();
    paint();
    this.context.restore();
  }

  // The cells in view, scaled from the bitmap, with a gap between cells large enough for one.
  cells(figure, { x, y, cell, s0, s1, t0, t1 }, theme) {
    if (s1 <= s0 || t1 <= t0 || !this.bitmap) return;
    this.context.imageSmoothingEnabled = cell < 1;
    this.context.drawImage(this.bitmap, s0, t0, s1 - s0, t1 - t0, x, y, (s1 - s0) * cell, (t1 - t0) * cell);
    if (cell < GAP_FROM) return;
    const width = (s1 - s0) * cell, height = (t1 - t0) * cell;
    for (let s = s0; s < s1; s++) this.fill(x + (s - s0 + 1) * cell - 1, y, 1, height, theme.bg);
    for (let t = t0; t < t1; t++) this.fill(x, y + (t - t0 + 1) * cell - 1, width, 1, theme.bg);
  }
}

// One pixel a cell, in the figure's colours: what CanvasSurface scales (and exports embed). The
// colouring yields to the page every quarter million cells, so a large matrix never holds its
// thread for long.
export async function cellBitmap({ weights, rows, cols, colormap }) {
  const table = colourTable(colormap);
  const pixels = new Uint32Array(weights.length);
  const slice = 1 << 18;
  for (let from = 0; from < weights.length; from += slice) {
    if (from) await new Promise((resolve) => setTimeout(resolve));
    colourInto(pixels, weights, table, from, Math.min(weights.length, from + slice));
  }
  return createImageBitmap(new ImageData(new Uint8ClampedArray(pixels.buffer), cols, rows));
}

// -------------------------------------------------------------------------------------------
// On the page: a canvas over a scrolling plane.

const figures = new WeakMap();  // host element -> its Heatmap or LineView (heatmapOf, for tests and exports)
export const heatmapOf = (element) => figures.get(element);

const dark = matchMedia('(prefers-color-scheme: dark)');

// Sizes a canvas to width x height CSS pixels at the screen's density; its context draws in CSS pixels.
export function fitCanvas(canvas, width, height) {
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  const context = canvas.getContext('2d');
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  return context;
}

export class CanvasFigure {
  constructor(host) {
    this.host = host;
    figures.set(host, this);
    this.plane = Object.assign(document.createElement('div'), { className: 'plane' });
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('aria-hidden', 'true');
    this.plane.append(this.canvas);
    host.replaceChildren(this.plane);
    this.frame = 0;
    /** @type {ImageBitmap | HTMLCanvasElement | OffscreenCanvas | null} the cells, one pixel a cell, where the figure has them */
    this.bitmap = null;
    host.addEventListener('scroll', () => this.invalidate(), { passive: true });
    new ResizeObserver(() => this.invalidate()).observe(host);
    dark.addEventListener('change', () => this.invalidate());
  }

  // The figure's whole size; the plane takes it, the scroll container shows part of it.
  resize(width, height) {
    this.plane.style.width = `${width}px`;
    this.plane.style.height = `${height}px`;
    this.size = { width, height };
  }

  invalidate() {
    if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.paintNow(); });
  }

  // Sizes the canvas to the part in view (device pixels) and paints it.
  paintNow() {
    if (!this.size) return;
    const host = this.host;
    const width = Math.min(this.size.width, host.clientWidth), height = Math.min(this.size.height, host.clientHeight || this.size.height);
    const context = fitCanvas(this.canvas, width, height);
    const theme = themeOf(host);
    const view = { x: host.scrollLeft, y: host.scrollTop, width, height };
    this.paint(new CanvasSurface(context, theme, this.bitmap), theme, view);
    this.paintEdges(context, theme, view);
    this.afterPaint(theme);
  }

  /**
   * Paints the part in view; each figure says how.
   * @param {CanvasSurface} _surface @param {object} _theme @param {{x: number, y: number, width: number, height: number}} _view
   */
  paint(_surface, _theme, _view) {}

  afterPaint(_theme) {}

  // Whether the figure (its whole size, the plane) is larger than the part in view. Measured on
  // the figure rather than on the host's scroll size, which a mark moving between rows (the
  // translation's outline gliding to a row of the figure before, a longer one) stretches for a
  // moment after the last paint.
  overflows() {
    const host = this.host;
    return this.size.width > host.clientWidth + 1 || this.size.height > host.clientHeight + 1;
  }

  // Where the scrolling part of the figure starts (a heatmap's labels stay put left of and above it).
  gutters() {
    return { left: 0, top: 0 };
  }

  // Shadows on the sides that have more to scroll to: the cue that a figure continues.
  paintEdges(context, theme, view) {
    const host = this.host;
    const { left, top } = this.gutters();
    const { width, height } = this.size;
    const more = {
      left: host.scrollLeft > 0, right: host.scrollLeft + host.clientWidth < width - 1,
      top: host.scrollTop > 0, bottom: host.scrollTop + host.clientHeight < height - 1,
    };
    host.dataset.overflow = Object.keys(more).filter((side) => more[side]).join(' ');
    const shade = 18;
    for (const [side, on] of Object.entries(more)) {
      if (!on) continue;
      const horizontal = side === 'left' || side === 'right';
      const from = { left, top, right: view.width, bottom: view.height }[side];
      const to = side === 'right' || side === 'bottom' ? from - shade : from + shade;
      const gradient = horizontal ? context.createLinearGradient(from, 0, to, 0) : context.createLinearGradient(0, from, 0, to);
      gradient.addColorStop(0, theme.muted);
      gradient.addColorStop(1, 'transparent');
      context.globalAlpha = 0.5;
      context.fillStyle = gradient;
      if (horizontal) context.fillRect(Math.min(from, to), top, shade, view.height - top);
      else context.fillRect(left, Math.min(from, to), view.width - left, shade);
      context.globalAlpha = 1;
    }
  }
}
