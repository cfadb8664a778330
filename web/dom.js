// The terminal's elements and their style sheet: the canvases, the hidden
// textarea typed into, the screen reader's mirror, the status overlay, the
// read-only badge, the note, the search bar.
import { Search } from './search.js';

const CSS = `
.pc-term{position:relative;overflow:hidden;width:100%;height:100%;outline:none;user-select:none;-webkit-user-select:none;touch-action:none}
.pc-screen{position:absolute;left:0;top:0;cursor:text}
.pc-screen canvas{position:absolute;left:0;top:0;display:block}
.pc-input{position:absolute;width:2px;height:1em;padding:0;border:0;margin:0;opacity:0;resize:none;overflow:hidden;white-space:pre;color:transparent;background:transparent;caret-color:transparent;outline:none;z-index:-1}
.pc-status{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;background:rgba(0,0,0,.45);font:14px system-ui,sans-serif;z-index:3}
.pc-status[hidden]{display:none}.pc-status.pc-banner{bottom:auto;background:none;pointer-events:none}.pc-banner div{pointer-events:auto;margin-top:8px}
.pc-status div{background:#222;color:#eee;padding:12px 18px;border-radius:6px;box-shadow:0 2px 12px rgba(0,0,0,.5);text-align:center;max-width:80%}
.pc-status button{margin-left:10px;font:inherit;cursor:pointer}
.pc-badge{position:absolute;right:6px;top:6px;padding:2px 8px;border-radius:4px;background:#b83030;color:#fff;font:12px system-ui,sans-serif;z-index:2;pointer-events:none}
.pc-badge[hidden]{display:none}
.pc-keys{position:absolute;left:0;right:0;bottom:0;height:40px;display:flex;background:#333;z-index:3}[data-role=view] .pc-keys,.pc-copy[hidden]{display:none}
.pc-keys button,.pc-copy{flex:1;font:15px sans-serif;color:#eee;background:#444;border:1px solid #222;margin:2px}[aria-pressed=true]{background:#07c}.pc-copy{position:absolute;padding:8px;z-index:4}
.pc-h{position:absolute;width:24px;height:24px;background:#4a8af4;z-index:4;border-radius:0 50% 50%}.pc-h0{margin-left:-24px;border-radius:50% 0 50% 50%}
.pc-note{position:absolute;left:6px;bottom:6px;padding:2px 8px;border-radius:4px;background:#333;color:#eee;font:12px system-ui,sans-serif;z-index:2}.pc-note:empty{display:none}
.pc-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:pre;margin:0}
.pc-bell{animation:pc-bell .15s}
@media (prefers-reduced-motion:reduce){.pc-bell{animation:none}}
.pc-find{position:absolute;right:8px;top:8px;z-index:4;display:flex;gap:4px;align-items:center;padding:4px;background:#333;color:#eee;font:13px system-ui,sans-serif}
.pc-find[hidden]{display:none}.pc-find input{font:inherit}.pc-find button{font:inherit;min-width:2em}
@keyframes pc-bell{from{filter:brightness(1.6)}to{filter:none}}
`;

let helpIds = 0;

/** Builds `term`'s elements in `container` (its style sheet once per document or shadow root). */
export function mount(term, container) {
  const doc = container.ownerDocument || document;
  const root = container.getRootNode ? container.getRootNode() : doc;
  if (!(root.querySelector && root.querySelector('style[data-panecast]'))) {
    const style = doc.createElement('style');
    style.dataset.panecast = '';
    style.textContent = CSS;
    (root === doc ? doc.head : root).appendChild(style);
  }
  const el = (tag, cls, parent) => {
    const e = doc.createElement(tag);
    e.className = cls;
    parent.appendChild(e);
    return e;
  };
  term.el = el('div', 'pc-term', container);
  term.screenEl = el('div', 'pc-screen', term.el);
  term.canvas = el('canvas', 'pc-cells', term.screenEl);
  term.overlayCanvas = el('canvas', 'pc-overlay', term.screenEl);
  term.ta = el('textarea', 'pc-input', term.el);
  for (const [k, v] of Object.entries({ autocomplete: 'off', autocorrect: 'off', autocapitalize: 'off', spellcheck: 'false', 'aria-label': 'Terminal', 'aria-roledescription': 'terminal', 'aria-describedby': 'pc-help' + ++helpIds, tabindex: '0' })) term.ta.setAttribute(k, v);
  term.el.tabIndex = -1; // Ctrl-Shift-M goes here
  term.mirror = el('pre', 'pc-sr', term.el);
  term.mirror.setAttribute('role', 'region');
  term.mirror.setAttribute('aria-label', 'Terminal screen');
  term.live = el('div', 'pc-sr', term.el);
  term.live.setAttribute('aria-live', 'polite');
  const help = el('p', 'pc-sr', term.el);
  help.id = term.ta.getAttribute('aria-describedby');
  help.textContent = 'Ctrl-Shift-M leaves the terminal.';
  term.spoken = new Set();
  term.search = new Search(term);
  term.statusEl = el('div', 'pc-status', term.el);
  term.badge = el('div', 'pc-badge', term.el);
  term.badge.textContent = 'read-only';
  term.badge.hidden = true;
  term.note = el('div', 'pc-note', term.el);
  term.note.setAttribute('role', 'status');
  for (const t of ['keydown', 'pointerdown']) term.el.addEventListener(t, () => term.writeClip(), true);
}
