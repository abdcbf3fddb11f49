// The Images view's scene editor: a palette of the captioner's objects (their OpenMoji artwork) to
// drag onto the scene or click in, and over the scene one frame per object to move (drag it, or
// the arrow keys), resize (its corner handle, or + and −) and remove (its × button, or Delete).
// Pointer events serve the mouse, a pen and touch alike. Every change calls onChange(scene, {live}):
// live while a drag goes on (the caption follows it), not live once it ends (the URL keeps it).
import { MAX_OBJECTS, freeSpot, placed } from './caption-scene.mjs';
import { onLanguage, say, showSaid, t } from './i18n.mjs';
import { message } from './messages.mjs';

const NEW_SIZE = 0.28;   // a new object's side (a fraction of the image side: the trained sizes' middle)
const STEP = 1 / 96;     // an arrow key moves one pixel of the model's image; with Shift, eight
const DRAG_FROM = 4;     // pixels a palette press moves before it is a drag rather than a click

/** @type {(event: Event) => HTMLElement} */
const targetOf = (event) => /** @type {HTMLElement} */ (event.target);
const percent = (x) => `${Math.round(x * 100)} %`;
// where an object is, as a message the status line says in the reader's language
const placeOf = (o) => message('{name}, {x} from the left, {y} from the top, {size} of the side', { name: o.name, x: percent(o.x), y: percent(o.y), size: percent(o.size) });

export class SceneEditor {
  /**
   * @param {{stage: HTMLElement, frames: HTMLElement, palette: HTMLElement, status: HTMLElement}} elements
   * @param {{name: string, hexcode: string}[]} objects the model's objects, in its order
   * @param {(name: string) => string} artwork the URL of an object's SVG
   * @param {(scene: {objects: object[]}, how: {live: boolean}) => void} onChange
   */
  constructor({ stage, frames, palette, status }, objects, artwork, onChange) {
    this.stage = stage;
    this.frames = frames;
    this.palette = palette;
    this.status = status;
    this.onChange = onChange;
    this.scene = { objects: [] };
    this.enabled = true;
    this.labelPalette = () => palette.querySelectorAll('.palette-object').forEach((button) => {
      const label = t('add a {name}', { name: /** @type {HTMLElement} */ (button).dataset.name });
      button.setAttribute('aria-label', label);
      button.setAttribute('title', label);
    });
    onLanguage(() => {  // the palette's and the frames' names in the new language
      this.labelPalette();
      this.drawFrames();
    });
    palette.replaceChildren(...objects.map(({ name }) => {
      const button = Object.assign(document.createElement('button'), { type: 'button', className: 'palette-object' });
      button.dataset.name = name;
      button.append(Object.assign(document.createElement('img'), { src: artwork(name), alt: '', draggable: false, width: 32, height: 32 }));
      return button;
    }));
    this.labelPalette();
    this.listenToPalette();
    this.listenToFrames();
  }

  /** Shows `scene` (its objects kept in the image) without calling onChange. */
  setScene(scene) {
    this.scene = { objects: scene.objects.map(placed) };
    this.drawFrames();
  }

  set disabled(value) {
    this.enabled = !value;
    this.frames.hidden = value;
    for (const button of this.palette.querySelectorAll('button')) button.disabled = value;
  }

  change(objects, live, focus = -1) {
    this.scene = { objects };
    this.drawFrames(focus);
    this.onChange(this.scene, { live });
  }

  // One frame per object, in scene order (later ones on top, as drawn).
  drawFrames(focus = -1) {
    const frames = this.scene.objects.map((o, i) => {
      let frame = /** @type {HTMLElement} */ (this.frames.children[i]);
      if (!frame) {
        frame = document.createElement('div');
        frame.className = 'scene-object';
        frame.tabIndex = 0;
        frame.setAttribute('role', 'button');
        const handle = Object.assign(document.createElement('span'), { className: 'resize-handle' });
        const remove = Object.assign(document.createElement('button'), { type: 'button', className: 'remove-object', textContent: '×', tabIndex: -1 });
        frame.append(handle, remove);
      }
      frame.dataset.index = String(i);
      frame.dataset.name = o.name;
      frame.style.left = `${o.x * 100}%`;
      frame.style.top = `${o.y * 100}%`;
      frame.style.width = frame.style.height = `${o.size * 100}%`;
      frame.setAttribute('aria-roledescription', t('movable object'));
      frame.setAttribute('aria-label', `${say(placeOf(o))}${t('; arrow keys move it, + and − resize it, Delete removes it')}`);
      frame.querySelector('.resize-handle').setAttribute('title', t('drag to resize'));
      frame.querySelector('.remove-object').setAttribute('aria-label', t('remove the {name}', { name: o.name }));
      return frame;
    });
    // the frames kept in place (a frame taken out of the page would lose its pointer capture mid-drag)
    frames.forEach((frame, i) => { if (this.frames.children[i] !== frame) this.frames.append(frame); });
    while (this.frames.children.length > frames.length) this.frames.lastElementChild.remove();
    if (focus >= 0) frames[Math.min(focus, frames.length - 1)]?.focus();
  }

  // The stage's point under a pointer, as fractions of its side.
  pointOf(event) {
    const box = this.stage.getBoundingClientRect();
    return { x: (event.clientX - box.left) / box.width, y: (event.clientY - box.top) / box.height, inside: event.clientX >= box.left &&
      event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom };
  }

