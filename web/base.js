// The server's routes, from where this module was loaded (web/README.md).

/** The server's root, with a trailing slash: `https://host/term/`. */
export const root = new URL('../', import.meta.url);

/** A route (`api/sessions`) as a path from the origin: `/term/api/sessions` under `/term`. */
export function route(path) {
  const url = new URL(path, root);
  return url.pathname + url.search;
}
