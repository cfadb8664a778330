// Themes and the 256-colour palette, protocol colours to CSS. No DOM.

export const THEMES = {
  // Each the server's theme of that name (term/src/palette.rs; server/tests/web_constants.rs checks).
  dark: {
    fg: '#e5e5e5', bg: '#1e1e1e', cursor: '#e5e5e5', selection: 'rgba(120,150,220,0.40)',
    ansi: ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5',
      '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'],
  },
  light: {
    fg: '#333333', bg: '#ffffff', cursor: '#333333', selection: 'rgba(60,110,200,0.28)',
    ansi: ['#000000', '#cd3131', '#00bc00', '#949800', '#0451a5', '#bc05bc', '#0598bc', '#555555',
      '#666666', '#cd3131', '#14ce14', '#b5ba00', '#0451a5', '#bc05bc', '#0598bc', '#a5a5a5'],
  },
  contrast: {
    fg: '#ffffff', bg: '#000000', cursor: '#ffff00', selection: 'rgba(255,255,0,0.45)',
    ansi: ['#000000', '#ff6060', '#00ff00', '#ffff00', '#80a0ff', '#ff80ff', '#00ffff', '#ffffff',
      '#c0c0c0', '#ff8080', '#80ff80', '#ffff80', '#a0c0ff', '#ffa0ff', '#80ffff', '#ffffff'],
  },
  solarized: {
    fg: '#839496', bg: '#002b36', cursor: '#93a1a1', selection: 'rgba(147,161,161,0.30)',
    ansi: ['#073642', '#dc322f', '#859900', '#b58900', '#268bd2', '#d33682', '#2aa198', '#eee8d5',
      '#002b36', '#cb4b16', '#586e75', '#657b83', '#839496', '#6c71c4', '#93a1a1', '#fdf6e3'],
  },
  xterm: {
    fg: '#e5e5e5', bg: '#000000', cursor: '#e5e5e5', selection: 'rgba(180,180,180,0.35)',
    ansi: ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5',
      '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'],
  },
};

const hex2 = (n) => n.toString(16).padStart(2, '0');
export const rgbHex = (rgb) => '#' + hex2((rgb >> 16) & 255) + hex2((rgb >> 8) & 255) + hex2(rgb & 255);

/** The standard xterm 256-colour table after the 16 theme colours (as hex). */
export function xterm256() {
  const out = [];
  const steps = [0, 95, 135, 175, 215, 255];
  for (let i = 16; i < 232; i++) {
    const n = i - 16;
    out.push(rgbHex((steps[Math.floor(n / 36)] << 16) | (steps[Math.floor(n / 6) % 6] << 8) | steps[n % 6]));
  }
  for (let i = 232; i < 256; i++) {
    const v = 8 + 10 * (i - 232);
    out.push(rgbHex((v << 16) | (v << 8) | v));
  }
  return out;
}
const TABLE = xterm256();

/**
 * A resolved palette: `theme` is a name of THEMES or an object overriding some
 * of {fg, bg, cursor, selection, ansi}.
 */
export class Palette {
  constructor(theme = 'dark') {
    const base = THEMES.dark;
    const t = typeof theme === 'string' ? THEMES[theme] || base : { ...base, ...theme };
    this.fg = t.fg;
    this.bg = t.bg;
    this.cursor = t.cursor || t.fg;
    this.selection = t.selection || base.selection;
    this.colors = [...(t.ansi && t.ansi.length === 16 ? t.ansi : base.ansi), ...TABLE];
    this.boldBright = t.boldBright !== false;
  }
  /** CSS colour of protocol colour `c`; `def` is used for the default (-1). */
  css(c, def) {
    if (c < 0) return def;
    if (c < 256) return this.colors[c];
    return rgbHex(c);
  }
}

/** Mixes two #rrggbb colours: t = 0 gives a, 1 gives b. */
export function mix(a, b, t) {
  const pa = parseInt(a.slice(1, 7), 16), pb = parseInt(b.slice(1, 7), 16);
  const ch = (s) => Math.round(((pa >> s) & 255) * (1 - t) + ((pb >> s) & 255) * t) << s;
  return rgbHex(ch(16) | ch(8) | ch(0));
}
