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
  zh: '老人 每天 早上 走路 去 市场 。',  // as jieba cuts 老人每天早上走路去市场。 (attn segment --lang zh)
};
export const EXAMPLE_SOURCE = 'The old man walks to the market every morning .';

/** The example pair of `language` ({source, target}), or null when there is none. */
export const exampleOf = (language) => (EXAMPLES[language] ? { source: EXAMPLE_SOURCE, target: EXAMPLES[language] } : null);

/** Whether the sentences are some language's example (so switching pairs may replace them). */
export const isExample = (source, target) => source === EXAMPLE_SOURCE && Object.values(EXAMPLES).includes(target);

/**
 * The classic examples, one click away (#presets): each sets the pair and both sentences, with one
 * line on what to look for. Bahdanau, Cho and Bengio (2015) Figure 3's four English–French
 * sentences, tokenized as the paper's figure shows them, d2l's toy pair (Dive into Deep
 * Learning, "Machine translation and the dataset"), then en-es's: a long sentence, an idiom, a
 * pair that is not a translation, and an everyday and a software sentence side by side (these two,
 * `translate: true`, also put their English sentence in the translation view, which their notes
 * point at, and translate it); then en-zh's, typed without spaces as Chinese is written.
 */
export const PRESETS = [
  {
    id: 'bahdanau-3a', pair: 'en-fr', label: 'Bahdanau et al., Figure 3(a): the European Economic Area',
    source: 'The agreement on the European Economic Area was signed in August 1992 .',
    target: 'L\' accord sur la zone économique européenne a été signé en août 1992 .',
    note: 'French puts the adjectives after the noun: "zone économique européenne" reads "Area Economic European", ' +
      'so its three rows attend to the English words in reverse order, the block off the diagonal.',
  },
  {
    id: 'bahdanau-3b', pair: 'en-fr', label: 'Bahdanau et al., Figure 3(b): the marine environment',
    source: 'It should be noted that the marine environment is the least known of environments .',
    target: 'Il convient de noter que l\' environnement marin est le moins connu de l\' environnement .',
    note: '"environnement marin" swaps "marine environment"; "Il convient de" spreads over "It should be".',
  },
  {
    id: 'bahdanau-3c', pair: 'en-fr', label: 'Bahdanau et al., Figure 3(c): chemical weapons',
    source: 'Destruction of the equipment means that Syria can no longer produce new chemical weapons .',
    target: 'La destruction de l\' équipement signifie que la Syrie ne peut plus produire de nouvelles armes chimiques .',
    note: '"armes chimiques" reverses "chemical weapons"; "ne peut plus" covers "can no longer".',
  },
  {
    id: 'bahdanau-3d', pair: 'en-fr', label: 'Bahdanau et al., Figure 3(d): "the man said"',
    source: '" This will change my future with my family , " the man said .',
    target: '" Cela va changer mon avenir avec ma famille " , a dit l\' homme .',
    note: 'The reported speech keeps its order, then "a dit l\' homme" attends back to "the man said".',
  },
  {
    id: 'd2l-hello', pair: 'en-fr', label: 'Dive into Deep Learning: "Hello world ."',
    source: 'Hello world .', target: 'Bonjour le monde .',
    note: 'A toy pair: "le" has no English word of its own.',
  },
  {
    id: 'long', pair: 'en-es', label: 'A long sentence (40 words)',
    source: 'The old man who lives in the small house near the river walks slowly to the market every morning ' +
      'to buy fresh bread and fruit for his large family , and he always stops to talk with the baker .',
    target: 'El anciano que vive en la pequeña casa cerca del río camina despacio hasta el mercado cada mañana ' +
      'para comprar pan fresco y fruta para su gran familia , y siempre se detiene a hablar con el panadero .',
    note: 'Attention keeps to the diagonal over forty words; "pan fresco" swaps "fresh bread", and ' +
      '"se detiene a hablar" spreads over "stops to talk".',
  },
  {
    id: 'idiom', pair: 'en-es', label: 'An idiom: "raining cats and dogs"',
    source: 'It is raining cats and dogs .', target: 'Está lloviendo a cántaros .',
    note: 'No word translates word for word: "a cántaros" (by the pitcherful) has no counterpart in "cats and dogs", ' +
      'so its rows spread their attention, and the links there are guesses.',
  },
  {
    id: 'not-a-translation', pair: 'en-es', label: 'Not a translation: two unrelated sentences',
    source: 'The old man walks to the market every morning .', target: 'Mi hermana compró un coche rojo ayer .',
    note: 'The Spanish says something else ("My sister bought a red car yesterday"); attention still sums to 1 in ' +
      'every row, so the figure is never empty: look at how far from the model\'s data the line below it says this pair is.',
  },
  {
    id: 'everyday', pair: 'en-es', label: 'Side by side, 1: an everyday sentence', translate: true,
    source: 'Where is the train station ?', target: '¿ Dónde está la estación de tren ?',
    note: 'The model learned from software help and interface text. Aligned to a good translation, this short ' +
      'question reads as familiar, but translated on its own (the translation view below) it becomes ' +
      '"¿ Dónde es la salida ?": compare with the next example, a software sentence.',
  },
  {
    id: 'software', pair: 'en-es', label: 'Side by side, 2: a software sentence', translate: true,
    source: 'Click Save to keep the changes to the document .', target: 'Haga clic en Guardar para conservar los cambios del documento .',
    note: 'The kind of sentence the model was trained on (help pages and interface text): it translates it well ' +
      '("Pulse Guardar para mantener los cambios en el documento ."); compare with the everyday question before it.',
  },
  {
    id: 'zh-love', pair: 'en-zh', label: 'Chinese, typed without spaces: "I love you ."',
    source: 'I love you .', target: '我爱你。',
    note: 'Chinese has no spaces: the page cuts it into words as jieba does, and jieba\'s dictionary holds 我爱你 ' +
      'as one word, so "I" and "love" both link to it. Type spaces (我 爱 你 。) and the words are taken as given.',
  },
  {
    id: 'zh-news', pair: 'en-zh', label: 'Chinese newswire: a spokesman\'s statement',
    source: 'The spokesman of the Foreign Ministry said today that China welcomes the new trade agreement .',
    target: '外交部发言人今天表示，中国欢迎新的贸易协定。',
    note: 'Chinese puts the time before the verb ("今天 表示", today said) and needs no "that"; ' +
      '"贸易协定" is one word for "trade agreement". Only the HMM aligner is shipped for English–Chinese.',
  },
];

/** The preset called `id`, or null. */
export const presetOf = (id) => PRESETS.find((preset) => preset.id === id) ?? null;
