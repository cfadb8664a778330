// Links under the pointer: OSC 8 links and http(s) URLs, and which may open.

/** The link schemes opened: the server's (a Rust test checks). */
export const LINK_SCHEMES = ['http', 'https', 'mailto'];

/** `url` if its scheme may be opened, else null. */
export function safeLink(url) {
  try {
    const u = new URL(url);
    return LINK_SCHEMES.includes(u.protocol.slice(0, -1)) ? u.href : null;
  } catch {
    return null;
  }
}

/** Methods of Terminal (terminal.js). */
export const Links = {
  hover(link) {
    if (JSON.stringify(link) !== JSON.stringify(this.link)) {
      this.link = link;
      this.schedule();
    }
  },

  /** The OSC 8 link or http(s) URL at a display cell: {url, from, to} or null. */
  linkAt({ row, col }) {
    const line = this.displayLine(row);
    if (!line) return null;
    const at = (c) => this.painter.resolve(this.screen, line.style[c]).link;
    const url = at(col);
    let from = col, to = col + 1;
    if (url) {
      while (from && at(from - 1) === url) from--;
      while (to < line.text.length && at(to) === url) to++;
      return { url, from, to };
    }
    const text = line.text.map((t, i) => (line.width[i] === 1 && t.length === 1 ? t : ' ')).join('');
    for (const m of text.matchAll(/https?:\/\/[^\s"'<>`]*[^\s"'<>`.,;:!?)\]}]/g)) {
      if (m.index <= col && col < m.index + m[0].length) return { url: m[0], from: m.index, to: m.index + m[0].length };
    }
    return null;
  },
};
