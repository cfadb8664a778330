// The connection's state as the person sees it: the status overlay, the note of
// dropped input, the quiet link, what a close means.
import * as P from './protocol.js';

/** Methods of Terminal (terminal.js). */
export const Status = {
  setStatus(status, detail) {
    this.status = status;
    clearInterval(this.statusTimer);
    const s = this.statusEl;
    s.hidden = status === 'connected' || status === 'idle' || status === 'restarting';
    // While the link is down or quiet the screen stays in sight, and typing goes on.
    s.classList.toggle('pc-banner', status === 'reconnecting' || status === 'quiet');
    s.textContent = '';
    const box = document.createElement('div');
    s.appendChild(box);
    if (status === 'connecting') box.textContent = 'Connecting…';
    else if (status === 'quiet') box.textContent = 'No answer from the server: what you type is kept until it answers';
    else if (status === 'reconnecting') {
      const until = Date.now() + detail;
      const label = document.createElement('span');
      const btn = document.createElement('button');
      btn.textContent = 'Reconnect now';
      btn.onclick = () => this.conn.retryNow();
      box.append(label, btn);
      const tick = () => {
        label.textContent = `Disconnected. Reconnecting in ${Math.max(0, Math.ceil((until - Date.now()) / 1000))} s… (what you type is kept)`;
      };
      tick();
      this.statusTimer = setInterval(tick, 500);
    } else if (status === 'exited' || status === 'closed') box.textContent = detail;
    this.el.dataset.status = status;
    this.dispatchEvent(new CustomEvent('status', { detail: { status, detail } }));
  },

  onClose({ code, reason, retryIn, opened }) {
    this.typing.closed();
    if (this.status === 'exited' || this.disposed) return;
    if (retryIn === null) {
      // The server refused this page's origin, and says what would allow it.
      this.setStatus('closed', P.CLOSE_TEXT[code] || (code === P.CLOSE.ORIGIN_FORBIDDEN ? `Refused: ${reason}` : `Disconnected (${code})`));
      return;
    }
    if (code === P.CLOSE.SERVICE_RESTART) {
      // An upgrade in place: the screen stays as it is, no overlay; the
      // reconnection (at once) brings the exact screen back. Should it
      // fail, its own close shows the usual status.
      this.setStatus('restarting');
      return;
    }
    if (!opened && this.opts.probe) {
      // The upgrade failed: ask the API why (a 404 or 401 will not heal).
      this.opts.probe().then((why) => {
        if (why && !this.conn.ws) {
          this.conn.close();
          this.setStatus('closed', why);
        }
      }, () => {});
    }
    this.setStatus('reconnecting', retryIn);
  },

  /** Says how many inputs held while the link was down were dropped (none: nothing said). */
  held(dropped) {
    if (!dropped) return;
    clearTimeout(this.noteTimer);
    this.note.textContent = `${dropped} input${dropped > 1 ? 's' : ''} typed while the link was down could not be sent`;
    this.noteTimer = setTimeout(() => { this.note.textContent = ''; }, 8000);
  },

  /** Says so while inputs wait too long for the server (a link gone silent), and stops watching once none wait. */
  watchQuiet() {
    const quiet = this.typing.quiet();
    if (quiet && this.status === 'connected') this.setStatus('quiet');
    else if (!quiet && this.status === 'quiet') this.setStatus('connected');
    if (!this.typing.waiting() && this.status !== 'quiet') {
      clearInterval(this.quietTimer);
      this.quietTimer = null;
    }
  },
};
