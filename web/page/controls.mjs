// What every view does with its controls: numbers checked against the input's own min, max and
// step (clamped or rounded with a message, or refused when there is no number: never silently),
// problems shown next to their control (role="alert"), and requests to a worker with a busy
// indicator for work that takes longer than BUSY_AFTER_MS (elapsed time, progress where known, a
// Cancel button). checkNumber is pure (the module worker and tests/js/ use it too); the rest needs
// a page.
import { say, showSaid, t } from './i18n.mjs';
import { english, message } from './messages.mjs';
import { latestOnly } from './worker-client.mjs';

export const BUSY_AFTER_MS = 150;

const attributeNumber = (text, fallback) => (text === null || text === '' || text === 'any' ? fallback : Number(text));

/**
 * checkNumber(text, {name, min, max, step}) -> {value, message}: value is the number to use
 * (clamped into [min, max], rounded to the step counted from min) or null when there is none;
 * message says what was changed or refused ('' when the text was fine as it was).
 */
/** @param {string} text @param {{name: string, min?: number, max?: number, step?: number | 'any'}} limits */
export function checkNumber(text, limits) {
  const { value, said } = numberCheck(text, limits);
  return { value, message: english(said) };
}

/**
 * checkNumber's answer with its message as a message (messages.mjs) the page says in the reader's language: {value, said}.
 * @param {string} text @param {{name: string, min?: number, max?: number, step?: number | 'any'}} limits
 * @returns {{value: number | null, said: import('./messages.mjs').Message}}
 */
export function numberCheck(text, { name: named, min = -Infinity, max = Infinity, step = 'any' }) {
  const trimmed = String(text ?? '').trim();
  const number = trimmed === '' ? NaN : Number(trimmed);
  const name = message(named);  // a control's name, said in the reader's language where the tables have it
  const range = max === Infinity ? (min === -Infinity ? '' : message(' {min} or more', { min })) : min === -Infinity ? message(' up to {max}', { max }) : message(' from {min} to {max}', { min, max });
  if (!Number.isFinite(number)) {
    return { value: null, said: message('{name} needs a number{range}{given}', { name, range, given: trimmed ? message(', not “{text}”', { text: trimmed }) : '' }) };
  }
  if (number < min) return { value: min, said: message('{name} {text} is below {min}: using {value}', { name, text: trimmed, min, value: min }) };
  if (number > max) return { value: max, said: message('{name} {text} is above {max}: using {value}', { name, text: trimmed, max, value: max }) };
  const increment = attributeNumber(step, NaN);
  if (Number.isFinite(increment) && increment > 0) {
    const base = Number.isFinite(min) ? min : 0;
    const snapped = Math.min(max, +(base + Math.round((number - base) / increment) * increment).toFixed(10));
    if (Math.abs(snapped - number) > 1e-9 * Math.max(1, Math.abs(number))) {
      const params = { name, text: trimmed, step: increment, value: snapped };
      return { value: snapped, said: message(increment === 1 ? '{name} {text} is not a whole number: using {value}' : '{name} {text} is not a step of {step}: using {value}', params) };
    }
  }
  return { value: number, said: '' };
}

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/**
 * A number as people read it in a table: `digits` decimals below a million, beyond that three
 * significant digits times a power of ten ("1.32 × 10²⁸", where toFixed would print
 * "1.3226127786782054e+28"), and ∞, −∞ or "not a number" for what is not finite.
 */
export function readableNumber(x, digits) {
  if (Number.isNaN(x)) return 'not a number';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '−∞';
  const size = Math.abs(x);
  if (size < 1e6) return x.toFixed(digits);
  const [mantissa, exponent] = x.toExponential(2).split('e');
  return `${mantissa} × 10${[...String(Number(exponent))].map((c) => SUPERSCRIPT[c]).join('')}`;
}

/** The bounds of a number input, as checkNumber takes them; the name is its data-name. */
export const boundsOf = (input) => ({
  name: input.dataset.name ?? input.id,
  min: attributeNumber(input.getAttribute('min'), -Infinity),
  max: attributeNumber(input.getAttribute('max'), Infinity),
  step: input.getAttribute('step') ?? '1',
});

/** A number input's value through checkNumber, with its message shown next to it; null: refused. */
export function readNumber(input) {
  const { value, said } = numberCheck(input.validity.badInput ? 'not a number' : input.value, boundsOf(input));
  showProblem(input, said);
  return value;
}