  add(name, at = null) {
    if (!this.enabled) return;
    if (this.scene.objects.length >= MAX_OBJECTS) {
      showSaid(this.status, message('At most {most} objects: remove one first.', { most: MAX_OBJECTS }));
      return;
    }
    const spot = at ? { x: at.x - NEW_SIZE / 2, y: at.y - NEW_SIZE / 2 } : freeSpot(this.scene, NEW_SIZE);
    const object = placed({ name, ...spot, size: NEW_SIZE });
    showSaid(this.status, message('Added a {name}.', { name }));
    this.change([...this.scene.objects, object], false, this.scene.objects.length);
  }

  remove(index) {
    const gone = this.scene.objects[index];
    showSaid(this.status, message('Removed the {name}.', { name: gone.name }));
    this.change(this.scene.objects.filter((_, i) => i !== index), false, -1);
    const next = this.frames.children[Math.min(index, this.frames.children.length - 1)] ?? this.palette.querySelector('button');
    /** @type {HTMLElement} */ (next)?.focus();
  }

  // A palette press: a click adds the object at a free spot; a drag drops it where it is let go.
  listenToPalette() {
    let drag = null, dropped = false;
    this.palette.addEventListener('pointerdown', (event) => {
      const button = /** @type {HTMLElement} */ (targetOf(event).closest('.palette-object'));
      if (!button || !this.enabled || event.button > 0) return;
      button.setPointerCapture(event.pointerId);
      drag = { name: button.dataset.name, x: event.clientX, y: event.clientY, ghost: null, button };
    });
    this.palette.addEventListener('pointermove', (event) => {
      if (!drag) return;
      if (!drag.ghost && Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_FROM) return;
      if (!drag.ghost) {
        drag.ghost = /** @type {HTMLImageElement} */ (drag.button.querySelector('img').cloneNode());
        drag.ghost.className = 'palette-ghost';
        document.body.append(drag.ghost);
      }
      drag.ghost.style.left = `${event.clientX}px`;
      drag.ghost.style.top = `${event.clientY}px`;
    });
    const end = (event) => {
      if (!drag) return;
      const { ghost, name } = drag;
      drag = null;
      if (!ghost) return;  // a click: the click event adds it
      ghost.remove();
      dropped = true;  // the click that follows a drag adds nothing
      setTimeout(() => { dropped = false; }, 0);
      const point = this.pointOf(event);
      if (event.type === 'pointerup' && point.inside) this.add(name, point);
    };
    this.palette.addEventListener('pointerup', end);
    this.palette.addEventListener('pointercancel', end);
    this.palette.addEventListener('click', (event) => {
      const button = /** @type {HTMLElement} */ (targetOf(event).closest('.palette-object'));
      if (button && !dropped) this.add(button.dataset.name);
    });
  }

  // Dragging a frame moves its object; dragging its corner handle resizes it (the top-left corner
  // stays); the keyboard does both on the focused frame.
  listenToFrames() {
    let drag = null;
    this.frames.addEventListener('pointerdown', (event) => {
      const frame = /** @type {HTMLElement} */ (targetOf(event).closest('.scene-object'));
      if (!frame || targetOf(event).closest('.remove-object') || event.button > 0) return;
      event.preventDefault();
      frame.focus();
      frame.setPointerCapture(event.pointerId);
      const index = Number(frame.dataset.index);
      drag = { index, start: this.pointOf(event), object: this.scene.objects[index], resize: Boolean(targetOf(event).closest('.resize-handle')), moved: false };
      frame.classList.add('dragging');
    });
    this.frames.addEventListener('pointermove', (event) => {
      if (!drag) return;
      const point = this.pointOf(event);
      const dx = point.x - drag.start.x, dy = point.y - drag.start.y;
      const { object } = drag;
      const next = drag.resize ? placed({ ...object, size: object.size + Math.max(dx, dy) }) : placed({ ...object, x: object.x + dx, y: object.y + dy });
      const current = this.scene.objects[drag.index];
      if (['x', 'y', 'size'].every((key) => Math.abs(next[key] - current[key]) < 1e-6)) return;
      drag.moved = true;
      this.change(this.scene.objects.map((o, i) => (i === drag.index ? next : o)), true);
    });
    const end = () => {
      if (!drag) return;
      this.frames.querySelector('.dragging')?.classList.remove('dragging');
      const { moved, index } = drag;
      drag = null;
      if (moved) this.change(this.scene.objects, false, index);
    };
    this.frames.addEventListener('pointerup', end);
    this.frames.addEventListener('pointercancel', end);
    this.frames.addEventListener('click', (event) => {
      const remove = targetOf(event).closest('.remove-object');
      if (remove) this.remove(Number(/** @type {HTMLElement} */ (remove.closest('.scene-object')).dataset.index));
    });
    this.frames.addEventListener('keydown', (event) => {
      const frame = /** @type {HTMLElement} */ (targetOf(event).closest('.scene-object'));
      if (!frame) return;
      const index = Number(frame.dataset.index), object = this.scene.objects[index];
      const step = event.shiftKey ? 8 * STEP : STEP;
      const moves = { ArrowLeft: [-step, 0, 0], ArrowRight: [step, 0, 0], ArrowUp: [0, -step, 0], ArrowDown: [0, step, 0], '+': [0, 0, step], '=': [0, 0, step], '-': [0, 0, -step] };
      if (event.key === 'Delete' || event.key === 'Backspace') {
        event.preventDefault();
        this.remove(index);
        return;
      }
      const move = moves[event.key];
      if (!move) return;
      event.preventDefault();
      const next = placed({ ...object, x: object.x + move[0], y: object.y + move[1], size: object.size + move[2] });
      showSaid(this.status, placeOf(next));
      this.change(this.scene.objects.map((o, i) => (i === index ? next : o)), false, index);
    });
  }
}
