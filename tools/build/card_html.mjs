// The model card as a page the explorer can link into: models/MODEL_CARD.md written as HTML with an
// id on every heading (GitHub's anchors, web/page/text.mjs headingAnchor), so that the line under a
// figure can open its model's section. A raw .md file is downloaded, not shown, by browsers.
// Headings become h1-h4, fenced code and tables preformatted text, the rest paragraphs with their
// `code`, **bold** and [links](...) (http, https and relative addresses only); everything else is
// escaped text.
//   node tools/build/card_html.mjs models/MODEL_CARD.md web/dist/models/MODEL_CARD.html
import { readFile, writeFile } from 'node:fs/promises';
import { headingAnchor } from '../../web/page/text.mjs';

const escape = (text) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

function inline(text) {
  return escape(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\[([^\]]+)\]\(((?:https?:\/\/|\.{0,2}\/|[\w-]+\/)[^)\s"]*)\)/g, '<a href="$2">$1</a>');
}

export function cardHtml(markdown) {
  const out = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length;) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    const heading = /^(#{1,4}) (.*)$/.exec(line);
    if (heading) {
      const level = heading[1].length;
      out.push(`<h${level} id="${escape(headingAnchor(heading[2]))}">${inline(heading[2])}</h${level}>`);
      i++;
    } else if (line.startsWith('```')) {
      const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      const stop = end < 0 ? lines.length : end;
      out.push(`<pre>${escape(lines.slice(i + 1, stop).join('\n'))}</pre>`);
      i = stop + 1;
    } else if (line.startsWith('|')) {
      const start = i;
      while (i < lines.length && lines[i].startsWith('|')) i++;
      out.push(`<pre class="table">${escape(lines.slice(start, i).join('\n'))}</pre>`);
    } else {
      const start = i;
      while (i < lines.length && lines[i].trim() && !/^(#{1,4} |```|\|)/.test(lines[i])) i++;
      // soft-wrapped lines flow on; a list item starts a line of its own
      out.push(`<p>${inline(lines.slice(start, i).join('\n')).replace(/\n(?=\s*(?:[-*] |\d+\. ))/g, '<br>\n')}</p>`);
    }
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>attnscope model card</title>
<link rel="icon" href="data:,">
<style>body { font: 15px/1.5 system-ui, sans-serif; max-width: 62rem; margin: 1rem auto; padding: 0 1rem; }
pre { overflow-x: auto; background: #f4f4f6; padding: 0.5rem; font-size: 13px; } @media (prefers-color-scheme: dark) {
body { background: #17171b; color: #e6e6ea; } pre { background: #25252b; } a { color: #8ab4ff; } }</style>
</head>
<body>
${out.join('\n')}
</body>
</html>
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: node tools/build/card_html.mjs MODEL_CARD.md OUT.html');
    process.exit(2);
  }
  await writeFile(output, cardHtml(await readFile(input, 'utf8')));
}
