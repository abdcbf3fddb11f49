// Words as the page shows them: split into user-perceived characters (grapheme clusters, through
// Intl.Segmenter), so that shortening a label never cuts an emoji sequence or an accent apart, and
// tokens with nothing visible in them (a lone zero-width joiner or variation selector, which the
// model's tokenizer may split off an emoji sequence) shown by their code points instead of as blanks.
// Pure functions: tests/js/text.test.mjs runs them under Node.

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export const graphemes = (text) => Array.from(segmenter.segment(text), ({ segment }) => segment);

// Format characters, marks, separators and controls: nothing of their own to see.
const INVISIBLE = /^[\p{Cf}\p{Mn}\p{Me}\p{Z}\p{Cc}]+$/u;

const codePoint = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

// A token as a label: itself, or 'U+200D'-style code points when nothing of it would show.
export function visibleLabel(word) {
  if (word !== '' && !INVISIBLE.test(word)) return word;
  return Array.from(word, codePoint).join(' ') || '∅';
}

// Bidirectional text. A word's own explicit embeddings, overrides, isolates and marks would reorder
// what is drawn after them (a hostile "abc\u202Edef" would read "abcfed"): each is shown as its
// code point instead. A label with right-to-left letters is an isolate (FSI ... PDI), so it never
// reorders its neighbours, and its ellipsis stays at its own logical end.
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;
const RIGHT_TO_LEFT = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}]/u;

// At most `limit` user-perceived characters; a longer label ends in an ellipsis.
export function shortLabel(word, limit = 14) {
  const shown = visibleLabel(word).replace(BIDI_CONTROLS, (c) => `⟨${codePoint(c)}⟩`);
  const characters = graphemes(shown);
  const label = characters.length > limit ? `${characters.slice(0, limit - 1).join('')}…` : shown;
  return RIGHT_TO_LEFT.test(label) ? `\u2068${label}\u2069` : label;
}

// GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen
// ("The multilingual Transformer (English ↔ twelve languages)" ->
// "the-multilingual-transformer-english--twelve-languages"); tools/build/card_html.mjs gives the model
// card's headings these ids, and the lines under the figures link to them.
export const headingAnchor = (title) => title.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
