// The heatmap widget: a CanvasFigure with a toolbar (legend, zoom, overview), a readout, keyboard
// and pointer reading of cells, drawn by the painter (painters.mjs).
import { CanvasFigure, CanvasSurface, cellBitmap, fitCanvas } from './canvas.mjs';
import { colourEnds } from './colormap.mjs';
import { DEFAULT_CELL, MAX_CELL, MIN_CELL, keysOf, layoutFigure, measurer, paintHeatmap, paintLegend, themeOf } from './painters.mjs';
import { onLanguage, t } from './i18n.mjs';
import { hideTip, showTip } from './tooltip.mjs';

/**
 * A heatmap on the page: new Heatmap(host, {label}) takes an empty element (its id, data-rows and
 * data-cols stay on it) and builds around it a toolbar (legend, zoom, overview) and a readout. The
 * host is the one tab stop: arrow keys move between cells, whose values the readout announces.
 * draw(figure) shows {weights: [rows * cols], rows, cols, rowLabels, colLabels, links: [[s, t]],
 * gold?: [[s, t]], colormap, showValues?, title?}; clear() shows nothing (data-rows 0).
 */
export class Heatmap extends CanvasFigure {
  /** @param {HTMLElement} host @param {{label?: string, onSpot?: (spot: {row?: number, col?: number}) => void}} [options] */
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
    onLanguage(() => { if (this.figure) this.paintLegend(); });  // its labels in the new language
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
    // the default size follows the frame's width (a phone turned, a window resized): relaid out when
    // that changes the cells; a chosen zoom stays
    let width = 0;
    new ResizeObserver(() => {
      if (this.wrapper.clientWidth === width) return;
      width = this.wrapper.clientWidth;
      if (!this.figure || this.zoom !== null || this.wrapper.hidden) return;
      const before = this.layout.cell;
      this.relayout();
      if (this.layout.cell !== before) this.paintNow();
    }).observe(this.wrapper);
    host.addEventListener('keydown', (event) => this.key(event));
    // Focus from the keyboard starts on the first cell in view; a click chooses its own.
    host.addEventListener('focus', () => {
      if (!this.figure || this.focusCell || !host.matches(':focus-visible')) return;
      const { cell } = this.layout;
      this.moveFocus(Math.min(this.figure.rows - 1, Math.ceil(host.scrollTop / cell)), Math.min(this.figure.cols - 1, Math.ceil(host.scrollLeft / cell)));
    });
    host.addEventListener('pointermove', (event) => this.pointer(event));
    host.addEventListener('pointerleave', () => { hideTip(); if (!this.dragging) this.setSpot(this.focusCell ? { row: this.focusCell[0] } : {}, true); });
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
    this.pinchable(host);
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
    if (this.mark) this.mark.hidden = true;
    this.readout.textContent = '';
    this.described = null;
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
    // the readout never speaks of a matrix no longer shown: the cell it described, read anew from
    // this one, or nothing where the shape changed
    if (reshaped) this.described = null;
    const told = this.focusCell ?? this.described;
    if (told) this.announce(...told);
    else this.readout.textContent = '';
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
    const measure = measurer(themeOf(this.host));
    this.layout = layoutFigure(this.figure, this.cellSize(), measure);
    // the default size where it would scroll sideways (a phone: the default example at 390 px):
    // as large as fits the width instead, down to DEFAULT_CELL's smallest; smaller still scrolls
    // (the frame's width, less the figure's border and scrollbar: the figure itself is as wide as its content)
    const room = this.wrapper.clientWidth - (this.host.offsetWidth - this.host.clientWidth);
    if (this.zoom === null && room > 0 && this.layout.width > room) {
      const cell = Math.floor((room - this.layout.left) / this.figure.cols);
      if (cell >= DEFAULT_CELL(Infinity)) this.layout = layoutFigure(this.figure, cell, measure);
    }
    this.resize(this.layout.width, this.layout.height);
    this.host.dataset.cell = String(this.layout.cell);
    this.placeMark();
  }

  /**
   * Outlines row `row` (-1: none), as a step-through marks its current word: an element over the
   * cells that glides to the next row marked (style.css .row-mark: a short transition, none where
   * the reader asks for less motion).
   */
  markRow(row) {
    this.markedRow = row;
    this.placeMark();
  }

  placeMark() {
    const row = this.markedRow ?? -1, shown = Boolean(this.figure) && row >= 0 && row < this.figure.rows;
    if (!this.mark) {
      if (!shown) return;
      this.mark = Object.assign(document.createElement('div'), { className: 'row-mark' });
      this.mark.setAttribute('aria-hidden', 'true');
      this.plane.append(this.mark);
    }
    this.mark.hidden = !shown;
    if (!shown) return;
    const { cell, left, top } = this.layout;
    Object.assign(this.mark.style, { left: `${left}px`, top: `${top}px`, width: `${this.figure.cols * cell}px`, height: `${cell}px`, transform: `translateY(${row * cell}px)` });
    this.mark.dataset.row = String(row);
  }

  // Two fingers pinch the cells larger or smaller, about the point between them (the figure's
  // touch-action leaves one finger's scrolling to the browser and keeps its page zoom off the figure).
  pinchable(host) {
    const touches = new Map();  // pointerId -> its last event
    let pinch = null;           // the fingers' spread when the cells were last resized
    const spread = () => {
      const [a, b] = [...touches.values()];
      return { distance: Math.max(1, Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY)),
        middle: { clientX: (a.clientX + b.clientX) / 2, clientY: (a.clientY + b.clientY) / 2 } };
    };
    let zoomed = false;         // the cells changed during this pinch: the URL hash hears once, at the end
    host.addEventListener('pointerdown', (event) => {
      if (event.pointerType !== 'touch') return;
      touches.set(event.pointerId, event);
      if (touches.size >= 2) this.tap = null;  // several fingers are not a tap
      if (touches.size === 2) pinch = spread();
    });
    host.addEventListener('pointermove', (event) => {
      if (!touches.has(event.pointerId)) return;
      touches.set(event.pointerId, event);
      if (!pinch || touches.size !== 2) return;
      const now = spread();
      if (Math.abs(now.distance / pinch.distance - 1) < 0.04) return;
      this.zoomBy(now.distance / pinch.distance, now.middle, false);
      zoomed = true;
      pinch = now;
    });
    const lift = (event) => {
      if (!touches.delete(event.pointerId)) return;
      pinch = touches.size === 2 ? spread() : null;  // a third finger lifted: the two left go on from here
      if (touches.size === 0 && zoomed) {
        zoomed = false;
        this.afterZoom();
      }
    };
    host.addEventListener('pointerup', lift);
    host.addEventListener('pointercancel', lift);
    // two fingers on the figure are this pinch, not a pan or a zoom of the page
    host.addEventListener('touchmove', (event) => { if (event.touches.length >= 2) event.preventDefault(); }, { passive: false });
  }

  // Zooms by a factor about the pointer (or the middle of the view), keeping that point in place;
  // tell: the URL hash hears of it (a pinch tells once, when the fingers lift).
  zoomBy(factor, at, tell = true) {
    if (!this.figure) return;
    const host = this.host, old = this.layout;
    const box = host.getBoundingClientRect();
    const px = at ? at.clientX - box.left : host.clientWidth / 2, py = at ? at.clientY - box.top : host.clientHeight / 2;
    const fs = (host.scrollLeft + px - old.left) / old.cell, ft = (host.scrollTop + py - old.top) / old.cell;
    this.zoom = Math.max(MIN_CELL, Math.min(MAX_CELL, old.cell * factor));
    this.relayout();
    host.scrollLeft = fs * this.layout.cell + this.layout.left - px;
    host.scrollTop = ft * this.layout.cell + this.layout.top - py;
    this.afterZoom(tell);
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
    paintLegend(new CanvasSurface(context, theme, null), theme, { colormap: this.figure.colormap, links, gold, width: 120, labels: { link: t('link'), gold: t('gold link') } });
    const [low, high] = colourEnds(this.figure.colormap);
    this.legend.setAttribute('aria-label', t('colour legend: {low} is 0, {high} is 1', { low: t(low), high: t(high) }) +
      (links ? t('; links are outlined') : '') + (gold ? t(', gold links are gold corner triangles') : ''));
  }

  // The whole matrix in small, with the part in view framed; only when it does not all fit.
  afterPaint(theme) {
    if (!this.figure || !this.bitmap) return;
    const host = this.host;
    const overflowing = this.overflows();
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
    if (!spot) { hideTip(); return; }
    if (spot.cell) showTip(event, this.describe(spot.row, spot.col));
    else hideTip();
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
    this.described = [t, s];
    return text;
  }

  announce(t, s) {
    if (this.figure && t < this.figure.rows && s < this.figure.cols) this.describe(t, s);
  }
}
