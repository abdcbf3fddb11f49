// Every heatmap on the page, and the line view. The attention matrix P[t][s] (target rows, source
// columns, as in Bahdanau et al.'s figures) is painted on a canvas: the cells from one bitmap (one
// pixel per cell, scaled), labels, links and highlights from the geometry, so a 2048 x 2048 matrix
// costs what a 10 x 10 one does. The canvas sits still (position: sticky) over a plane as large as
// the figure, so the figure scrolls natively (scrollbars, touch, wheel) and only what is in view
// is painted. The same painter writes the SVG and PNG exports (export.mjs) through a second surface.
// Labels are only ever text drawn by the canvas or set with textContent: hostile text stays text.
import { colourInto, colourMap, colourTable, rgb, textColourFor } from './colormap.mjs';
import { shortLabel } from './text.mjs';

export const FONT_SIZE = 11;
export const GAP_FROM = 10;      // cells this large (pixels) show a one-pixel gap between them
export const OUTLINE_FROM = 6;   // ... and a link as an outline; smaller ones fill the cell
const DEFAULT_CELL = (cols) => Math.max(14, Math.min(44, Math.floor(640 / Math.max(cols, 1))));
const MIN_CELL = 0.05, MAX_CELL = 64;

// The page's colours, from its CSS custom properties (style.css: light and dark in one place).
export function themeOf(element) {
  const style = getComputedStyle(element);
  const value = (name) => style.getPropertyValue(name).trim();
  return {
    fg: value('--fg'), bg: value('--bg'), muted: value('--muted'), accent: value('--accent'), link: value('--link'),
    gold: value('--gold'), border: value('--border'), font: style.fontFamily,
  };
}

const fontOf = (theme, { bold = false, size = FONT_SIZE } = {}) => `${bold ? '700 ' : ''}${size}px ${theme.font}`;

/**
 * The geometry of a figure drawn with cells of `cell` pixels: label gutters (left: row labels,
 * top: column labels at 45 degrees), the whole size, and the stride at which labels still fit.
 * measure(text) gives a label's width in pixels.
 */
export function layoutFigure(figure, cell, measure) {
  const rowText = figure.rowLabels.map((word) => shortLabel(word));
  const colText = figure.colLabels.map((word) => shortLabel(word));
  const widest = (texts) => texts.reduce((most, text) => Math.max(most, measure(text)), 20);
  const left = Math.ceil(Math.min(140, widest(rowText)) + 12);
  const top = Math.ceil(Math.min(110, widest(colText) * 0.72 + 14));
  return {
    cell, left, top, rowText, colText,
    width: left + figure.cols * cell, height: top + figure.rows * cell,
    stride: Math.max(1, Math.ceil((FONT_SIZE + 3) / cell)),
  };
}

// The link keys of a figure ([source, target] pairs) as a set of t * cols + s, for lookups.
const keysOf = (pairs, cols) => new Set(pairs.map(([s, t]) => t * cols + s));

/**
 * Paints a heatmap figure on a surface (CanvasSurface or export.mjs's SvgSurface).
 * view: {x, y, width, height}, the part of the figure in view (x, y: how far it is scrolled); the
 * label gutters stay put. state: {row, col} highlighted, {focus: [t, s]} the keyboard's cell.
 */
