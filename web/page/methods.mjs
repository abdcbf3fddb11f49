// The alignment rules as the page and its worker use them. The rules come from the library
// (`attn.alignment`, written once in attn/align/methods.hpp; the worker hands them to the page in
// its 'ready' message): which methods there are, what each needs, the defaults. Nothing here
// names a method.
import { t } from './i18n.mjs';

// The name the worker gives a pair's English -> language model (worker.mjs, modelNames): a
// multilingual file's direction as the library names it (the index's directionModels, from
// attn::direction_model_name: 'en-fr-transformer', the command line's name too), else the stem of
// a file of the pair's own.
export const forwardModelName = (pair) =>
  pair.multilingual ? pair.directionModels.forward : pair.files.forward?.replace(/\.safetensors$/, '');

// ... and its language -> English model, which the methods that read both directions use with it.
export const reverseModelName = (pair) =>
  pair.multilingual ? pair.directionModels.reverse : pair.files.reverse?.replace(/\.safetensors$/, '');

// The file behind a model name the worker gives: a direction of the multilingual file (the pair's
// en-XX-transformer or XX-en-transformer) is that file; any other name is a file's stem.
export const fileOfModel = (pair, name) =>
  (pair.multilingual && [forwardModelName(pair), reverseModelName(pair)].includes(name) ? pair.files.forward : `${name}.safetensors`);

// The rule of the method called `name`: {name, description, needsModel, needsReverse, needsStatistical}.
export function methodRule(rules, name) {
  const rule = rules.methods.find((method) => method.name === name);
  if (!rule) throw new Error(`unknown alignment method '${name}' (known: ${rules.methods.map((m) => m.name).join(', ')})`);
  return rule;
}

// A method that reads one attention matrix alone: no model of the other direction, no statistical aligner.
export const readsOneMatrix = (rule) => rule.needsModel && !rule.needsReverse && !rule.needsStatistical;

// The statistical aligner a method uses: the one it is (a method named after a statistical kind),
// or the default one (a method that mixes one in).
export const statisticalKindOf = (rules, rule) =>
  (rules.statisticalKinds.includes(rule.name) ? rule.name : rules.defaults.statistical);

// Fills a <select> with methods, in the library's order: the value is the name, the text says what
// it does, its dev-set AER where measured (`devAer`, method -> AER, from models/dev-aer.tsv; also
// as data-aer), and `attn align`'s default says so. The first method starts selected.
export function listMethods(select, methods, defaults, devAer = {}) {
  select.replaceChildren(...methods.map(({ name, description }) => {
    const option = new Option('', name);
    option.dataset.description = description;
    if (name === defaults.method) option.dataset.byDefault = 'true';
    if (devAer[name] !== undefined) option.dataset.aer = String(devAer[name]);
    option.textContent = methodLabel(option);
    return option;
  }));
}

/**
 * A method option's text in the interface language (i18n.mjs): its name, its dev-set AER where
 * measured, what it does (the library's description, through the string tables), attn align's
 * default, and, where the pair lacks a file it needs, which (data-lacking) and for what pair.
 */
export function methodLabel(option) {
  const { description = '', aer, byDefault, lacking, pair } = option.dataset;
  const measured = aer === undefined ? '' : t(' — dev AER {aer}', { aer: Number(aer).toFixed(3) });
  const note = byDefault ? t(' (attn align’s default)') : '';
  const text = t('{method}{aer}: {description}{note}', { method: option.value, aer: measured, description: t(description), note });
  return lacking ? text + t(' — needs {files}, not shipped for {pair}', { files: t(lacking), pair }) : text;
}

/** Writes every option of a method select again, in the interface language. */
export function relabelMethods(select) {
  for (const option of select.options) option.textContent = methodLabel(option);
}
