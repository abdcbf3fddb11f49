// The heatmap's painter, surface-independent: a figure's layout (labels, cells, gutters), its
// cells, links, gold links, highlights and values, and the colour legend, drawn through a surface
// (canvas.mjs's CanvasSurface on the page and in PNG exports, export.mjs's SVG surface), so the
// page and every export follow the same drawing rules, each stated once here.
// Labels are only ever text drawn by a surface: hostile text stays text.
import { colourMap, rgb, textColourFor } from './colormap.mjs';
import { shortLabel } from './text.mjs';

export const FONT_SIZE = 11;
export const GAP_FROM = 10;      // cells this large (pixels) show a one-pixel gap between them
export const OUTLINE_FROM = 6;   // ... and a link as an outline; smaller ones fill the cell
// The cell size (pixels) a figure of `cols` columns is drawn at unless zoomed: what the page starts
// at and what the exports use.
export const DEFAULT_CELL = (cols) => Math.max(14, Math.min(44, Math.floor(640 / Math.max(cols, 1))));
export const MIN_CELL = 0.05, MAX_CELL = 64;

// A link's mark on the cell at (x, y), for every surface: a filled square where cells are too small
// for an outline (OUTLINE_FROM), else a rectangle inset from the cell's edge, stroked LINK_WIDTH wide.
export const LINK_WIDTH = 2;
export function markOf(x, y, cell, inset) {
  if (cell < OUTLINE_FROM) return { filled: true, x, y, width: Math.max(cell, 2), height: Math.max(cell, 2) };
  return { filled: false, x: x + inset, y: y + inset, width: cell - 1 - 2 * inset, height: cell - 1 - 2 * inset };
}

// The rectangle an outline of the box (x, y, width, height) strokes, so that its line stays inside.
export const strokedBox = (x, y, width, height, lineWidth) =>
  ({ x: x + lineWidth / 2, y: y + lineWidth / 2, width: width - lineWidth, height: height - lineWidth });

// The page's colours, from its CSS custom properties (style.css: light and dark in one place).
export function themeOf(element) {
  const style = getComputedStyle(element);
  const value = (name) => style.getPropertyValue(name).trim();
  return {
    fg: value('--fg'), bg: value('--bg'), muted: value('--muted'), accent: value('--accent'), link: value('--link'),
    gold: value('--gold'), border: value('--border'), font: style.fontFamily,
  };
}

export const fontOf = (theme, { bold = false, size = FONT_SIZE } = {}) => `${bold ? '700 ' : ''}${size}px ${theme.font}`;

/**
 * The geometry of a figure drawn with cells of `cell` pixels: label gutters (left: row labels,
 * top: column labels at 45 degrees, right: room for the last column labels' slant), the whole
 * size, and the stride at which labels still fit. Where labels are thinned (a stride over 1) each
 * label starts with its index, counted from 0, so a reader knows which row or column it names.
 * measure(text) gives a label's width in pixels.
 */
export function layoutFigure(figure, cell, measure) {
  const stride = Math.max(1, Math.ceil((FONT_SIZE + 3) / cell));
  const label = (word, i) => (stride > 1 ? `${i} ${shortLabel(word)}` : shortLabel(word));
  const rowText = figure.rowLabels.map(label);
  const colText = figure.colLabels.map(label);
  const widest = (texts) => texts.reduce((most, text) => Math.max(most, measure(text)), 20);
  const left = Math.ceil(Math.min(140, widest(rowText)) + 12);
  const top = Math.ceil(Math.min(110, widest(colText) * 0.72 + 14));
  // a label drawn at 45 degrees reaches 0.71 of its width to the right of its column's middle
  let right = 0;
  for (let s = Math.max(0, figure.cols - 40); s < figure.cols; s += 1) {
    if (s % stride) continue;
    right = Math.max(right, Math.min(110, measure(colText[s]) * 0.72 + 4) - (figure.cols - s - 0.5) * cell);
  }
  return {
    cell, left, top, rowText, colText,
    width: left + figure.cols * cell + Math.ceil(right), height: top + figure.rows * cell, stride,
  };
}

// The link keys of a figure ([source, target] pairs) as a set of t * cols + s, for lookups.
export const keysOf = (pairs, cols) => new Set(pairs.map(([s, t]) => t * cols + s));

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

// A label's width in legend steps: a wide (CJK) character counts two.
const legendWidth = (text) => [...text].reduce((sum, character) => sum + (character.codePointAt(0) >= 0x2e80 ? 2 : 1), 0);

/**
 * The colour legend: the map from 0 to 1, and what a link (and a gold link) looks like, named by
 * `labels` (the page passes them in the interface's language).
 * @param {any} surface a canvas.mjs CanvasSurface or an export.mjs SVG surface @param {any} theme
 * @param {{colormap: string, links?: boolean, gold?: boolean, width?: number, labels?: {link: string, gold: string}}} options
 */
export function paintLegend(surface, theme, { colormap, links = true, gold = false, width = 140, labels = { link: 'link', gold: 'gold link' } }) {
  const map = colourMap(colormap);
  const steps = 32, bar = width / steps;
  for (let i = 0; i < steps; i++) surface.fill(i * bar, 0, bar + 0.5, 12, rgb(map((i + 0.5) / steps)));
  for (const [value, anchor] of /** @type {[number, string][]} */ ([[0, 'start'], [0.5, 'middle'], [1, 'end']])) {
    surface.text(String(value), value * width, 26, { fill: theme.fg, anchor });
  }
  let at = width + 16;
  const marks = [...(links ? [[labels.link, theme.link, 2, 'legend-link']] : []), ...(gold ? [[labels.gold, theme.gold, 0, 'legend-gold']] : [])];
  for (const [what, colour, inset, kind] of marks) {
    surface.fill(at, 0, 14, 14, rgb(map(0.5)));
    if (kind === 'legend-gold') surface.triangle(goldCorner(at, 0, 14), colour, kind);
    else surface.mark(at, 0, 14, colour, kind, inset);
    surface.text(what, at + 19, 11, { fill: theme.fg, anchor: 'start' });
    at += 28 + legendWidth(what) * 6;
  }
  return { width: at, height: 30 };
}

/** @type {OffscreenCanvasRenderingContext2D | null} */
let measuring = null;

// A measuring function for layoutFigure, in the canvas's label font.
export function measurer(theme) {
  const context = measuring ??= new OffscreenCanvas(1, 1).getContext('2d');
  context.font = fontOf(theme);
  return (text) => context.measureText(text).width;
}
