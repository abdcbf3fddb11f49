// The Images view (#caption): a scene of OpenMoji objects (caption-scene.mjs, edited in
// caption-editor.mjs), an uploaded photo, or an image with another captioner's maps
// (caption-byo.mjs); the caption the model worker writes for it (caption-worker.mjs), recomputed as
// the scene changes; each word's attention over the picture (caption-maps.mjs), on hover, tap or
// focus, stepped through word by word, and every word's map side by side in a strip that exports.
// Nothing is fetched until the section is first shown: the captioner is 3 MB. The scene, soft or
// hard, the seed and the word shown live in the URL hash ('scene', 'attend', 'seed', 'word').
import { showDrawnBy } from './align.mjs';
import { containRect, download, paintAttention, peakOf, stripPng, stripSvg } from './caption-maps.mjs';
import { SCENE_PRESETS, DEFAULT_PRESET, decodeScene, drawScene, encodeScene, outsideTrainingMessage } from './caption-scene.mjs';
import { SceneEditor } from './caption-editor.mjs';
import { typedWords } from './caption-byo.mjs';
import { Requests, showProblem } from './controls.mjs';
import { onLanguage, showSaid, t } from './i18n.mjs';
import { message, saidBy } from './messages.mjs';

/** @type {(id: string) => any} index.html's element of that id */
const $ = (id) => document.getElementById(id);
const CAPTIONER = 'captioner.safetensors';
const TILE = 60;  // a strip map's side, CSS pixels: a caption's eleven words in one row
const PLAY_MS = 700;
/** @type {(event: Event) => HTMLElement} */
const targetOf = (event) => /** @type {HTMLElement} */ (event.target);
const PHOTO_NOTE = 'The model learned from drawn emoji scenes only ({kinds} kinds of objects on a plain background), never from ' +
  'photos: it describes a photo in that small vocabulary, and its words and maps say more about the model than about the photo.';
// The caption's word buttons and the strip's figures (each list also holds its gliding highlight).
/** @type {() => HTMLCollectionOf<HTMLElement>} */
const wordButtons = () => $('caption-words').getElementsByClassName('caption-word');
const stripTiles = () => $('caption-strip').getElementsByTagName('figure');

// The view drawn in a section (for the tests and the page's measurements), as heatmapOf gives a figure.
const views = new WeakMap();
/** @returns {CaptionView | undefined} */
export const captionViewOf = (section) => views.get(section);

export class CaptionView {
  /** @param {import('./worker-client.mjs').WorkerClient} client the model worker's */
  constructor(client, state) {
    this.client = client;
    this.state = state;
    this.section = $('caption');
    views.set(this.section, this);
    this.canvas = $('caption-canvas');
    this.sceneText = encodeScene(DEFAULT_PRESET.scene);  // the hash's, until the objects are known
    this.scene = DEFAULT_PRESET.scene;
    this.source = { kind: 'scene' };  // or {kind: 'photo' | 'byo', bitmap, file...}
    this.result = null;  // the caption shown: {words, attention: {data, shape}, cells, hard}
    this.step = 0;       // the word the stepper is on
    this.playing = 0;    // the interval that steps through the words, while one does
    this.preview = -1;   // the word under the pointer, shown instead while it is there
    /** @type {HTMLCanvasElement | null} the picture without attention, at the stage's size */
    this.base = null;
    /** @type {HTMLCanvasElement | null} the scene at the model's image size */
    this.modelCanvas = null;
    this.latencies = []; // ms from a scene change to its caption drawn, for the page's measurements
    this.requests = new Requests($('caption-busy'), (message) => client.request(message, message.image?.data ? [message.image.data.buffer] : []));
    client.addEventListener('progress', (/** @type {CustomEvent} */ { detail }) => { if (detail.file === CAPTIONER) this.requests.busy.progress(detail.loaded, detail.total); });
  }

