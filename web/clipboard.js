// The clipboard: what a program copies (OSC 52), pasting, the selection's text.
import { MAX_PASTE, encodePaste } from './encode.js';

/** Methods of Terminal (terminal.js). */
export const Clipboard = {
  /** Puts OSC 52 text on the clipboard now if allowed, else on the next click or key; the note says which. */
  writeClip() {
    const t = this.clip, say = (s) => { this.note.textContent = s; };
    if (t == null) return;
    clearTimeout(this.noteTimer);
    (navigator.clipboard ? navigator.clipboard.writeText(t) : Promise.reject()).then(() => {
      if (this.clip === t) this.clip = null;
      say('The program copied text to the clipboard');
      this.noteTimer = setTimeout(say, 3000, '');
    }, () => say('The program copied text: click or press a key to put it on the clipboard'));
  },

  paste(text) {
    if (!this.canType || !text) return false;
    if (new TextEncoder().encode(text).length > MAX_PASTE) {
      console.warn('panecast: paste larger than 1 MiB refused');
      return false;
    }
    this.typed();
    return this.sendInput(encodePaste(text));
  },

  selectionText() { return this.selection.text(this.screen); },
};