// The element that shows a control's problem: #<id>-error when the page has one, else a new one
// placed after the control (after its label, when the control sits inside one).
function problemBox(control) {
  const id = `${control.id}-error`;
  let box = document.getElementById(id);
  if (!box) {
    box = Object.assign(document.createElement('span'), { id, className: 'field-error', hidden: true });
    box.setAttribute('role', 'alert');
    (control.closest('label') ?? control).after(box);
  }
  const described = new Set((control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean));
  if (!described.has(id)) control.setAttribute('aria-describedby', [...described, id].join(' '));
  return box;
}

// Puts text on the clipboard: a promise that rejects where the browser has no clipboard (an
// insecure page) or refuses it, so that every caller can say what to do instead.
export function copyText(text) {
  return navigator.clipboard?.writeText(text) ?? Promise.reject(new Error('no clipboard'));
}

/**
 * Shows (or, with '', clears) a problem next to an element, in the reader's language (a message of
 * messages.mjs, or English text); a form control is marked aria-invalid.
 */
export function showProblem(control, message) {
  const box = problemBox(control);
  showSaid(box, message);
  box.hidden = !message;
  if (!('validity' in control)) return;
  if (message) control.setAttribute('aria-invalid', 'true');
  else control.removeAttribute('aria-invalid');
}

/**
 * A busy indicator inside `container`: start(text) shows it once the work has taken BUSY_AFTER_MS
 * (a spinner, the text, the seconds so far and, with onCancel, a Cancel button); progress(loaded,
 * total) adds a progress bar; stop() hides it. The view's section gets data-busy while it shows.
 */
export class BusyIndicator {
  /** @param {HTMLElement} container @param {{onCancel?: () => void}} [options] */
  constructor(container, { onCancel } = {}) {
    this.box = Object.assign(document.createElement('div'), { className: 'busy', hidden: true });
    this.box.setAttribute('role', 'status');
    this.text = Object.assign(document.createElement('span'), { className: 'busy-text' });
    this.bar = Object.assign(document.createElement('progress'), { hidden: true, max: 1 });
    this.box.append(Object.assign(document.createElement('span'), { className: 'spinner' }), this.text, this.bar);
    if (onCancel) {
      this.cancel = Object.assign(document.createElement('button'), { type: 'button', textContent: t('Cancel'), className: 'cancel' });
      this.cancel.addEventListener('click', () => onCancel());
      this.box.append(this.cancel);
    }
    container.append(this.box);
    this.section = container.closest('section');
    this.timer = 0;
    this.ticker = 0;
  }

  /** @param {any} text what is being done: English text or a message (messages.mjs) */
  start(text) {
    this.label = text;
    if (this.timer || !this.box.hidden) {  // still busy: the words change, the seconds count on
      this.render();
      return;
    }
    this.started = performance.now();
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.box.hidden = false;
      if (this.section) this.section.dataset.busy = 'true';
      this.render();
      this.ticker = setInterval(() => this.render(), 250);
    }, BUSY_AFTER_MS);
  }

  render() {
    const seconds = (performance.now() - this.started) / 1000;
    this.text.textContent = t('{what}… {seconds} s', { what: say(this.label), seconds: seconds.toFixed(1) });
  }

  progress(loaded, total) {
    this.bar.hidden = !total;
    if (total) {
      this.bar.value = loaded / total;
      this.bar.textContent = `${Math.round((100 * loaded) / total)}%`;
    }
  }

  stop() {
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    this.timer = 0;
    this.ticker = 0;
    this.box.hidden = true;
    this.bar.hidden = true;
    if (this.section) delete this.section.dataset.busy;
  }
}

/**
 * A view's requests to a worker: send(settings) runs for the latest settings only (latestOnly),
 * with a busy indicator in `container` while one is out. ask(label, settings) resolves with the
 * reply, or null when newer settings or refuse() made it moot (the indicator then stays for the
 * newer ones); refuse() forgets what is out, for settings the view would not send.
 */
export class Requests {
  /** @param {HTMLElement} container @param {(settings: any) => Promise<any>} send @param {{onCancel?: () => void}} [options] */
  constructor(container, send, { onCancel } = {}) {
    this.busy = new BusyIndicator(container, { onCancel });
    this.run = latestOnly(send);
  }

  async ask(label, settings) {
    this.busy.start(label);
    const reply = await this.run(settings);
    if (reply.type === 'superseded') return null;
    this.busy.stop();
    return reply;
  }

  refuse() {
    this.run.drop();
    this.busy.stop();
  }
}
