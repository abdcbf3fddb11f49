// The page's sections as tabs (#views): one section on screen at a time, the chosen one in the URL
// hash under 'view'. A link without 'view' (one made before the page had tabs) opens the section
// that holds the first of its keys in page order, so an old share link opens the view it showed.

/** The sections in page order: [view name, section id]. */
export const VIEWS = [
  ['align', 'align-view'],
  ['model', 'model-section'],
  ['translate', 'translate-view'],
  ['images', 'caption'],
  ['byo', 'byo-view'],
  ['playground', 'playground'],
];
export const DEFAULT_VIEW = 'align';

/**
 * The URL hash's keys and the ids of the controls they hold, where the two differ (elsewhere the
 * key is the id, as for the playground's controls): app.mjs registers each control under its key
 * from here, and an old link's view is the section of its keys' controls.
 */
export const HASH_KEYS = {
  s: 'source', t: 'target', m: 'method', th: 'threshold', cmp: 'compare', z: 'heatmap',
  tr: 'translate-source', tm: 'translate-model', kind: 'attention-kind', show: 'model-aggregate',
  layer: 'byo-layer', head: 'byo-head', agg: 'byo-aggregate', special: 'byo-special', merge: 'byo-merge',
  bm: 'byo-method', bz: 'byo-heatmap', proj: 'pg-projections',
};
export const idOfKey = (key) => HASH_KEYS[key] ?? key;

/**
 * The view a hash ('#...' or '...') opens: its 'view' if that names one, else the first section (in
 * page order) holding a control of its keys, else the default. `sectionOf(id)` says which section
 * (its id) holds the element `id`, or null (the header's controls are in none).
 */
export function viewOfHash(hash, sectionOf) {
  const given = new URLSearchParams(hash.replace(/^#/, ''));
  const named = given.get('view');
  if (VIEWS.some(([name]) => name === named)) return named;
  const sections = new Set([...given.keys()].map((key) => sectionOf(idOfKey(key))).filter(Boolean));
  return VIEWS.find(([, section]) => sections.has(section))?.[0] ?? DEFAULT_VIEW;
}

/** @type {(id: string) => any} index.html's element of that id (a control, a figure, a section) */
const $ = (id) => document.getElementById(id);
const sectionInPage = (id) => $(id)?.closest('main > section')?.id ?? null;

/**
 * The tab bar: shows `view`'s section and hides the others; arrow keys, Home and End move between
 * tabs (WAI-ARIA's tabs pattern). Registers 'view' with the hash state at once, so the linked view
 * shows before any figure is drawn. body[data-view] names the view on screen.
 */
export function startTabs(state) {
  const tabs = VIEWS.map(([name, section]) => {
    const tab = $(`tab-${name}`);
    tab.setAttribute('aria-controls', section);
    $(section).setAttribute('role', 'tabpanel');
    $(section).setAttribute('aria-labelledby', tab.id);
    return tab;
  });
  let current = DEFAULT_VIEW;
  const show = (name) => {
    if (!VIEWS.some(([view]) => view === name)) return;
    current = name;
    VIEWS.forEach(([view, section], i) => {
      const chosen = view === name;
      $(section).hidden = !chosen;
      tabs[i].setAttribute('aria-selected', String(chosen));
      tabs[i].tabIndex = chosen ? 0 : -1;
    });
    document.body.dataset.view = name;
  };
  const choose = (name, focus) => {
    show(name);
    if (focus) $(`tab-${name}`).focus();
    state.save();
  };
  const bar = $('views');
  bar.addEventListener('click', (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (tab) choose(tab.dataset.view, false);
  });
  bar.addEventListener('keydown', (event) => {
    const at = VIEWS.findIndex(([view]) => view === current);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: VIEWS.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    choose(VIEWS[(next + VIEWS.length) % VIEWS.length][0], true);
  });
  // registered while the default is on screen, so that the default is what the hash leaves out
  state.field('view', {
    element: bar,
    get: () => current,
    // the default also comes for a hash without 'view': that hash's keys decide
    set: (value) => show(new URLSearchParams(location.hash.slice(1)).has('view') ? value : viewOfHash(location.hash, sectionInPage)),
  });
  show(viewOfHash(location.hash, sectionInPage));
}