export function paintHeatmap(surface, figure, layout, theme, view, state = {}) {
  const { cell, left, top, stride } = layout;
  const { rows, cols, weights } = figure;
  const x = (s) => left + s * cell - view.x, y = (t) => top + t * cell - view.y;
  const s0 = Math.max(0, Math.floor(view.x / cell)), s1 = Math.min(cols, Math.ceil((view.x + view.width - left) / cell));
  const t0 = Math.max(0, Math.floor(view.y / cell)), t1 = Math.min(rows, Math.ceil((view.y + view.height - top) / cell));
  const highlighting = state.row >= 0 || state.col >= 0;
  surface.fill(0, 0, view.width, view.height, theme.bg);
  surface.clip(left, top, view.width - left, view.height - top, () => {
    surface.cells(figure, { x: x(s0), y: y(t0), cell, s0, s1, t0, t1 }, theme);
    if ((figure.showValues ?? cell >= 30) && cell >= 24) {
      const map = colourMap(figure.colormap);
      for (let t = t0; t < t1; t++) {
        for (let s = s0; s < s1; s++) {
          const value = weights[t * cols + s];
          surface.text(value.toFixed(2), x(s) + cell / 2, y(t) + cell / 2 + 4, { fill: textColourFor(map(value)), anchor: 'middle', className: 'cell-value' });
        }
      }
    }
    const visible = ([s, t]) => s >= s0 && s < s1 && t >= t0 && t < t1;
    for (const [s, t] of (figure.gold ?? []).filter(visible)) surface.triangle(goldCorner(x(s), y(t), cell), theme.gold, 'gold');
    for (const [s, t] of (figure.hideLinks ? [] : figure.links).filter(visible)) surface.mark(x(s), y(t), cell, theme.link, 'link-mark', cell >= 10 ? 2 : 1);
    if (highlighting) {  // everything but the highlighted row or column fades
      for (let t = t0; t < t1; t++) if (t !== state.row && state.col < 0) surface.veil(x(s0), y(t), (s1 - s0) * cell, cell, theme.bg);
      if (state.col >= 0) {
        for (let s = s0; s < s1; s++) if (s !== state.col) surface.veil(x(s), y(t0), cell, (t1 - t0) * cell, theme.bg);
      }
    }
    if (state.focus) {
      const [t, s] = state.focus;
      surface.outline(x(s) - 1, y(t) - 1, cell + 1, cell + 1, theme.accent, 3);
    }
  });
  const labelStyle = (on) => (on ? { fill: theme.accent, bold: true } : { fill: theme.fg });
  surface.clip(0, top, left, view.height - top, () => {
    for (let t = t0; t < t1; t++) {
      if (t % stride && t !== state.row) continue;
      surface.text(layout.rowText[t], left - 6, y(t) + cell / 2 + 4, { anchor: 'end', className: 'label row-label', ...labelStyle(t === state.row) });
    }
  });
  surface.clip(0, 0, view.width, top, () => {
    for (let s = s0; s < s1; s++) {
      if (s % stride && s !== state.col) continue;
      const cx = x(s) + cell / 2;
      if (cx < left) continue;
      surface.text(layout.colText[s], cx, top - 6, { anchor: 'start', rotate: -45, className: 'label col-label', ...labelStyle(s === state.col) });
    }
  });
}

/**
 * A gold link's mark: a triangle in the cell's top-left corner (its legs 45% of the cell, at least
 * 4 px; the lower-left half of a cell too small for that), so that it differs from a link's
 * outline in shape, not only in colour. [[x, y], ...] for surface.triangle.
 */
export function goldCorner(x, y, cell) {
  const leg = cell < OUTLINE_FROM ? Math.max(cell, 2) : Math.max(4, Math.round(cell * 0.45));
  return [[x, y], [x + leg, y], [x, y + leg]];
}

/** The colour legend: the map from 0 to 1, and what a link (and a gold link) looks like. */
export function paintLegend(surface, theme, { colormap, links = true, gold = false, width = 140 }) {
  const map = colourMap(colormap);
  const steps = 32, bar = width / steps;
  for (let i = 0; i < steps; i++) surface.fill(i * bar, 0, bar + 0.5, 12, rgb(map((i + 0.5) / steps)));
  for (const [value, anchor] of [[0, 'start'], [0.5, 'middle'], [1, 'end']]) {
    surface.text(String(value), value * width, 26, { fill: theme.fg, anchor });
  }
  let at = width + 16;
  const marks = [...(links ? [['link', theme.link, 2, 'legend-link']] : []), ...(gold ? [['gold link', theme.gold, 0, 'legend-gold']] : [])];
  for (const [what, colour, inset, kind] of marks) {
    surface.fill(at, 0, 14, 14, rgb(map(0.5)));
    if (kind === 'legend-gold') surface.triangle(goldCorner(at, 0, 14), colour, kind);
    else surface.mark(at, 0, 14, colour, kind, inset);
    surface.text(what, at + 19, 11, { fill: theme.fg, anchor: 'start' });
    at += 28 + what.length * 6;
  }
  return { width: at, height: 30 };
}

