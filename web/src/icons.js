// Small interface icons drawn by our own SVG paths (no emoji: without a colour-emoji font
// they show as empty boxes).  Each is a 24x24 line drawing in the current text colour.
import { html } from "./render/common.js";

const PATHS = {
  menu: html`<path d="M4 7h16M4 12h16M4 17h16"/>`,
  book: html`<path d="M4 5.5C6.5 4.5 9.5 4.5 12 6c2.5-1.5 5.5-1.5 8-.5V19c-2.5-1-5.5-1-8 .5-2.5-1.5-5.5-1.5-8-.5z"/><path d="M12 6v13.5"/>`,
  leave: html`<path d="M14 4H6v16h8"/><path d="M10 12h10M16 8l4 4-4 4"/>`,
  play: html`<path d="M8 5l11 7-11 7z" fill="currentColor"/>`,
  fast: html`<path d="M4 6l8 6-8 6zM12 6l8 6-8 6z" fill="currentColor"/>`,
  instant: html`<path d="M4 6l7 6-7 6zM11 6l7 6-7 6z" fill="currentColor"/><path d="M20 6v12"/>`,
  sound: html`<path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/><path d="M16 9a4 4 0 0 1 0 6M18.5 6.5a7.5 7.5 0 0 1 0 11"/>`,
  mute: html`<path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/><path d="M16 9l5 6M21 9l-5 6"/>`,
  close: html`<path d="M6 6l12 12M18 6L6 18"/>`,
  settings: html`<path d="M4 7h9M17 7h3M4 17h3M11 17h9"/><circle cx="15" cy="7" r="2"/><circle cx="9" cy="17" r="2"/>`,
  check: html`<path d="M5 12.5l4.5 4.5L19 7.5"/>`,
  replay: html`<path d="M5 12a7 7 0 1 0 2-5"/><path d="M4 4v4h4"/>`,
  resume: html`<path d="M5 12a7 7 0 1 1 2 5"/><path d="M10 9l5 3-5 3z" fill="currentColor"/>`,
  warn: html`<path d="M12 4l9 16H3z"/><path d="M12 10v4M12 17v.5"/>`,
  arrow: html`<path d="M4 12h15M14 7l5 5-5 5"/>`,
  people: html`<circle cx="9" cy="8" r="3.2"/><path d="M3 19c.5-3.5 3-5.5 6-5.5s5.5 2 6 5.5"/><path d="M15.5 5a3 3 0 0 1 0 6M17.5 13.8c2 .8 3.2 2.6 3.5 5.2"/>`,
  bot: html`<rect x="5" y="8" width="14" height="11" rx="2.5"/><path d="M12 8V4.5M9.5 13v.5M14.5 13v.5M9.5 16.5h5"/>`,
  eye: html`<path d="M2.5 12S6 5.5 12 5.5 21.5 12 21.5 12 18 18.5 12 18.5 2.5 12 2.5 12z"/><circle cx="12" cy="12" r="2.8"/>`,
  person: html`<circle cx="12" cy="8" r="3.5"/><path d="M5 20c.6-4 3.4-6.2 7-6.2s6.4 2.2 7 6.2"/>`,
};

/** Inline SVG markup of icon `name`, decorative (the button's text names it). */
export function icon(name, cls = "") {
  const body = PATHS[name] || null;
  return html`<svg class="icon ${cls}" viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;
}
