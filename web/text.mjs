// Words as the page shows them: split into user-perceived characters (grapheme clusters, through
// Intl.Segmenter), so that shortening a label never cuts an emoji sequence or an accent apart, and
// tokens with nothing visible in them (a lone zero-width joiner or variation selector, which the
// model's tokenizer may split off an emoji sequence) shown by their code points instead of as blanks.
// Pure functions: tests/js/text.test.mjs runs them under Node.

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export const graphemes = (text) => Array.from(segmenter.segment(text), ({ segment }) => segment);

// Format characters, marks, separators and controls: nothing of their own to see.
const INVISIBLE = /^[\p{Cf}\p{Mn}\p{Me}\p{Z}\p{Cc}]+$/u;

// A token as a label: itself, or 'U+200D'-style code points when nothing of it would show.
export function visibleLabel(word) {
  if (word !== '' && !INVISIBLE.test(word)) return word;
  return Array.from(word, (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join(' ') || '∅';
}

// At most `limit` user-perceived characters; a longer label ends in an ellipsis.
export function shortLabel(word, limit = 14) {
  const shown = visibleLabel(word);
  const characters = graphemes(shown);
  return characters.length > limit ? `${characters.slice(0, limit - 1).join('')}…` : shown;
}
