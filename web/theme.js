// The theme painted, and told to the session for its colour queries.
import { encodeTheme } from './encode.js';
import { media } from './platform.js';

/** A theme name; `auto` follows prefers-contrast and prefers-color-scheme. */
export function themeOf(t) {
  if (t && t !== 'auto') return t;
  return media('(prefers-contrast: more)') ? 'contrast' : media('(prefers-color-scheme: light)') ? 'light' : 'dark';
}

/** Methods of Terminal (terminal.js). */
export const Theme = {
  setTheme(theme) {
    this.opts.theme = theme;
    this.painter.setTheme(this.theme = themeOf(theme));
    this.el.style.background = this.painter.palette.bg;
    this.dirtyAll = true;
    this.schedule();
    this.sendTheme();
  },

  /** Tells the session the theme painted (control role), for colour queries. */
  sendTheme() { if (this.screen.role === 'control') this.send(encodeTheme(this.theme)); },
};