// The canvas side of the painter's surface. Cells come from the figure's bitmap, one pixel a cell.
export class CanvasSurface {
  constructor(context, theme, bitmap) {
    Object.assign(this, { context, theme, bitmap });
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
    this.context.strokeRect(x + lineWidth / 2, y + lineWidth / 2, width - lineWidth, height - lineWidth);
  }

  // A link on a cell: an outline inset from its edge; a filled square where cells are too small.
  mark(x, y, cell, colour, _kind, inset) {
    if (cell < OUTLINE_FROM) this.fill(x, y, Math.max(cell, 2), Math.max(cell, 2), colour);
    else this.outline(x + inset, y + inset, cell - 1 - 2 * inset, cell - 1 - 2 * inset, colour, 2);
  }

  triangle(points, colour) {
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
async function cellBitmap({ weights, rows, cols, colormap }) {
  const table = colourTable(colormap);
  const pixels = new Uint32Array(weights.length);
  const slice = 1 << 18;
  for (let from = 0; from < weights.length; from += slice) {
    if (from) await new Promise((resolve) => setTimeout(resolve));
    colourInto(pixels, weights, table, from, Math.min(weights.length, from + slice));
  }
  return createImageBitmap(new ImageData(new Uint8ClampedArray(pixels.buffer), cols, rows));
}

// A measuring function for layoutFigure, in the canvas's label font.
export function measurer(theme) {
  const context = measurer.context ??= new OffscreenCanvas(1, 1).getContext('2d');
  context.font = fontOf(theme);
  return (text) => context.measureText(text).width;
}

// -------------------------------------------------------------------------------------------
// On the page: a canvas over a scrolling plane.

const figures = new WeakMap();  // host element -> its Heatmap or LineView (heatmapOf, for tests and exports)
export const heatmapOf = (element) => figures.get(element);

const dark = matchMedia('(prefers-color-scheme: dark)');

// Sizes a canvas to width x height CSS pixels at the screen's density; its context draws in CSS pixels.
function fitCanvas(canvas, width, height) {
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

class CanvasFigure {
  constructor(host) {
    this.host = host;
    figures.set(host, this);
    this.plane = Object.assign(document.createElement('div'), { className: 'plane' });
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('aria-hidden', 'true');
    this.plane.append(this.canvas);
    host.replaceChildren(this.plane);
    this.frame = 0;
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

  afterPaint() {}

  // Where the scrolling part of the figure starts (a heatmap's labels stay put left of and above it).
  gutters() {
    return { left: 0, top: 0 };
  }

  // Shadows on the sides that have more to scroll to: the cue that a figure continues.
  paintEdges(context, theme, view) {
    const host = this.host;
    const { left, top } = this.gutters();
    const more = {
      left: host.scrollLeft > 0, right: host.scrollLeft + host.clientWidth < host.scrollWidth - 1,
      top: host.scrollTop > 0, bottom: host.scrollTop + host.clientHeight < host.scrollHeight - 1,
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

/**
 * A heatmap on the page: new Heatmap(host, {label}) takes an empty element (its id, data-rows and
 * data-cols stay on it) and builds around it a toolbar (legend, zoom, overview) and a readout. The
 * host is the one tab stop: arrow keys move between cells, whose values the readout announces.
 * draw(figure) shows {weights: [rows * cols], rows, cols, rowLabels, colLabels, links: [[s, t]],
 * gold?: [[s, t]], colormap, showValues?, title?}; clear() shows nothing (data-rows 0).
 */
export class Heatmap extends CanvasFigure {
  constructor(host, { label = 'attention heatmap', onSpot = () => {} } = {}) {
    super(host);
    this.label = label;
    this.onSpot = onSpot;  // the highlighted row or column changed: {row, col}
    this.figure = null;
    this.zoom = null;      // cell size chosen by the reader; null: the default for the figure's size
    this.spot = {};
    this.focusCell = null;
    this.generation = 0;
    this.buildChrome();
    this.listen();
    this.clear();
  }

  buildChrome() {
    const host = this.host;
    host.classList.add('heatmap');
    host.tabIndex = 0;
    host.setAttribute('role', 'application');
    host.setAttribute('aria-roledescription', 'heatmap');
    host.setAttribute('aria-label', `${this.label}. Arrow keys move between cells; plus and minus zoom.`);
    const make = (tag, className, text) => Object.assign(document.createElement(tag), { className, ...(text ? { textContent: text } : {}) });
    this.wrapper = make('div', 'figure-frame');
    this.toolbar = make('div', 'figure-toolbar');
    this.legend = make('canvas', 'legend');
    this.legend.id = `${host.id}-legend`;
    this.legend.setAttribute('role', 'img');
    const zoom = make('div', 'zoom');
    zoom.setAttribute('role', 'group');
    zoom.setAttribute('aria-label', 'zoom');
    const button = (text, title, action) => {
      const b = make('button', '', text);
      b.type = 'button';
      b.title = title;
      b.setAttribute('aria-label', title);
      b.addEventListener('click', action);
      zoom.append(b);
    };
    button('−', 'zoom out', () => this.zoomBy(1 / 1.5));
    button('+', 'zoom in', () => this.zoomBy(1.5));
    button('fit', 'fit the whole matrix', () => this.fit());
    this.hint = make('span', 'scroll-hint', 'scroll or drag to see the rest');
    this.overview = make('canvas', 'overview');
    this.overview.setAttribute('aria-hidden', 'true');
    this.overview.title = 'the whole matrix: click to move there';
    this.toolbar.append(this.legend, zoom, this.hint, this.overview);
    this.readout = make('p', 'readout');
    this.readout.id = `${host.id}-readout`;
    this.readout.setAttribute('aria-live', 'polite');
    host.setAttribute('aria-describedby', this.readout.id);
    host.replaceWith(this.wrapper);
    this.wrapper.append(this.toolbar, host, this.readout);
  }

  listen() {
    const host = this.host;
    host.addEventListener('keydown', (event) => this.key(event));
    // Focus from the keyboard starts on the first cell in view; a click chooses its own.
    host.addEventListener('focus', () => {
      if (!this.figure || this.focusCell || !host.matches(':focus-visible')) return;
      const { cell } = this.layout;
      this.moveFocus(Math.min(this.figure.rows - 1, Math.ceil(host.scrollTop / cell)), Math.min(this.figure.cols - 1, Math.ceil(host.scrollLeft / cell)));
    });
    host.addEventListener('pointermove', (event) => this.pointer(event));
    host.addEventListener('pointerleave', () => { if (!this.dragging) this.setSpot(this.focusCell ? { row: this.focusCell[0] } : {}, true); });
    host.addEventListener('pointerdown', (event) => {
      // a finger or a pen scrolls the figure natively; one that lifts where it landed taps a cell
      if (event.pointerType !== 'mouse') this.tap = { x: event.clientX, y: event.clientY, id: event.pointerId };
      if (event.pointerType !== 'mouse' || event.button !== 0) return;
      this.dragging = { x: event.clientX, y: event.clientY, left: host.scrollLeft, top: host.scrollTop, moved: false };
      host.setPointerCapture(event.pointerId);
    });
    host.addEventListener('pointercancel', () => { this.tap = null; });  // the browser took it to scroll
    host.addEventListener('pointerup', (event) => {
      const tap = this.tap;
      this.tap = null;
      if (tap && tap.id === event.pointerId && Math.hypot(event.clientX - tap.x, event.clientY - tap.y) < 10) {
        const spot = this.spotAt(event);
        if (spot && spot.cell) this.moveFocus(spot.row, spot.col);
        return;
      }
      const drag = this.dragging;
      this.dragging = null;
      if (drag && !drag.moved) {
        const spot = this.spotAt(event);
        if (spot && spot.cell) this.moveFocus(spot.row, spot.col);
      }
    });
    host.addEventListener('wheel', (event) => {
      if (!event.ctrlKey || !this.figure) return;
      event.preventDefault();
      this.zoomBy(event.deltaY < 0 ? 1.25 : 0.8, event);
    }, { passive: false });
    const jump = (event) => {
      if (!this.figure || (event.type === 'pointermove' && !(event.buttons & 1))) return;  // a move only while pressed
      const box = this.overview.getBoundingClientRect();
      const fx = (event.clientX - box.left) / box.width, fy = (event.clientY - box.top) / box.height;
      const { cell, left, top } = this.layout;
      host.scrollLeft = fx * this.figure.cols * cell + left - host.clientWidth / 2;
      host.scrollTop = fy * this.figure.rows * cell + top - host.clientHeight / 2;
    };
    this.overview.addEventListener('pointerdown', jump);
    this.overview.addEventListener('pointermove', jump);
  }

  clear() {
    this.generation++;
    this.figure = null;
    this.bitmap = null;
    this.focusCell = null;
    this.spot = {};
    this.size = null;
    this.wrapper.hidden = true;
    this.readout.textContent = '';
    Object.assign(this.host.dataset, { rows: '0', cols: '0', links: '0' });
    delete this.host.dataset.focusRow;
    delete this.host.dataset.focusCol;
  }

  /** Shows a figure; resolves once it is painted (then data-rows / data-cols say its size). */
  async draw(figure) {
    const generation = ++this.generation;
    const previous = this.figure;
    const sameCells = previous && previous.weights === figure.weights && previous.colormap === figure.colormap;
    const bitmap = sameCells ? this.bitmap : await cellBitmap(figure);
    if (generation !== this.generation) return false;  // a later draw() or clear() came first
    const reshaped = !previous || previous.rows !== figure.rows || previous.cols !== figure.cols;
    this.figure = figure;
    this.bitmap = bitmap;
    this.linkKeys = keysOf(figure.links, figure.cols);
    this.goldKeys = keysOf(figure.gold ?? [], figure.cols);
    this.overviewImage = null;
    if (reshaped) {
      this.focusCell = null;
      this.spot = {};
      if (previous && typeof this.zoom === 'number') {  // a zoom chosen for another size
        this.zoom = null;
        this.host.dispatchEvent(new Event('change', { bubbles: true }));
      }
    }
    this.wrapper.hidden = false;
    this.relayout();
    Object.assign(this.host.dataset, { rows: String(figure.rows), cols: String(figure.cols), links: String(figure.links.length) });
    this.paintNow();
    this.paintLegend();
    if (this.focusCell) this.announce(...this.focusCell);
    this.host.dataset.drawnAt = String(performance.now());
    return true;
  }

  // The cell size for the reader's zoom: the default, 'fit' (all of it in view) or a number.
  cellSize() {
    const { rows, cols } = this.figure;
    if (typeof this.zoom === 'number') return this.zoom;
    const big = rows * cols > 160 * 160;
    if (this.zoom !== 'fit' && !big) return DEFAULT_CELL(cols);
    const room = Math.max(120, (this.wrapper.clientWidth || this.host.clientWidth) - 150);
    const height = Math.max(160, window.innerHeight * 0.7 - 120);
    return Math.max(MIN_CELL, Math.min(DEFAULT_CELL(cols), room / cols, height / rows));
  }

  relayout() {
    const theme = themeOf(this.host);
    this.layout = layoutFigure(this.figure, this.cellSize(), measurer(theme));
    this.resize(this.layout.width, this.layout.height);
    this.host.dataset.cell = String(this.layout.cell);
  }

  // Zooms by a factor about the pointer (or the middle of the view), keeping that point in place.
  zoomBy(factor, at) {
    if (!this.figure) return;
    const host = this.host, old = this.layout;
    const box = host.getBoundingClientRect();
    const px = at ? at.clientX - box.left : host.clientWidth / 2, py = at ? at.clientY - box.top : host.clientHeight / 2;
    const fs = (host.scrollLeft + px - old.left) / old.cell, ft = (host.scrollTop + py - old.top) / old.cell;
    this.zoom = Math.max(MIN_CELL, Math.min(MAX_CELL, old.cell * factor));
    this.relayout();
    host.scrollLeft = fs * this.layout.cell + this.layout.left - px;
    host.scrollTop = ft * this.layout.cell + this.layout.top - py;
    this.afterZoom();
  }

  fit() {
    if (!this.figure) return;
    this.zoom = 'fit';
    this.relayout();
    this.afterZoom();
  }

  // The reader's zoom as the URL hash keeps it ('' for the default), and back.
  get zoomState() {
    return this.zoom === null ? '' : this.zoom === 'fit' ? 'fit' : String(+this.zoom.toFixed(2));
  }

  set zoomState(value) {
    const number = Number(value);
    this.zoom = value === 'fit' ? 'fit' : value && Number.isFinite(number) ? Math.max(MIN_CELL, Math.min(MAX_CELL, number)) : null;
    if (this.figure) {
      this.relayout();
      this.afterZoom(false);
    }
  }

  afterZoom(tell = true) {
    this.paintNow();
    if (tell) this.host.dispatchEvent(new Event('change', { bubbles: true }));  // the URL hash keeps the zoom
  }

  gutters() {
    return this.layout ? { left: this.layout.left, top: this.layout.top } : super.gutters();
  }

  paint(surface, theme, view) {
    if (!this.figure) return;
    paintHeatmap(surface, this.figure, this.layout, theme, view, { ...this.spot, focus: this.focusCell });
  }

  paintLegend() {
    const theme = themeOf(this.host);
    const gold = (this.figure.gold ?? []).length > 0;
    const width = gold ? 290 : 220;
    const context = fitCanvas(this.legend, width, 30);
    context.clearRect(0, 0, width, 30);
    const links = this.figure.links.length > 0 && !this.figure.hideLinks;
    paintLegend(new CanvasSurface(context, theme), theme, { colormap: this.figure.colormap, links, gold, width: 120 });
    const [low, high] = { gray: ['white', 'black'], bahdanau: ['black', 'white'] }[this.figure.colormap] ?? ['dark purple', 'yellow'];
    this.legend.setAttribute('aria-label', `colour legend: ${low} is 0, ${high} is 1${links ? '; links are outlined' : ''}${gold ? ', gold links are gold corner triangles' : ''}`);
  }

  // The whole matrix in small, with the part in view framed; only when it does not all fit.
  afterPaint(theme) {
    if (!this.figure || !this.bitmap) return;
    const host = this.host;
    const overflowing = host.scrollWidth > host.clientWidth + 1 || host.scrollHeight > host.clientHeight + 1;
    this.hint.hidden = !overflowing;
    this.overview.hidden = !overflowing || Math.max(this.figure.rows, this.figure.cols) < 20;  // small ones scroll a little, no map needed
    if (this.overview.hidden) return;
    const { rows, cols } = this.figure;
    const scale = 110 / Math.max(rows, cols);
    const width = Math.max(8, Math.round(cols * scale)), height = Math.max(8, Math.round(rows * scale));
    const context = fitCanvas(this.overview, width, height);
    if (!this.overviewImage) {  // the matrix scaled down once, not at every scroll
      this.overviewImage = new OffscreenCanvas(width, height);
      this.overviewImage.getContext('2d').drawImage(this.bitmap, 0, 0, width, height);
    }
    context.drawImage(this.overviewImage, 0, 0, width, height);
    const { cell, left, top } = this.layout;
    const fx = width / (cols * cell), fy = height / (rows * cell);
    context.strokeStyle = theme.accent;
    context.lineWidth = 2;
    context.strokeRect(host.scrollLeft * fx, host.scrollTop * fy, (host.clientWidth - left) * fx, (host.clientHeight - top) * fy);
  }

  // Where an event points: a row label, a column label or a cell (null outside the figure).
  spotAt(event) {
    if (!this.figure) return null;
    const box = this.host.getBoundingClientRect();
    const px = event.clientX - box.left - this.host.clientLeft, py = event.clientY - box.top - this.host.clientTop;
    const { cell, left, top } = this.layout;
    const s = Math.floor((px + this.host.scrollLeft - left) / cell), t = Math.floor((py + this.host.scrollTop - top) / cell);
    const inRows = t >= 0 && t < this.figure.rows, inCols = s >= 0 && s < this.figure.cols;
    if (px < left && inRows) return { row: t, col: -1 };
    if (py < top && inCols) return { row: -1, col: s };
    if (px >= left && py >= top && inRows && inCols) return { row: t, col: s, cell: true };
    return null;
  }

  pointer(event) {
    const drag = this.dragging;
    if (drag) {
      const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        this.host.scrollLeft = drag.left - dx;
        this.host.scrollTop = drag.top - dy;
      }
      return;
    }
    const spot = this.spotAt(event);
    if (!spot) return;
    if (spot.cell) this.describe(spot.row, spot.col);
    this.setSpot(spot.cell ? { row: spot.row } : { row: spot.row, col: spot.col }, true);
  }

  /** Highlights a target row or a source column ({} clears); tell: let onSpot know (a linked view). */
  setSpot({ row = -1, col = -1 } = {}, tell = false) {
    if (row === (this.spot.row ?? -1) && col === (this.spot.col ?? -1)) return;
    this.spot = { row, col };
    this.invalidate();
    if (tell) this.onSpot(this.spot);
  }

  key(event) {
    if (!this.figure) return;
    const { rows, cols } = this.figure;
    const [t, s] = this.focusCell ?? [0, 0];
    const page = Math.max(1, Math.floor((this.host.clientHeight - this.layout.top) / this.layout.cell) - 1);
    const moves = {
      ArrowLeft: [t, s - 1], ArrowRight: [t, s + 1], ArrowUp: [t - 1, s], ArrowDown: [t + 1, s],
      Home: event.ctrlKey ? [0, 0] : [t, 0], End: event.ctrlKey ? [rows - 1, cols - 1] : [t, cols - 1],
      PageUp: [t - page, s], PageDown: [t + page, s],
    };
    if (moves[event.key]) {
      event.preventDefault();
      const [nt, ns] = moves[event.key];
      this.moveFocus(Math.max(0, Math.min(rows - 1, nt)), Math.max(0, Math.min(cols - 1, ns)));
    } else if (event.key === '+' || event.key === '=') {
      event.preventDefault();
      this.zoomBy(1.5);
    } else if (event.key === '-') {
      event.preventDefault();
      this.zoomBy(1 / 1.5);
    } else if (event.key === '0') {
      event.preventDefault();
      this.fit();
    } else if (event.key === 'Escape' && this.focusCell) {
      this.focusCell = null;
      this.setSpot({}, true);
      this.invalidate();
    }
  }

  // The keyboard's cell: framed, its row highlighted, scrolled into view, its value announced.
  moveFocus(t, s) {
    this.focusCell = [t, s];
    this.host.dataset.focusRow = String(t);
    this.host.dataset.focusCol = String(s);
    const { cell, left, top } = this.layout;
    const host = this.host;
    const x = left + s * cell, y = top + t * cell;
    if (x - left < host.scrollLeft) host.scrollLeft = x - left;
    else if (x + cell > host.scrollLeft + host.clientWidth) host.scrollLeft = x + cell - host.clientWidth;
    if (y - top < host.scrollTop) host.scrollTop = y - top;
    else if (y + cell > host.scrollTop + host.clientHeight) host.scrollTop = y + cell - host.clientHeight;
    this.announce(t, s);
    this.setSpot({ row: t }, true);
    this.invalidate();
  }

  describe(t, s) {
    const { rowLabels, colLabels, weights, cols, rows } = this.figure;
    const key = t * cols + s;
    const marks = [this.linkKeys.has(key) ? 'link' : '', this.goldKeys.has(key) ? 'gold link' : ''].filter(Boolean);
    const text = `${rowLabels[t]} ← ${colLabels[s]}: ${weights[key].toFixed(3)}${marks.length ? ` (${marks.join(', ')})` : ''}`;
    this.readout.textContent = `${text} · row ${t + 1} of ${rows}, column ${s + 1} of ${cols}`;
  }

  announce(t, s) {
    if (this.figure && t < this.figure.rows && s < this.figure.cols) this.describe(t, s);
  }
}

/**
 * The line view: source words on top, target words below, one line per kept weight (opacity =
 * weight); each target word keeps its topK strongest source words above `minimum`, links in the
 * link colour. Painted like the heatmap: only the lines that cross the part in view.
 */
export class LineView extends CanvasFigure {
  constructor(host, { onSpot = () => {} } = {}) {
    super(host);
    this.onSpot = onSpot;
    this.spot = {};
    host.tabIndex = 0;  // scrolls with the arrow keys
    host.addEventListener('pointermove', (event) => {
      const row = this.rowAt(event);
      if (row !== (this.spot.row ?? -1)) {
        this.setSpot({ row });
        this.onSpot(this.spot);
      }
    });
    host.addEventListener('pointerleave', () => { this.setSpot({}); this.onSpot({}); });
    // the legend under the lines: what a line, its darkness and its colour say
    this.legend = Object.assign(document.createElement('p'), { className: 'line-legend' });
    host.after(this.legend);
    this.clear();
  }

  clear() {
    this.lines = null;
    this.size = null;
    this.host.hidden = true;
    this.legend.hidden = true;
    this.host.dataset.lines = '0';
  }

  // The legend's words for this drawing: how many lines a word keeps, and which colour is a link.
  describe(topK, minimum, links) {
    const swatch = (kind, text) => {
      const item = Object.assign(document.createElement('span'), { className: `swatch ${kind}` });
      return [item, ` ${text} `];
    };
    this.legend.replaceChildren(
      `Each target word (below) joins the ${topK} source words (above) it attends to most, where the weight is at least ${minimum}; the darker the line, the more attention. `,
      ...(links ? swatch('swatch-link', 'an alignment link') : []), ...swatch('swatch-attention', 'attention only'));
    this.legend.hidden = false;
  }

  draw({ weights, rows, cols, rowLabels, colLabels, links = [], topK = 3, minimum = 0.05 }) {
    const theme = themeOf(this.host);
    const measure = measurer(theme);
    const positions = (labels) => {
      let x = 10;
      return labels.map((word) => {
        const text = shortLabel(word);
        const width = measure(text) + 14;
        const centre = x + width / 2;
        x += width;
        return { text, centre };
      });
    };
    const source = positions(colLabels), target = positions(rowLabels);
    const linked = keysOf(links, cols);
    const lines = [];
    for (let t = 0; t < rows; t++) {
      const best = [];  // the row's topK strongest columns, strongest first: one pass, no sort of the row
      for (let s = 0; s < cols; s++) {
        const weight = weights[t * cols + s];
        if (weight < minimum || (best.length === topK && weight <= best[topK - 1].weight)) continue;
        best.splice(best.findIndex((line) => line.weight < weight) >>> 0, 0, { s, t, weight, link: linked.has(t * cols + s) });
        if (best.length > topK) best.pop();
      }
      lines.push(...best);
    }
    this.lines = { source, target, lines };
    this.host.hidden = false;
    this.resize(Math.max(source.at(-1)?.centre ?? 0, target.at(-1)?.centre ?? 0) + 60, 150);
    this.host.dataset.lines = String(lines.length);
    this.describe(topK, minimum, links.length > 0);
    this.paintNow();
  }

  setSpot(spot) {
    this.spot = spot;
    this.invalidate();
  }

  rowAt(event) {
    if (!this.lines) return -1;
    const box = this.host.getBoundingClientRect();
    const x = event.clientX - box.left + this.host.scrollLeft;
    let best = -1, distance = 30;
    this.lines.target.forEach(({ centre }, t) => { if (Math.abs(centre - x) < distance) [best, distance] = [t, Math.abs(centre - x)]; });
    return event.clientY - box.top > 75 ? best : -1;
  }

  paint(surface, theme, view) {
    if (!this.lines) return;
    const { source, target, lines } = this.lines;
    const row = this.spot.row ?? -1;
    const shift = (x) => x - view.x;
    surface.fill(0, 0, view.width, view.height, theme.bg);
    for (const { s, t, weight, link } of lines) {
      const x1 = shift(source[s].centre), x2 = shift(target[t].centre);
      if (Math.max(x1, x2) < 0 || Math.min(x1, x2) > view.width) continue;
      const faded = row >= 0 && t !== row;
      surface.line(x1, 30, x2, 120, link ? theme.link : theme.accent, 2, faded ? 0.05 : Math.min(1, weight));
    }
    const label = (items, y, highlighted) => items.forEach(({ text, centre }, i) => {
      const x = shift(centre);
      if (x < -150 || x > view.width + 150) return;
      const on = i === highlighted;
      surface.text(text, x, y, { anchor: 'middle', fill: on ? theme.accent : theme.fg, bold: on });
    });
    label(source, 20, -1);
    label(target, 140, row);
  }
}