  /** Registers the view's hash keys now; the rest waits until the section is first shown. */
  start() {
    const attend = $('attend');
    this.state.field('scene', {
      element: $('scene'), get: () => (this.objects ? encodeScene(this.scene) : this.sceneText),
      set: (text) => { this.sceneText = text; if (this.objects) this.showScene(this.decode(text)); },
    });
    this.state.field('attend', {
      element: attend, get: () => (this.hard ? 'hard' : 'soft'),
      set: (value) => { attend.querySelector(`[value="${value === 'hard' ? 'hard' : 'soft'}"]`).checked = true; this.recaption(); },
    });
    this.state.control('seed', $('seed'));
    this.state.field('word', {
      element: $('caption-words'), get: () => String(this.step),
      set: (value) => { this.step = Math.max(0, Math.floor(Number(value)) || 0); this.render(); },
    });
    const visible = () => !this.section.hidden && this.activate();
    new MutationObserver(visible).observe(this.section, { attributes: true, attributeFilter: ['hidden'] });
    visible();
  }

  get hard() { return $('attend').querySelector('[value="hard"]').checked; }

  decode(text) { return decodeScene(text, new Set(this.objects.map((o) => o.name))) ?? DEFAULT_PRESET.scene; }

  // The first time the section shows: the objects and their artwork, the controls, the first caption.
  activate() {
    if (this.activated) return;
    this.activated = (async () => {
      const [index, module] = await Promise.all([fetch('dist/openmoji/objects.json').then((r) => r.json()), this.client.module]);
      this.facts = module.facts ?? {};
      this.objects = index.objects;
      this.imageSize = index.imageSize;
      for (const span of document.querySelectorAll('.caption-grid')) span.textContent = `${index.grid[0]} × ${index.grid[1]}`;
      $('openmoji-version').textContent = index.version;
      this.photoNote = message(PHOTO_NOTE, { kinds: index.objects.length });
      const artwork = (name) => `dist/openmoji/${this.objects.find((o) => o.name === name).hexcode}.svg`;
      this.images = new Map(await Promise.all(this.objects.map(async ({ name }) => {
        const image = new Image();
        image.src = artwork(name);
        await image.decode();
        return /** @type {[string, HTMLImageElement]} */ ([name, image]);
      })));
      this.editor = new SceneEditor({ stage: $('scene'), frames: $('caption-frames'), palette: $('caption-palette'), status: $('caption-edit-status') },
        this.objects, artwork, (scene, { live }) => this.sceneChanged(scene, live));
      this.listen();
      new ResizeObserver(() => this.render()).observe($('scene'));
      this.showScene(this.decode(this.sceneText));
      this.section.dataset.captionReady = 'true';
    })().catch((error) => {
      showSaid($('caption-status'), message('The Images view could not start: {problem}', { problem: error.message }));
      this.section.dataset.state = 'error';
    });
    return this.activated;
  }

