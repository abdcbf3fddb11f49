// The model view's head view, after BertViz's: the words on both sides, a line from each word on
// the left (a row: a word that attends) to each word on the right (a column: a word attended to)
// in its head's colour, darker for more attention. Pointing at a word shows its lines alone; a
// head's swatch shows or hides that head. SVG, whose words are only ever set as textContent.
import { t } from './i18n.mjs';

const SVG = 'http://www.w3.org/2000/svg';
/** One colour per head: the page's accent, link and gold colours first, then hues apart from them. */
export const HEAD_COLOURS = ['#355e8c', '#e8453c', '#f5a524', '#2ca58d', '#8e44ad', '#16a2b8', '#c2185b', '#6d8c00'];
const ROW = 20, GAP = 8, FAINTEST = 0.03;  // lines below FAINTEST are not drawn: they would not show

const make = (name, attributes = {}) => {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
};

export class HeadView {
  /** @param {HTMLElement} host where the drawing goes @param {HTMLElement} legend where the heads' swatches go */
  constructor(host, legend) {
    this.host = host;
    this.legend = legend;
    this.shownHeads = new Set();
    this.lines = [];  // every line drawn: [element, row, col, head]
    host.addEventListener('pointerover', (event) => this.pointAt(event.target));
    host.addEventListener('pointerleave', () => this.filter(null));
    host.addEventListener('focusin', (event) => this.pointAt(event.target));
    host.addEventListener('focusout', () => this.filter(null));
  }

  /**
   * Draws one layer: maps [{head, data: Float32Array [rows * cols]}], the rows' words on the left
   * and the columns' on the right.
   * @param {{maps: {head: number, data: Float32Array}[], rows: number, cols: number, rowLabels: string[], colLabels: string[], layer: number}} drawing
   */
  draw({ maps, rows, cols, rowLabels, colLabels, layer }) {
    if (this.shownHeads.size === 0 || [...this.shownHeads].some((head) => head >= maps.length)) this.shownHeads = new Set(maps.map((m) => m.head));
    const measure = (labels) => Math.min(140, 12 + 7.5 * Math.max(1, ...labels.map((word) => [...word].length)));
    const left = measure(rowLabels), right = measure(colLabels);
    const width = Math.max(left + right + 120, Math.min(520, this.host.parentElement?.clientWidth || 520));
    const height = Math.max(rows, cols) * ROW + GAP;
    const svg = make('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'head-lines-svg', role: 'img',
      'aria-label': `layer ${layer}: a line from each word on the left to the words it attends to on the right, one colour per head` });
    const y = (i) => GAP / 2 + i * ROW + ROW / 2;
    this.lines = [];
    for (const { head, data } of maps) {
      const group = make('g', { stroke: HEAD_COLOURS[head % HEAD_COLOURS.length], 'stroke-width': 2, 'data-head': head });
      if (!this.shownHeads.has(head)) group.setAttribute('visibility', 'hidden');
      for (let t = 0; t < rows; t++) {
        for (let s = 0; s < cols; s++) {
          const weight = data[t * cols + s];
          if (!(weight >= FAINTEST)) continue;
          const line = make('line', { x1: left, y1: y(t), x2: width - right, y2: y(s), 'stroke-opacity': Math.min(1, weight).toFixed(3) });
          line.dataset.row = String(t);
          line.dataset.col = String(s);
          group.append(line);
          this.lines.push([line, t, s, head]);
        }
      }
      svg.append(group);
    }
    const word = (text, x, i, side) => {
      const label = make('text', { x, y: y(i) + 4, 'text-anchor': side === 'row' ? 'end' : 'start', tabindex: 0, class: 'head-word' });
      label.dataset[side] = String(i);
      label.textContent = text;
      svg.append(label);
    };
    rowLabels.forEach((text, i) => word(text, left - 6, i, 'row'));
    colLabels.forEach((text, i) => word(text, width - right + 6, i, 'col'));
    this.host.replaceChildren(svg);
    Object.assign(this.host.dataset, { layer: String(layer), heads: String(maps.length), lines: String(this.lines.length) });
    this.drawLegend(maps.map((m) => m.head));
  }

  drawLegend(heads) {
    this.legend.replaceChildren(...heads.map((head) => {
      const button = Object.assign(document.createElement('button'), { type: 'button', className: 'head-swatch' });
      button.dataset.head = String(head);
      button.setAttribute('aria-pressed', String(this.shownHeads.has(head)));
      const swatch = document.createElement('span');
      swatch.style.background = HEAD_COLOURS[head % HEAD_COLOURS.length];
      button.append(swatch, t('head {head}', { head }));
      button.addEventListener('click', () => this.toggle(head, button));
      return button;
    }));
  }

  toggle(head, button) {
    if (this.shownHeads.has(head)) this.shownHeads.delete(head);
    else this.shownHeads.add(head);
    button.setAttribute('aria-pressed', String(this.shownHeads.has(head)));
    const group = this.host.querySelector(`g[data-head="${head}"]`);
    if (group) group.setAttribute('visibility', this.shownHeads.has(head) ? 'visible' : 'hidden');
  }

  pointAt(target) {
    const data = target instanceof SVGElement ? target.dataset : {};
    if (data.row !== undefined) this.filter({ row: Number(data.row) });
    else if (data.col !== undefined) this.filter({ col: Number(data.col) });
  }

  /** Shows only the lines of one word ({row} or {col}), or every line (null). */
  filter(spot) {
    for (const [line, row, col] of this.lines) {
      const shown = !spot || spot.row === row || spot.col === col;
      line.setAttribute('visibility', shown ? 'inherit' : 'hidden');
    }
    this.host.dataset.focus = spot ? (spot.row !== undefined ? `row ${spot.row}` : `col ${spot.col}`) : '';
  }

  clear() {
    this.host.replaceChildren();
    this.legend.replaceChildren();
    this.lines = [];
    this.host.dataset.lines = '0';
  }
}
