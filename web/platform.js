// What the browser says of the person's device and settings. No DOM.

/** Whether a media query matches (false where there is no matchMedia). */
export const media = (q) => typeof matchMedia === 'function' && matchMedia(q).matches;

/** Whether the platform is Apple's (Cmd, not Ctrl, for shortcuts). */
export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || '');