  listen() {
    $('caption-presets').replaceChildren(...SCENE_PRESETS.map((preset) => {
      const button = Object.assign(document.createElement('button'), { type: 'button', textContent: t(preset.label) });
      button.dataset.preset = preset.id;
      button.addEventListener('click', () => { this.step = 0; this.showScene(preset.scene); this.saved(); });
      return button;
    }));
    $('attend').addEventListener('change', () => { this.recaption(); });
    $('seed').addEventListener('change', () => { if (this.hard) this.recaption(); });
    $('sample-again').addEventListener('click', () => {
      $('attend').querySelector('[value="hard"]').checked = true;
      $('seed').value = String(1 + Math.floor(Math.random() * 999999));
      this.recaption();
      this.saved();
    });
    $('caption-photo').addEventListener('change', (event) => { const file = event.target.files[0]; if (file) this.showPhoto(file); });
    $('caption-back').addEventListener('click', () => this.showScene(this.scene));
    for (const id of ['caption-byo-image', 'caption-byo-attention']) $(id).addEventListener('change', () => this.showByo(false));
    $('caption-byo-show').addEventListener('click', () => this.showByo(true));
    $('caption-step').addEventListener('input', () => this.goTo(Number($('caption-step').value)));
    $('caption-step-back').addEventListener('click', () => this.goTo(this.step - 1));
    $('caption-step-forward').addEventListener('click', () => this.goTo(this.step + 1));
    $('caption-play').addEventListener('click', () => this.play(!this.playing));
    const words = $('caption-words');
    words.addEventListener('pointerover', (event) => this.hover(event.target.closest('button')));
    words.addEventListener('pointerout', () => this.hover(null));
    words.addEventListener('click', (event) => { const word = event.target.closest('button'); if (word) this.goTo(Number(word.dataset.index)); });
    words.addEventListener('focusin', (event) => { const word = event.target.closest('button'); if (word) this.goTo(Number(word.dataset.index)); });
    words.addEventListener('keydown', (event) => {
      const next = { ArrowRight: this.step + 1, ArrowLeft: this.step - 1, Home: 0, End: Infinity }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      this.goTo(next, true);
    });
    $('caption-strip').addEventListener('pointerover', (event) => this.hover(targetOf(event).closest('figure')));
    $('caption-strip').addEventListener('pointerout', () => this.hover(null));
    $('caption-strip').addEventListener('click', (event) => { const map = event.target.closest('[data-index]'); if (map) this.goTo(Number(map.dataset.index)); });
    $('caption-export-png').addEventListener('click', async () => download('caption-attention.png', await stripPng(this.stripFigure())));
    $('caption-export-svg').addEventListener('click', async () => download('caption-attention.svg', new Blob([await stripSvg(this.stripFigure())], { type: 'image/svg+xml' })));
    // the highlight of the word shown and of its map: one box each that glides from item to item
    const highlight = (className) => Object.assign(document.createElement('span'), { className, hidden: true, ariaHidden: 'true' });
    this.wordMark = highlight('caption-mark');
    this.stripMark = highlight('caption-strip-mark');
    words.prepend(this.wordMark);
    $('caption-strip').prepend(this.stripMark);
    onLanguage(() => {  // the lines and labels this view writes, in the new language
      for (const [i, button] of [...$('caption-presets').children].entries()) button.textContent = t(SCENE_PRESETS[i].label);
      $('caption-play').textContent = t(this.playing ? 'Stop' : 'Play');
      if (this.result && this.section.dataset.state === 'ok') this.showLines();
      else if (this.result) this.showModelLine();  // the status keeps what went wrong
      this.render();
    });
  }

  saved() { $('scene').dispatchEvent(new Event('change', { bubbles: true })); }

  // ---- what is captioned ----

  showScene(scene) {
    this.source = { kind: 'scene' };
    this.scene = scene;
    this.editor.disabled = false;
    this.editor.setScene(scene);
    $('caption-back').hidden = true;
    this.sceneChanged(this.editor.scene, false);
  }

  sceneChanged(scene, live) {
    this.scene = scene;
    this.changedAt = performance.now();
    this.drawBase();
    this.render();
    this.recaption();
    if (!live) this.saved();
  }

  // The scene at the model's own size, as ImageData's bytes for the worker.
  modelPixels() {
    const side = this.imageSize;
    this.modelCanvas ??= Object.assign(document.createElement('canvas'), { width: side, height: side });
    const context = this.modelCanvas.getContext('2d', { willReadFrequently: true });
    drawScene(context, this.scene, this.images, side);
    const { data } = context.getImageData(0, 0, side, side);
    return { data: new Uint8Array(data.buffer), width: side, height: side };
  }

