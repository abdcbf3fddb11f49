// The explorer's example sentence pair of each language (web/page/examples.mjs) and word pairs that a
// pair's shipped aligner must link in it, for the JS and command-line tests of every pair
// (tests/test_pairs.cpp checks the same links natively and in WebAssembly).
import { EXAMPLES, EXAMPLE_SOURCE } from '../../web/page/examples.mjs';

const LINKS = {
  bg: [['market', 'пазара'], ['morning', 'сутрин'], ['.', '.']],
  da: [['market', 'markedet'], ['morning', 'morgen'], ['man', 'mand']],
  de: [['market', 'Markt'], ['morning', 'Morgen'], ['.', '.']],
  es: [['market', 'mercado'], ['morning', 'mañana'], ['.', '.']],
  et: [['man', 'mees'], ['morning', 'hommikul'], ['.', '.']],
  fr: [['market', 'marché'], ['morning', 'matin'], ['.', '.']],
  hu: [['man', 'férfi'], ['morning', 'reggel'], ['.', '.']],
  it: [['market', 'mercato'], ['morning', 'mattina'], ['.', '.']],
  nl: [['market', 'markt'], ['morning', 'ochtend'], ['old', 'oude']],
  pt: [['market', 'mercado'], ['morning', 'manhãs'], ['.', '.']],
  ru: [['every', 'каждое'], ['morning', 'утро'], ['.', '.']],
  sl: [['every', 'vsako'], ['morning', 'jutro'], ['.', '.']],
  zh: [['market', '市场'], ['morning', '早上'], ['.', '。']],
};

/** {language: {source, target, links: ['s-t', …] (Pharaoh, 0-based word positions)}} */
export const PAIR_EXAMPLES = Object.fromEntries(Object.entries(LINKS).map(([language, words]) => {
  const source = EXAMPLE_SOURCE.split(' '), target = EXAMPLES[language].split(' ');
  const links = words.map(([english, word]) => {
    const s = source.indexOf(english), t = target.indexOf(word);
    if (s < 0 || t < 0) throw new Error(`${language}: '${english}' or '${word}' is not in the example`);
    return `${s}-${t}`;
  });
  return [language, { source: EXAMPLE_SOURCE, target: EXAMPLES[language], links }];
}));
