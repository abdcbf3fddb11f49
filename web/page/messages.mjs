// Messages made while the page runs (a refused file, a tensor that does not parse, a status line),
// in a form the page can say in either interface language: a message is English text, or
// {template, params} whose template is the English with {name} fields (the key of the page's
// string tables, as gettext's msgid is) and whose params are numbers, text kept as typed (file
// names, the reader's input), or messages themselves (a control's name, a clause); an array is a
// list of messages, said one after the other with '; ' between them. An error from
// the library itself is {library: its text}: it stays English, after a lead-in in the reader's
// language. Pure: the workers and the parsers make messages, i18n.mjs says them.

/** @typedef {string | any[] | {template: string, params?: Object<string, any>} | {library: string}} Message */

/** A message of `template` with `params`. @returns {Message} */
export const message = (template, params = {}) => ({ template, params });

/** `said` (a message) in English, every field filled in. @param {Message} said */
export const english = (said) => sayWith(said, (text) => text);

/**
 * `said` in a language: lookup(template) is the template there (or undefined for the English);
 * each field is said too; a library's text gets lead(text).
 * @param {Message} said @param {(text: string) => string | undefined} lookup @param {(text: string) => string} [lead]
 * @returns {string}
 */
export function sayWith(said, lookup, lead = (text) => text) {
  if (said === null || said === undefined) return '';
  if (typeof said === 'string') return lookup(said) ?? said;
  if (Array.isArray(said)) return said.map((item) => sayWith(item, lookup, lead)).join(lookup('; ') ?? '; ');  // a list
  if ('library' in said) return lead(said.library);
  const params = said.params ?? {};
  const field = (value) => (typeof value === 'object' ? sayWith(value, lookup, lead) : String(value));
  return (lookup(said.template) ?? said.template).replace(/\{(\w+)\}/g, (whole, name) => (name in params ? field(params[name]) : whole));
}

/** An Error saying `template` in English (its message), carrying the message for the page (`said`). */
export const problem = (template, params = {}, extra = {}) => problemOf(message(template, params), extra);

/** An Error saying the message `said` in English, carrying it for the page. */
export const problemOf = (said, extra = {}) => Object.assign(new Error(english(said)), { said }, extra);

/** What a worker's error reply ({message, said?}) or a caught Error says: its message, else the library's text. */
export const saidBy = (error) => error.said ?? { library: error.message ?? '' };
