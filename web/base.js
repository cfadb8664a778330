// Where the server's routes start, derived from where this module was
// loaded ({origin}{base_path}/web/base.js), so the client works under any
// path prefix a reverse proxy gives it. No page or module names an absolute
// path: every URL is built with `route`.

/** The server's root, with a trailing slash: `https://host/term/`. */
export const root = new URL('../', import.meta.url);

/** A server route given without a leading slash (`api/sessions`), as a
 * path from the origin's root: `/term/api/sessions` under `/term`. */
export function route(path) {
  const url = new URL(path, root);
  return url.pathname + url.search;
}
