// The search bar (Ctrl-Shift-F, Cmd-F on a Mac): the server searches
// scrollback and screen; matches are highlighted, Enter/↑ goes to the older
// match and Shift-Enter/↓ to the newer one (scrolling back, fetching as
// needed), Escape closes. Upper case makes it case-sensitive; .* a regex.
export class Search {
  constructor(term) {
    this.t = term;
    this.matches = [];
    this.i = -1;
    const bar = this.bar = term.el.ownerDocument.createElement('div');
    bar.className = 'pc-find';
    bar.setAttribute('role', 'search');
    bar.hidden = true;
    bar.innerHTML = '<input type="search" aria-label="Search the terminal" placeholder="Search"><label><input type="checkbox" aria-label="Regular expression">.*</label><output role="status"></output><button aria-label="Previous match">↑</button><button aria-label="Next match">↓</button><button aria-label="Close search">✕</button>';
    term.el.appendChild(bar);
    const [q, re] = bar.querySelectorAll('input');
    const [prev, next, close] = bar.querySelectorAll('button');
    this.q = q;
    this.re = re;
    this.out = bar.querySelector('output');
    q.oninput = re.onchange = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.run(), 150);
    };
    q.onkeydown = (e) => {
      if (e.key === 'Enter') this.go(e.shiftKey ? 1 : -1);
      else if (e.key === 'Escape') this.close();
      else return;
      e.preventDefault();
    };
    prev.onclick = () => this.go(-1);
    next.onclick = () => this.go(1);
    close.onclick = () => this.close();
  }

  open() {
    if (!this.t.opts.api) return;
    this.bar.hidden = false;
    this.q.focus();
    this.q.select();
  }

  close() {
    this.bar.hidden = true;
    this.matches = [];
    this.t.focus();
    this.t.schedule();
  }

  async run() {
    const q = this.q.value, t = this.t;
    if (!q) return this.show([]);
    const u = new URL(t.opts.api + '/search');
    u.search = new URLSearchParams({ q, regex: +this.re.checked, case: +/\p{Lu}/u.test(q), limit: 1000 });
    let j;
    try {
      const r = await fetch(u, { headers: t.opts.token ? { Authorization: 'Bearer ' + t.opts.token } : {}, credentials: 'same-origin' });
      j = await r.json();
      if (!r.ok) throw new Error(j.error);
    } catch (e) {
      this.out.value = e.message;
      return this.show(null);
    }
    if (q !== this.q.value) return;
    const base = t.screen.base;
    this.more = j.truncated;
    this.show(j.matches.map((m) => ({ a: base + m.line - j.screen_top, s: m.start, e: m.end })));
  }

  /** New matches (null: an error is shown); the newest is current. */
  show(list) {
    this.matches = list || [];
    this.i = this.matches.length - 1;
    if (list) this.go(0);
    else this.t.schedule();
  }

  /** Moves d matches on (older: -1), scrolls there, updates the count. */
  go(d) {
    const n = this.matches.length;
    this.out.value = n ? `${(this.i = (this.i + d + n) % n) + 1}/${n}${this.more ? '+' : ''}` : 'No matches';
    if (n) this.t.reveal(this.matches[this.i].a);
    this.t.schedule();
  }

  /** Overlay rectangles ({y, from, to, cur}) of matches on display rows [top, top + rows). */
  rects(top, rows, cols) {
    const out = [];
    this.matches.forEach((m, k) => {
      if (m.a >= top + rows || m.a + m.e / cols < top) return;
      for (let p = m.a * cols + m.s, end = m.a * cols + m.e; p < end;) {
        const line = Math.floor(p / cols), from = p - line * cols, to = Math.min(cols, from + end - p);
        if (line >= top && line < top + rows) out.push({ y: line - top, from, to, cur: k === this.i });
        p += to - from;
      }
    });
    return out;
  }
}
