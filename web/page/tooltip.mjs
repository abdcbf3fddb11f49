// One tooltip for the page, at the pointer: a figure says what is under the pointer there as well
// as in its readout, which screen readers hear (the tooltip is aria-hidden). Text only.
let tip = null;

/** Shows `text` beside the pointer of `event`, inside the window; not for a finger, which covers it. */
export function showTip(event, text) {
  if (event.pointerType === 'touch') return;
  if (!tip) {
    tip = Object.assign(document.createElement('div'), { id: 'tooltip', className: 'tooltip' });
    tip.setAttribute('aria-hidden', 'true');
    document.body.append(tip);
  }
  tip.textContent = text;
  tip.hidden = false;
  const box = tip.getBoundingClientRect();
  let x = event.clientX + 14, y = event.clientY + 18;
  if (x + box.width > innerWidth - 4) x = event.clientX - box.width - 10;
  if (y + box.height > innerHeight - 4) y = event.clientY - box.height - 12;
  tip.style.left = `${Math.max(4, x)}px`;
  tip.style.top = `${Math.max(4, y)}px`;
}

export function hideTip() {
  if (tip) tip.hidden = true;
}
