// Exports of the current alignment: the heatmap as standalone SVG (styles inlined) and PNG
// (rendered at 2x), the matrix as JSON (the format the explorer also reads), the links.

function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const anchor = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// A copy of the SVG that renders the same outside the page: the computed styles become
// presentation attributes (not style="", which the page's Content-Security-Policy forbids).
export function standaloneSvg(svg) {
  const copy = svg.cloneNode(true);
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const originals = svg.querySelectorAll('*');
  const keep = ['fill', 'stroke', 'stroke-width', 'stroke-opacity', 'opacity', 'font-size', 'font-family', 'font-weight'];
  copy.querySelectorAll('*').forEach((node, i) => {
    const style = getComputedStyle(originals[i]);
    for (const property of keep) node.setAttribute(property, style.getPropertyValue(property));
  });
  copy.insertBefore(Object.assign(document.createElementNS('http://www.w3.org/2000/svg', 'rect'), {}), copy.firstChild);
  const background = copy.firstChild;
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', '#ffffff');
  return new XMLSerializer().serializeToString(copy);
}

// The labels' font as a data URL, fetched once: exported files then carry their font with them.
let fontDataUrl = null;
async function embeddedFont() {
  if (fontDataUrl === null) {
    const response = await fetch(new URL('./dist/fonts/DejaVuSans.ttf', import.meta.url));
    if (!response.ok) return '';
    const bytes = new Uint8Array(await response.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    fontDataUrl = `data:font/ttf;base64,${btoa(binary)}`;
  }
  return fontDataUrl;
}

// The standalone SVG with an @font-face rule holding the font itself.
async function svgWithFont(svg) {
  const font = await embeddedFont();
  const text = standaloneSvg(svg);
  if (!font) return text;
  const style = `<defs><style>@font-face{font-family:"attnscope-sans";src:url(${font}) format("truetype");}</style></defs>`;
  return text.replace(/^(<svg[^>]*>)/, `$1${style}`);
}

export async function exportSvg(svg, name = 'attention.svg') {
  download(name, new Blob([await svgWithFont(svg)], { type: 'image/svg+xml' }));
}

export async function svgToPngBlob(svg, scale = 2) {
  const text = await svgWithFont(svg);
  const width = Number(svg.getAttribute('width')), height = Number(svg.getAttribute('height'));
  const image = new Image();
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    await new Promise((resolve, reject) => {
      image.onload = resolve;
      image.onerror = () => reject(new Error('the browser could not render the SVG'));
      image.src = url;
    });
    const canvas = Object.assign(document.createElement('canvas'), { width: width * scale, height: height * scale });
    const context = canvas.getContext('2d');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

export async function exportPng(svg, name = 'attention.png') {
  download(name, await svgToPngBlob(svg));
}

// { source: [...], target: [...], weights: [[...] per target word] }: what "bring your own" reads.
export function matrixJson(result) {
  const cols = result.sourceWords.length;
  const weights = result.targetWords.map((_, t) => Array.from(result.weights.slice(t * cols, (t + 1) * cols), (x) => +x.toFixed(6)));
  return JSON.stringify({ source: result.sourceWords, target: result.targetWords, weights }, null, 1);
}

export function exportJson(result, name = 'attention.json') {
  download(name, new Blob([matrixJson(result)], { type: 'application/json' }));
}

export function exportLinks(pharaoh, name = 'links.txt') {
  download(name, new Blob([`${pharaoh}\n`], { type: 'text/plain' }));
}
