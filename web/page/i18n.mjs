// The page's interface language: English, as the page is written, or 中文 (strings-zh.mjs), chosen in
// #ui-language and kept in the URL hash under 'lang'. Strings are looked up by their English text,
// as gettext does: index.html's text and its aria-label, title and placeholder attributes are
// translated in place (and given back for English), and the views pass what they write through t().
import { sayWith } from './messages.mjs';
import { ZH } from './strings-zh.mjs';

/** The interface languages: the select's value -> {name, tag (the html element's lang), table}. */
export const LANGUAGES = {
  en: { name: 'English', tag: 'en', table: {} },
  zh: { name: '中文', tag: 'zh-Hans', table: ZH },
};
let current = 'en';
const listeners = new Set();

/** The interface language now ('en' or 'zh'). */
export const language = () => current;

/** `text` (English) in the interface language, with each {name} replaced by params[name]. */
export function t(text, params = {}) {
  const translated = LANGUAGES[current].table[text] ?? text;
  return translated.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * A message made at run time (messages.mjs: English text, or a template with fields) in the
 * interface language; the library's own text stays English, after a lead-in saying so.
 */
export const say = (said) => sayWith(said, (text) => LANGUAGES[current].table[text],
  (text) => (current === 'en' ? text : `${t('The library says (in English):')} ${text}`));

// The elements that show a run-time message, with it: said again when the language changes.
const shown = new WeakMap();

/** Shows `said` (a message; '' or null: nothing) as the text of `element`, in every language the reader chooses. */
export function showSaid(element, said) {
  const text = say(said);
  if (element.textContent !== text) element.textContent = text;
  if (said) {
    shown.set(element, said);
    element.dataset.said = '';
  } else {
    shown.delete(element);
    delete element.dataset.said;
  }
}

/** Calls `listener` after every change of language (the views write their lines again). */
export function onLanguage(listener) {
  listeners.add(listener);
}

export const normalText = (text) => text.replace(/\s+/g, ' ').trim();

// What is never translated: the reader's own text, code, numbers read out, the figures, and the
// languages' own names in the switch.
const KEEP = 'script, style, textarea, code, pre, output, canvas, .readout, .heatmap, .lines, .model-grid, #ui-language, [data-said]';
const ATTRIBUTES = ['aria-label', 'title', 'placeholder'];
const englishText = new WeakMap();        // a text node -> its English
// a string of a table -> its English: a text the views wrote in Chinese (through t()) goes back too
const fromTable = new Map(Object.values(LANGUAGES).flatMap(({ table }) => Object.entries(table).map(([english, translated]) => [translated, english])));
const englishAttributes = new WeakMap();  // an element -> {attribute: its English}

/** The English of `text` as shown (a string of a table in any language, else `text` itself). */
export const englishOf = (text) => fromTable.get(normalText(text)) ?? text;

function translateText(root, table) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest(KEEP)) continue;
    const written = node.textContent;
    const english = englishText.get(node) ?? (fromTable.has(normalText(written)) ? fromTable.get(normalText(written)) : written);
    const key = normalText(english);
    if (!englishText.has(node)) {
      if (!(key in table)) continue;
      englishText.set(node, english);
    }
    const [lead] = english.match(/^\s*/), [trail] = english.match(/\s*$/);
    node.textContent = key in table ? `${lead}${table[key]}${trail}` : english;
  }
}

function translateAttributes(root, table) {
  for (const element of root.querySelectorAll(ATTRIBUTES.map((name) => `[${name}]`).join(', '))) {
    const saved = englishAttributes.get(element) ?? {};
    for (const name of ATTRIBUTES) {
      const english = saved[name] ?? element.getAttribute(name);
      if (english === null || (!(english in table) && !(name in saved))) continue;
      saved[name] = english;
      element.setAttribute(name, table[english] ?? english);
    }
    englishAttributes.set(element, saved);
  }
}

/** Shows the page in `name` ('en' or 'zh'; anything else is English). */
export function setLanguage(name) {
  current = name in LANGUAGES ? name : 'en';
  const { table, tag } = LANGUAGES[current];
  document.documentElement.lang = tag;
  translateText(document.body, table);
  translateAttributes(document.body, table);
  for (const element of document.querySelectorAll('[data-said]')) element.textContent = say(shown.get(element));
  for (const listener of listeners) listener(current);
}

/** The #ui-language select, registered with the hash state under 'lang'. */
export function startLanguage(state) {
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('ui-language'));
  state.control('lang', select);
  select.addEventListener('input', () => setLanguage(select.value));
  if (select.value !== 'en') setLanguage(select.value);
}
