// Every control's value in the URL hash, so that a link reproduces the view: written on every
// change (history.replaceState: no new history entry per keystroke), read at start and again
// whenever the hash changes (someone edits it, or follows a link to another state in the same tab).
// Only values that differ from the page's defaults are written; a key missing from the hash means
// the default. encodeState / decodeState are pure (tests/js/state.test.mjs).

/** {key: value} (strings) without the defaults -> 'key=value&...' */
export function encodeState(values, defaults) {
  const changed = Object.entries(values).filter(([key, value]) => value !== defaults[key]);
  return new URLSearchParams(changed).toString();
}

/** A hash ('#...' or '...') -> every known key's value: the hash's, else the default. */
export function decodeState(hash, defaults) {
  const given = new URLSearchParams(hash.replace(/^#/, ''));
  return Object.fromEntries(Object.entries(defaults).map(([key, value]) => [key, given.has(key) ? given.get(key) : value]));
}

// A control's value as text: checkboxes '1' / '0', everything else its value.
const readControl = (control) => (control.type === 'checkbox' ? (control.checked ? '1' : '0') : control.value);

function writeControl(control, value) {
  if (control.type === 'checkbox') control.checked = value === '1';
  else if (control.tagName === 'SELECT' && ![...control.options].some((option) => option.value === value)) return;  // not offered here
  else control.value = value;
}

export class HashState {
  /** @param {{share?: HTMLAnchorElement}} [options] */
  constructor({ share } = {}) {
    this.fields = new Map();  // key -> {get, set, element}
    this.defaults = {};
    this.share = share;       // an <a> whose href follows the state
    this.applying = false;
    const save = (event) => { if ([...this.fields.values()].some((field) => field.element?.contains(event.target))) this.save(); };
    document.addEventListener('input', save);
    document.addEventListener('change', save);
    window.addEventListener('hashchange', () => this.apply());
  }

  /** A control under `key`; its value now is its default (the hash's, if any, is set at once). */
  control(key, element) {
    this.field(key, { element, get: () => readControl(element), set: (value) => writeControl(element, value) });
  }

  /**
   * Anything else under `key` (a zoom, a step): get() and set(text), and the element whose events
   * mean it changed. Its value now is its default; the hash's value, if any, is set at once.
   */
  field(key, field) {
    this.fields.set(key, field);
    this.defaults[key] = field.get();
    const given = new URLSearchParams(location.hash.slice(1));
    if (given.has(key) && given.get(key) !== this.defaults[key]) field.set(given.get(key));
  }

  values() {
    return Object.fromEntries([...this.fields].map(([key, field]) => [key, field.get()]));
  }

  save() {
    if (this.applying) return;
    const hash = encodeState(this.values(), this.defaults);
    const url = `${location.pathname}${location.search}${hash ? `#${hash}` : ''}`;
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', url);
    if (this.share) this.share.href = location.href;
  }

  /** Sets every field from the hash; returns the controls whose value changed. */
  restore() {
    const wanted = decodeState(location.hash, this.defaults);
    const changed = [];
    this.applying = true;
    for (const [key, field] of this.fields) {
      if (field.get() === wanted[key]) continue;
      field.set(wanted[key]);
      changed.push(field);
    }
    this.applying = false;
    if (this.share) this.share.href = location.href;
    return changed;
  }

  // After the page has started: the views hear of each change as if the reader had made it.
  apply() {
    const changed = this.restore();
    this.applying = true;
    for (const field of changed) {
      (field.element ?? document).dispatchEvent(new Event('input', { bubbles: true }));
      field.changed?.();
    }
    this.applying = false;
  }
}