  async recaption() {
    if (!this.objects) return;
    const { kind } = this.source;
    if (kind === 'byo') return;  // its maps are the file's
    const options = { hard: this.hard, seed: Number($('seed').value) || 0 };
    const asked = this.changedAt ?? performance.now();
    const message = kind === 'photo' ? { type: 'captionPhoto', file: this.source.file, ...options } : { type: 'caption', image: this.modelPixels(), ...options };
    const reply = await this.requests.ask(this.result ? 'Captioning' : 'Loading the captioner (3 MB) and captioning', message);
    if (!reply) return;  // a newer scene is on its way
    if (reply.type !== 'result') {
      this.section.dataset.state = 'error';
      const said = reply.message === undefined ? 'cancelled' : saidBy(reply);
      if (kind === 'photo') showProblem($('caption-photo'), said);
      else showSaid($('caption-status'), said);
      return;
    }
    if (this.source.kind !== kind) return;  // another picture came meanwhile
    if (kind === 'photo') showProblem($('caption-photo'), '');
    this.show({ ...reply.result, hard: options.hard });
    // from the change to the frame that shows its caption and maps
    requestAnimationFrame(() => {
      this.latencies.push(performance.now() - asked);
      this.section.dataset.latency = this.latencies.at(-1).toFixed(1);
    });
  }

  async showPhoto(file) {
    let bitmap;
    try {
      bitmap = await createImageBitmap(file);
    } catch {
      showProblem($('caption-photo'), message('{file} is not an image this browser can read (PNG or JPEG)', { file: file.name }));
      return;
    }
    showProblem($('caption-photo'), '');
    this.source = { kind: 'photo', file, bitmap, name: file.name };
    this.editor.disabled = true;
    $('caption-back').hidden = false;
    this.changedAt = performance.now();
    this.drawBase();
    this.render();
    await this.recaption();
  }

  // Bring your own: both files chosen (and, with `asked`, the Show button) draw them.
  async showByo(asked) {
    const image = $('caption-byo-image').files[0], attention = $('caption-byo-attention').files[0];
    const error = $('caption-byo-error');
    if (!image || !attention) {
      if (asked) {
        showSaid(error, image ? 'Choose an attention file first.' : 'Choose an image first.');
        error.hidden = false;
      }
      return;
    }
    const reply = await this.requests.ask('Reading your files', { type: 'captionByo', image, attention, words: typedWords($('caption-byo-words').value) });
    if (!reply) return;
    if (reply.type !== 'result') {
      showSaid(error, reply.message === undefined ? 'cancelled' : saidBy(reply));
      error.hidden = false;
      this.section.dataset.state = 'error';
      return;
    }
    error.hidden = true;
    const bitmap = await createImageBitmap(image);
    this.source = { kind: 'byo', bitmap, name: image.name, attentionName: attention.name };
    this.editor.disabled = true;
    $('caption-back').hidden = false;
    this.drawBase();
    this.show({ ...reply.result, cells: null, hard: false });
  }

  // ---- drawing ----

  show(result) {
    this.result = result;
    const count = result.words.length;
    this.step = Math.min(this.step, Math.max(0, count - 1));
    const words = $('caption-words'), buttons = wordButtons();
    // the word buttons kept where the caption keeps its words (the focused one keeps the focus)
    while (buttons.length > count) buttons[buttons.length - 1].remove();
    result.words.forEach((word, i) => {
      const button = buttons[i] ?? words.appendChild(Object.assign(document.createElement('button'), { type: 'button', className: 'caption-word' }));
      button.dataset.index = String(i);
      if (button.textContent !== word) button.textContent = word;
    });
    Object.assign($('caption-step'), { max: String(Math.max(0, count - 1)), disabled: count < 2 });
    for (const id of ['caption-export-svg', 'caption-export-png']) $(id).disabled = count === 0;
    this.showLines();
    this.drawStrip();
    this.render();  // after the strip: its map of the word shown is marked too
    this.section.dataset.state = 'ok';
    this.section.dataset.caption = result.words.join(' ');
    this.section.dataset.attention = result.hard ? 'hard' : 'soft';
  }

