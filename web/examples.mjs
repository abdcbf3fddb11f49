// An example sentence pair for each language beside English: the alignment view starts with it and
// shows it when the pair is switched (unless the reader has typed sentences of their own). The
// same English sentence each time, so the pairs can be compared; tokens separated by spaces, as
// the aligners read them. en-es's is the page's own default (index.html).
export const EXAMPLES = {
  bg: 'Старецът ходи до пазара всяка сутрин .',
  da: 'Den gamle mand går til markedet hver morgen .',
  de: 'Der alte Mann geht jeden Morgen zum Markt .',
  es: 'El anciano camina al mercado cada mañana .',
  et: 'Vana mees kõnnib igal hommikul turule .',
  fr: 'Le vieil homme marche jusqu\'au marché chaque matin .',
  hu: 'Az idős férfi minden reggel a piacra sétál .',
  it: 'Il vecchio cammina fino al mercato ogni mattina .',
  nl: 'De oude man loopt elke ochtend naar de markt .',
  pt: 'O velho caminha até ao mercado todas as manhãs .',
  ru: 'Старик каждое утро ходит на рынок .',
  sl: 'Starec vsako jutro hodi na tržnico .',
};
export const EXAMPLE_SOURCE = 'The old man walks to the market every morning .';

/** The example pair of `language` ({source, target}), or null when there is none. */
export const exampleOf = (language) => (EXAMPLES[language] ? { source: EXAMPLE_SOURCE, target: EXAMPLES[language] } : null);

/** Whether the sentences are some language's example (so switching pairs may replace them). */
export const isExample = (source, target) => source === EXAMPLE_SOURCE && Object.values(EXAMPLES).includes(target);
