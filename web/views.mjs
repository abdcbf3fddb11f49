// Drawing the attention matrix P[t][s] (target rows, source columns, as in Bahdanau et al.'s
// figures) as a heatmap and as a line view, with links overlaid and hover highlighting. Every
// label is set with textContent, so hostile text stays text.
import { grayscale, rgb, textColourFor, viridis } from './colormap.mjs';

const SVG = 'http://www.w3.org/2000/svg';

function element(name, attributes = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// Labels get at most this many characters on screen; the full word is in the tooltip.
function shortLabel(word, limit = 14) {
  const characters = Array.from(word);
  return characters.length > limit ? `${characters.slice(0, limit - 1).join('')}…` : word;
}

function textWidth(word) {
  return Array.from(shortLabel(word)).length * 7 + 6;
}

// links as the module gives them ([source, target] pairs) -> a set of "s-t" keys to look cells up in.
const linkKeys = (links) => new Set(links.map(([s, t]) => `${s}-${t}`));

/**
 * drawHeatmap(svg, {weights, rows, cols, rowLabels, colLabels, links, colormap, showValues}): every
 * heatmap on the page. weights: [rows][cols]; links: [source, target] pairs to outline. Returns
 * nothing; cells carry data-row/-col/-value, and the SVG data-rows/-cols.
 */
export function drawHeatmap(svg, { weights, rows, cols, rowLabels, colLabels, links = [], colormap = 'viridis', showValues }) {
  const map = colormap === 'gray' ? grayscale : viridis;
  const linked = linkKeys(links);
  const cell = Math.max(14, Math.min(44, Math.floor(640 / Math.max(cols, 1))));
  const left = Math.min(140, Math.max(...rowLabels.map(textWidth), 20)) + 8;
  const top = Math.min(110, Math.max(...colLabels.map(textWidth), 20) * 0.75) + 12;
  const width = left + cols * cell, height = top + rows * cell;
  svg.replaceChildren();
  svg.classList.add('heatmap');  // style.css styles every heatmap by this class, whichever view it is in
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.dataset.rows = String(rows);
  svg.dataset.cols = String(cols);
  const values = showValues ?? cell >= 30;
  colLabels.forEach((word, s) => {
    const x = left + s * cell + cell / 2, y = top - 6;
    const label = element('text', { x, y, transform: `rotate(-45 ${x} ${y})`, class: 'label col-label', 'data-col': s, tabindex: 0 }, shortLabel(word));
    label.append(element('title', {}, word));
    svg.append(label);
  });
  rowLabels.forEach((word, t) => {
    const label = element('text', { x: left - 6, y: top + t * cell + cell / 2 + 4, 'text-anchor': 'end', class: 'label row-label', 'data-row': t, tabindex: 0 }, shortLabel(word));
    label.append(element('title', {}, word));
    svg.append(label);
  });
  for (let t = 0; t < rows; t++) {
    for (let s = 0; s < cols; s++) {
      const value = weights[t * cols + s];
      const colour = map(value);
      const rect = element('rect', {
        x: left + s * cell, y: top + t * cell, width: cell - 1, height: cell - 1, fill: rgb(colour), class: 'cell',
        'data-row': t, 'data-col': s, 'data-value': value,
      });
      rect.append(element('title', {}, `${rowLabels[t]} ← ${colLabels[s]}: ${value.toFixed(3)}`));
      svg.append(rect);
      if (linked.has(`${s}-${t}`)) {
        svg.append(element('rect', { x: left + s * cell + 2, y: top + t * cell + 2, width: cell - 5, height: cell - 5, class: 'link-mark', 'data-row': t, 'data-col': s }));
      }
      if (values) {
        svg.append(element('text', { x: left + s * cell + cell / 2, y: top + t * cell + cell / 2 + 4, 'text-anchor': 'middle', fill: textColourFor(colour), class: 'cell-value' }, value.toFixed(2)));
      }
    }
  }
}

/**
 * drawLines(svg, {weights, rows, cols, rowLabels, colLabels, links, topK, minimum})
 * Source words on top, target words below, one line per kept weight with opacity = weight;
 * each target word keeps its topK strongest source words above `minimum` (pruning long pairs).
 */
export function drawLines(svg, { weights, rows, cols, rowLabels, colLabels, links = [], topK = 3, minimum = 0.05 }) {
  const linked = linkKeys(links);
  const positions = (labels) => {
    let x = 10;
    return labels.map((word) => {
      const width = textWidth(word) + 8;
      const centre = x + width / 2;
      x += width;
      return centre;
    });
  };
  const sourceX = positions(colLabels), targetX = positions(rowLabels);
  const width = Math.max(sourceX.at(-1) ?? 0, targetX.at(-1) ?? 0) + 60;
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${width} 150`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', '150');
  let drawn = 0;
  for (let t = 0; t < rows; t++) {
    const order = Array.from({ length: cols }, (_, s) => s).sort((a, b) => weights[t * cols + b] - weights[t * cols + a]);
    for (const s of order.slice(0, topK)) {
      const weight = weights[t * cols + s];
      if (weight < minimum) continue;
      svg.append(element('line', {
        x1: sourceX[s], y1: 30, x2: targetX[t], y2: 120, class: linked.has(`${s}-${t}`) ? 'attention-line link-line' : 'attention-line',
        'stroke-opacity': Math.min(1, weight).toFixed(3), 'data-row': t, 'data-col': s, 'data-value': weight,
      }));
      drawn++;
    }
  }
  colLabels.forEach((word, s) => svg.append(element('text', { x: sourceX[s], y: 20, 'text-anchor': 'middle', class: 'label col-label', 'data-col': s }, shortLabel(word))));
  rowLabels.forEach((word, t) => svg.append(element('text', { x: targetX[t], y: 140, 'text-anchor': 'middle', class: 'label row-label', 'data-row': t }, shortLabel(word))));
  svg.dataset.lines = String(drawn);
}

// Highlights everything of one target row or source column in an SVG drawn above (or clears).
export function highlight(svg, { row = -1, col = -1 } = {}) {
  for (const node of svg.querySelectorAll('[data-row], [data-col]')) {
    const r = node.dataset.row === undefined ? -2 : Number(node.dataset.row);
    const c = node.dataset.col === undefined ? -2 : Number(node.dataset.col);
    const on = (row >= 0 && r === row) || (col >= 0 && c === col);
    node.classList.toggle('highlighted', on);
    node.classList.toggle('dimmed', (row >= 0 || col >= 0) && !on);
  }
}
