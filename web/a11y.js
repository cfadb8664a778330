// For screen readers: the screen's text mirrored in the DOM, new output announced.
import { Screen } from './screen.js';

/** Methods of Terminal (terminal.js). */
export const Accessibility = {
  /** At most twice a second: the text to the mirror, changed rows but the cursor's to the live region. */
  announce() {
    this.speakTimer = 0;
    const sc = this.screen, rows = [...this.spoken].sort((a, b) => a - b).filter((r) => r !== sc.cursor.row && r < sc.rows);
    this.spoken.clear();
    this.mirror.textContent = sc.text().replace(/\n+$/, '');
    const said = rows.slice(-12).map((r) => Screen.lineText(sc.lines[r]).trim()).filter(Boolean).join('\n');
    if (said) this.live.textContent = said;
  },
};
