// The message box grows with its text up to a limit (view.css: 40% of the window), then
// scrolls. Chromium does it in CSS (`field-sizing: content`); elsewhere the box is fitted to
// its text as it is typed.

export function growWithText(box) {
  if (CSS.supports('field-sizing', 'content')) return;
  const fit = () => {
    box.style.height = 'auto';
    box.style.height = `${box.scrollHeight + 2}px`;
  };
  box.addEventListener('input', fit);
  box.form?.addEventListener('submit', () => requestAnimationFrame(fit));
}
