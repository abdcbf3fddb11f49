// The line view: source words on top, target words below, a line per kept weight.
import { CanvasFigure } from './canvas.mjs';
import { onLanguage, t } from './i18n.mjs';
import { keysOf, measurer, themeOf } from './painters.mjs';
import { shortLabel } from './text.mjs';

/**
 * The line view: source words on top, target words below, one line per kept weight (opacity =
 * weight); each target word keeps its topK strongest source words above `minimum`, links in the
 * link colour. Painted like the heatmap: only the lines that cross the part in view.
 */
export class LineView extends CanvasFigure {
  /** @param {HTMLElement} host @param {{onSpot?: (spot: {row?: number, col?: number}) => void}} [options] */
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
    onLanguage(() => { if (this.described && !this.legend.hidden) this.describe(...this.described); });
    this.clear();
  }

  clear() {
    this.lines = null;
    this.size = null;
    this.host.hidden = true;
    this.legend.hidden = true;
    this.host.dataset.lines = '0';
  }

  // The legend's words for this drawing: how many lines a word keeps, and which colour is a link;
  // written again in the interface's language when it changes.
  describe(topK, minimum, links) {
    this.described = [topK, minimum, links];
    const swatch = (kind, text) => {
      const item = Object.assign(document.createElement('span'), { className: `swatch ${kind}` });
      return [item, ` ${t(text)} `];
    };
    this.legend.replaceChildren(
      t('Each target word (below) joins the {count} source words (above) it attends to most, where the weight is at least {minimum}; the darker the line, the more attention. ', { count: topK, minimum }),
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
