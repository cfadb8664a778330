// Keyboard, IME, paste and focus to protocol input (notes: web/README.md).
import { MOD, KEY_EVENT } from './protocol.js';

const NAMED = {
  Enter: 'Enter', Tab: 'Tab', Backspace: 'Backspace', Escape: 'Escape', Esc: 'Escape',
  ArrowUp: 'Up', ArrowDown: 'Down', ArrowLeft: 'Left', ArrowRight: 'Right', Up: 'Up', Down: 'Down',
  Left: 'Left', Right: 'Right', Home: 'Home', End: 'End', PageUp: 'PageUp', PageDown: 'PageDown',
  Insert: 'Insert', Delete: 'Delete', Del: 'Delete',
};
for (let n = 1; n <= 24; n++) NAMED['F' + n] = 'F' + n;

const KEYPAD = {
  NumpadDecimal: 'KpDecimal', NumpadDivide: 'KpDivide', NumpadMultiply: 'KpMultiply',
  NumpadSubtract: 'KpSubtract', NumpadAdd: 'KpAdd', NumpadEnter: 'KpEnter', NumpadEqual: 'KpEqual',
};
for (let n = 0; n <= 9; n++) KEYPAD['Numpad' + n] = 'Kp' + n;

export function modsOf(e) {
  return (e.shiftKey ? MOD.SHIFT : 0) | (e.altKey ? MOD.ALT : 0) | (e.ctrlKey ? MOD.CTRL : 0) | (e.metaKey ? MOD.META : 0);
}

/** What a keydown sends: {key: 'Enter'|{char}, mods}, or null: the browser's (web/README.md). `all`: plain keys too; `mods1`: modifier keys alone. */
export function mapKey(e, mac = false, all = false, mods1 = all) {
  if (e.isComposing || e.keyCode === 229) return null;
  const mods = modsOf(e);
  const key = e.key;
  if (KEYPAD[e.code] && e.location === 3 && (key.length === 1 || key === 'Enter')) {
    return { key: KEYPAD[e.code], mods };
  }
  if (NAMED[key]) return { key: NAMED[key], mods };
  if (mods1 && /^(Shift|Control|Alt|Meta)(Left|Right)$/.test(e.code)) return { key: e.code, mods };
  if (!key || [...key].length !== 1) return null; // Shift, Dead, Unidentified, ...
  if (e.getModifierState && e.getModifierState('AltGraph')) return null; // AltGr composes a character
  if (e.metaKey) return null; // Cmd/Super shortcuts are the browser's and the OS's
  if (mac && e.altKey && !e.ctrlKey) return null; // Option types characters on a Mac
  if (!e.ctrlKey && !e.altKey && !all) return null; // plain text: sent from the input event
  let ch = key;
  // Ctrl with a non-Latin layout: use the key's Latin letter (Ctrl-C on a Cyrillic layout is ^C).
  if (e.ctrlKey && /^Key[A-Z]$/.test(e.code || '') && !/^[\x20-\x7e]$/.test(key)) {
    ch = e.shiftKey ? e.code[3] : e.code[3].toLowerCase();
  }
  return { key: { char: ch }, mods };
}

/** Browser shortcuts the terminal leaves alone: copy and paste. */
export function clipboardAction(e, mac = false, hasSelection = false) {
  const k = (e.key || '').toLowerCase();
  if (mac) {
    if (e.metaKey && !e.ctrlKey && !e.altKey && k === 'c') return 'copy';
    if (e.metaKey && !e.ctrlKey && !e.altKey && k === 'v') return 'paste';
    return null;
  }
  if (e.ctrlKey && e.shiftKey && !e.altKey && (k === 'c' || e.code === 'KeyC')) return 'copy';
  if (e.ctrlKey && e.shiftKey && !e.altKey && (k === 'v' || e.code === 'KeyV')) return 'paste';
  if (e.shiftKey && !e.ctrlKey && !e.altKey && e.key === 'Insert') return 'paste';
  if (e.ctrlKey && !e.shiftKey && !e.altKey && !e.metaKey && (k === 'c' || e.code === 'KeyC') && hasSelection) return 'copy';
  return null;
}

/** Wires a hidden textarea to `sink` (key, text, paste, focus, copy, copyKey, localKey, composing, hasSelection, modes). */
export class Input {
  constructor(textarea, sink, mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || '')) {
    this.ta = textarea;
    this.sink = sink;
    this.mac = mac;
    this.composing = false;
    const on = (t, f) => textarea.addEventListener(t, f);
    on('keydown', (e) => this.keydown(e));
    on('keyup', (e) => this.keyup(e));
    on('input', (e) => this.input(e));
    // Soft keyboards (keyCode 229) delete by beforeinput.
    on('beforeinput', (e) => {
      if (e.inputType === 'deleteContentBackward' && !this.composing) {
        e.preventDefault();
        sink.key('Backspace', 0);
      }
    });
    on('compositionstart', () => { this.composing = true; sink.composing(''); });
    on('compositionupdate', (e) => sink.composing(e.data || ''));
    on('compositionend', (e) => {
      this.composing = false;
      sink.composing('');
      if (e.data) sink.text(e.data);
      this.clear();
    });
    on('paste', (e) => {
      e.preventDefault();
      const text = e.clipboardData && e.clipboardData.getData('text/plain');
      if (text) sink.paste(text);
    });
    on('copy', (e) => {
      const text = sink.copy();
      if (text) {
        e.preventDefault();
        e.clipboardData.setData('text/plain', text);
      }
    });
    on('focus', () => sink.focus(true));
    on('blur', () => sink.focus(false));
  }

  clear() { if (!this.composing) this.ta.value = ''; }

  keydown(e) {
    const act = clipboardAction(e, this.mac, this.sink.hasSelection());
    if (act) {
      // Also by the Clipboard API: no copy event comes with nothing selected.
      if (act === 'copy') this.sink.copyKey();
      return;
    }
    if (this.sink.localKey(e)) {
      e.preventDefault();
      return;
    }
    const m = this.sink.modes();
    const k = mapKey(e, this.mac, m.keyAll);
    if (!k) return;
    e.preventDefault();
    this.sink.key(k.key, k.mods, e.repeat && m.keyReleases ? KEY_EVENT.REPEAT : KEY_EVENT.PRESS);
  }

  // Only when the program asked (kitty keyboard flag 2).
  keyup(e) {
    const m = this.sink.modes();
    const k = m.keyReleases && mapKey(e, this.mac, true, m.keyAll);
    if (k) this.sink.key(k.key, k.mods, KEY_EVENT.RELEASE);
  }

  input(e) {
    if (e.isComposing || this.composing) return;
    if ((e.inputType === 'insertText' || e.inputType === 'insertReplacementText') && e.data) {
      this.sink.text(e.data);
    } else if (e.inputType === 'insertLineBreak') {
      this.sink.key('Enter', 0);
    }
    this.clear();
  }
}
