// How far a sentence pair is from what a translation model learned, from a measured signal: the
// model's mean log-probability per target piece when it is made to produce the target (forced
// decoding), placed among the same figure on held-out pairs of its own data
// (models/familiarity.json, tools/eval/familiarity.mjs). A pair whose words the model expects less than
// almost every held-out pair is one it was not trained for, and its attention may align it less
// well. Used by the model worker, the page and the tool that measures the reference; no DOM here.
import { english, message } from './messages.mjs';

/** The signal: log p(target | source) per target piece, '</s>' included (attentions() with
 * pieces: true and logProbs: true gives one log-probability per piece). */
export function pieceScore(maps) {
  const count = maps.logProbs?.length ?? 0;
  if (!count) throw new Error('the forced decoding gave no log-probabilities');
  return maps.logProb / count;
}

/** The percentiles 1 … 99 of `scores` (linear interpolation between order statistics), rounded
 * to 4 decimals: what models/familiarity.json keeps of each reference. */
export function percentiles(scores) {
  const sorted = Float64Array.from(scores).sort();
  if (sorted.length < 2) throw new Error('a reference needs at least two scores');
  return Array.from({ length: 99 }, (_, i) => {
    const at = ((i + 1) / 100) * (sorted.length - 1);
    const low = Math.floor(at);
    const high = Math.min(low + 1, sorted.length - 1);
    const value = sorted[low] + (at - low) * (sorted[high] - sorted[low]);
    return Math.round(value * 1e4) / 1e4;
  });
}

/** The share (0 … 1) of held-out pairs whose score is lower than `score`, from the reference's
 * percentiles 1 … 99: 0 below the first, 1 above the last, linear in between. */
export function rank(score, reference) {
  if (!Array.isArray(reference) || reference.length !== 99) throw new Error('a reference is 99 percentiles');
  if (!Number.isFinite(score)) return 0;  // -Infinity: a piece the model gives no probability at all
  if (score <= reference[0]) return score < reference[0] ? 0 : 0.01;
  if (score >= reference[98]) return score > reference[98] ? 1 : 0.99;
  let i = 0;
  while (reference[i + 1] < score) i += 1;
  const span = reference[i + 1] - reference[i];
  return (i + 1 + (span > 0 ? (score - reference[i]) / span : 0)) / 100;
}

// Below these ranks a pair is called far from the model's data, or unusual for it.
export const FAR = 0.02;
export const UNUSUAL = 0.1;

/** {level: 'familiar' | 'unusual' | 'far', rank, text, said}: one sentence a learner understands
 * (text in English, said as a message of messages.mjs for the page to say in the reader's language).
 * `what`: 'pair' (a sentence and its translation, the alignment view) or 'translation' (the
 * model's own output for an input, the translation view); `data`: the model's training text in a
 * few words. */
export function describe(score, reference, { what = 'pair', data = 'its training data' } = {}) {
  const share = rank(score, reference);
  const percent = share < 0.01 ? message('over 99') : String(Math.round((1 - share) * 100));
  const level = share < FAR ? 'far' : share < UNUSUAL ? 'unusual' : 'familiar';
  const template = SENTENCES[level][what === 'translation' ? 'translation' : 'pair'][level === 'familiar' && share < 0.5 ? 1 : 0];
  const said = message(template, { percent, data: message(data) });
  return { level, rank: share, text: english(said), said };
}

// The sentences of describe(), by level and by what is measured; a familiar one says "a typical"
// held-out sentence from the median on, "many a" below it.
const SENTENCES = {
  far: {
    pair: ['This sentence pair is far from what the model learned: it finds the words less likely than {percent}% of held-out sentences from {data}, so read its attention with care.'],
    translation: ['This input is far from what the model learned: it finds the words less likely than its translations of {percent}% of held-out sentences from {data}, so read its translation and attention with care.'],
  },
  unusual: {
    pair: ['This sentence pair is unusual for the model: it finds the words less likely than {percent}% of held-out sentences from {data}.'],
    translation: ['This input is unusual for the model: it finds the words less likely than its translations of {percent}% of held-out sentences from {data}.'],
  },
  familiar: {
    pair: ['This sentence pair is like what the model learned from {data}: its words are as likely as in a typical held-out sentence.',
      'This sentence pair is like what the model learned from {data}: its words are as likely as in many a held-out sentence.'],
    translation: ['This input is like what the model learned from {data}: its words are as likely as in a typical held-out sentence.',
      'This input is like what the model learned from {data}: its words are as likely as in many a held-out sentence.'],
  },
};

// The longest sentences the translation models learned from. The data pipeline drops pairs with a
// side of more than 80 words (docs/DATA_CARD.md), and nearly every kept sentence is far shorter:
// in English–Bulgarian's training split (37,792 pairs) 99 % of the sentences have 26 words or
// fewer, 99.9 % 44 or fewer. Past about 60 words the Transformer's attention collapses onto one
// stretch of the source and its links thin out.
export const TRAINED_LENGTH = { most: 80, usual: 26, rare: 45 };

/** The warning for a pair of `source` and `target` words, as a message (messages.mjs) for the page
 * to say in the reader's language: '' where neither side is longer than the rare length. */
export function lengthMessage(source, target) {
  const words = Math.max(source, target);
  if (words < TRAINED_LENGTH.rare) return '';
  const past = words > TRAINED_LENGTH.most ? message('longer than any sentence the model learned from (at most {most} words)', { most: TRAINED_LENGTH.most })
    : message('longer than nearly every sentence the model learned from (99 % had {usual} words or fewer)', { usual: TRAINED_LENGTH.usual });
  return message('⚠ {words} words: {past}; at this length its attention can collapse onto one stretch of the source, and the links thin out', { words, past });
}

/** lengthMessage's warning in English ('' where there is none). */
export const lengthNote = (source, target) => english(lengthMessage(source, target));