  showLines() {
    const { kind } = this.source;
    const note = $('caption-note');
    showSaid(note, kind === 'photo' ? this.photoNote : kind === 'scene' ? outsideTrainingMessage(this.scene) : '');
    note.dataset.level = note.textContent ? 'unusual' : '';
    const status = $('caption-status');
    if (kind === 'byo') {
      const [count, height, width] = this.result.attention.shape;
      showSaid(status, message('{image} with {attention}: {count} maps over a {height} × {width} grid', { image: this.source.name, attention: this.source.attentionName, count, height, width }));
      this.showModelLine();
      return;
    }
    // the status line keeps the seed it was captioned with, while the box may already hold another
    this.result.seed ??= $('seed').value;
    showSaid(status, message('{picture}: “{caption}” ({attention}; {ms} ms in the worker)', {
      picture: kind === 'photo' ? this.source.name : message('The scene'), caption: this.result.words.join(' '),
      attention: this.result.hard ? message('hard attention, seed {seed}', { seed: this.result.seed }) : message('soft attention'),
      ms: this.result.milliseconds.toFixed(1),
    }));
    this.showModelLine();
  }

  // The line under the picture: what drew the maps (your file, or the captioner and how well it points).
  showModelLine() {
    if (this.source.kind === 'byo') {
      $('caption-model').textContent = t('Drawn from your file {file}, not by this project\'s captioner.', { file: this.source.attentionName });
      return;
    }
    const quality = this.facts[CAPTIONER]?.quality?.[this.result.hard ? 'hard' : 'soft'];
    const pointing = quality ? message(this.result.hard ? 'its sampled cell falls on the object a word names in {percent} % of held-out scenes ({scenes})'
      : 'its strongest cell falls on the object a word names in {percent} % of held-out scenes ({scenes})',
    { percent: (100 * quality.pointing).toFixed(1), scenes: message(quality.scenes) }) : '';
    showDrawnBy($('caption-model'), this.facts, CAPTIONER, pointing);
  }

  goTo(index, focus = false) {
    if (!this.result) return;
    const last = this.result.words.length - 1;
    this.step = Math.max(0, Math.min(last, Number.isFinite(index) ? index : last));
    this.render();
    if (focus) wordButtons()[this.step]?.focus();
    $('caption-words').dispatchEvent(new Event('change', { bubbles: true }));
  }

  // The caption written again word by word, PLAY_MS a word, from the first; again to stop.
  play(on) {
    clearInterval(this.playing);
    this.playing = 0;
    $('caption-play').setAttribute('aria-pressed', String(on));
    $('caption-play').textContent = t(on ? 'Stop' : 'Play');
    if (!on || !this.result) return;
    this.goTo(0);
    this.playing = setInterval(() => {
      this.goTo(this.step + 1);
      if (this.step >= this.result.words.length - 1) this.play(false);
    }, PLAY_MS);
  }

  hover(word) {
    this.preview = word ? Number(word.dataset.index) : -1;
    this.render();
  }

  // The picture without attention, at the stage's size (scene, photo or your image).
  drawBase() {
    const side = Math.max(1, Math.round($('scene').clientWidth * devicePixelRatio));
    this.base ??= document.createElement('canvas');
    this.base.width = this.base.height = side;
    const context = this.base.getContext('2d');
    context.clearRect(0, 0, side, side);
    if (this.source.kind === 'scene') {
      drawScene(context, this.scene, this.images, side);
      this.imageRect = { x: 0, y: 0, width: side, height: side };
    } else {
      const { bitmap } = this.source;
      this.imageRect = containRect(bitmap.width, bitmap.height, side);
      const r = this.imageRect;
      context.drawImage(bitmap, r.x, r.y, r.width, r.height);
    }
  }

  mapOf(index) {
    const { data, shape: [, height, width] } = this.result.attention;
    return data.subarray(index * height * width, (index + 1) * height * width);
  }

  // The stage: the picture, and over it the map of the word under the pointer, else the step's.
  render() {
    if (!this.base) return;
    const side = Math.max(1, Math.round($('scene').clientWidth * devicePixelRatio));
    if (this.base.width !== side) this.drawBase();
    if (this.canvas.width !== side) this.canvas.width = this.canvas.height = side;
    const context = this.canvas.getContext('2d');
    context.drawImage(this.base, 0, 0);
    const result = this.result;
    const words = wordButtons();
    if (!result || result.words.length === 0) return;
    const shown = this.preview >= 0 && this.preview < result.words.length ? this.preview : this.step;
    const [, height, width] = result.attention.shape;
    const map = this.mapOf(shown);
    paintAttention(context, map, [height, width], this.imageRect, { cell: result.hard ? result.cells[shown] : -1 });
    const [row, col] = peakOf(map, width);
    Object.assign(this.canvas.dataset, { word: String(shown), peak: `${row},${col}`, grid: `${height},${width}` });
    [...words].forEach((word, i) => {
      word.classList.toggle('later', i > this.step);
      word.setAttribute('aria-pressed', String(i === shown));
      word.tabIndex = i === this.step ? 0 : -1;
    });
    $('caption-step').value = String(this.step);
    $('caption-step-label').textContent = t('word {word} of {count}: “{text}”', { word: this.step + 1, count: result.words.length, text: result.words[this.step] });
    for (const [i, tile] of [...stripTiles()].entries()) tile.classList.toggle('chosen', i === shown);
    glide(this.wordMark, words[shown]);
    glide(this.stripMark, stripTiles()[shown]);
  }

  // A word's map over the picture as a square canvas of `size` pixels (the strip and its exports).
  tile(index, size, canvas = Object.assign(document.createElement('canvas'), { width: size, height: size })) {
    const context = canvas.getContext('2d');
    context.clearRect(0, 0, size, size);
    context.drawImage(this.base, 0, 0, size, size);
    const scale = size / this.base.width, r = this.imageRect;
    const [, height, width] = this.result.attention.shape;
    paintAttention(context, this.mapOf(index), [height, width], { x: r.x * scale, y: r.y * scale, width: r.width * scale, height: r.height * scale },
      { cell: this.result.hard ? this.result.cells[index] : -1 });
    return canvas;
  }

  // The strip: one figure a word, kept and painted again while the caption keeps its length.
  drawStrip() {
    const size = Math.round(TILE * devicePixelRatio);
    const strip = $('caption-strip'), tiles = stripTiles();
    while (tiles.length > this.result.words.length) tiles[tiles.length - 1].remove();
    this.result.words.forEach((word, i) => {
      let figure = tiles[i];
      if (!figure) {
        figure = document.createElement('figure');
        figure.dataset.index = String(i);
        const canvas = Object.assign(document.createElement('canvas'), { width: size, height: size });
        canvas.style.width = canvas.style.height = `${TILE}px`;
        figure.append(canvas, document.createElement('figcaption'));
        strip.append(figure);
      }
      const canvas = figure.querySelector('canvas');
      this.tile(i, size, canvas);
      const label = figure.querySelector('figcaption');
      if (label.textContent !== word) label.textContent = word;
    });
  }

  stripFigure() {
    const style = getComputedStyle(document.documentElement);
    const title = `“${this.result.words.join(' ')}”: where the model looked for each word`;
    return {
      title, caption: $('caption-model').textContent, words: this.result.words, tiles: (i, size) => this.tile(i, size),
      fg: style.getPropertyValue('--fg').trim(), bg: style.getPropertyValue('--bg').trim(),
    };
  }
}

// Moves the highlight `mark` onto `item` (a word or a map of the strip): the stylesheet makes it glide
// there (style.css: 180 ms, none where the reader asks for less motion); it appears in place.
/** @param {HTMLElement | undefined} mark @param {HTMLElement | undefined} item */
function glide(mark, item) {
  if (!mark) return;
  mark.hidden = !item || item.offsetWidth === 0;
  if (mark.hidden) {
    delete mark.dataset.shown;
    return;
  }
  const appearing = !mark.dataset.shown;
  if (appearing) mark.style.transition = 'none';
  Object.assign(mark.style, { width: `${item.offsetWidth}px`, height: `${item.offsetHeight}px`, transform: `translate(${item.offsetLeft}px, ${item.offsetTop}px)` });
  mark.dataset.index = item.dataset.index;
  if (appearing) {
    void mark.offsetWidth;  // the place taken at once, before the transition is on again
    mark.style.transition = '';
    mark.dataset.shown = 'true';
  }
}
