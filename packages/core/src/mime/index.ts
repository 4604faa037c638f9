/** @module The one table of served content types by file extension: the site bucket, the S3 store and the preview server share it. */

/** Content types by lower-case extension (no dot). Text types name their charset so browsers never guess. */
const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  json: "application/json",
  csv: "text/csv; charset=utf-8",
  xml: "application/atom+xml",
  js: "text/javascript",
  mjs: "text/javascript",
  css: "text/css",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  txt: "text/plain; charset=utf-8",
  webmanifest: "application/manifest+json",
};

/** Type served for an extension the table does not know. */
export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

/**
 * The content type of a key or path by its extension (`data/runs.csv` -> `text/csv; charset=utf-8`);
 * `fallback` when the extension is unknown or absent.
 */
export function contentTypeOf(path: string, fallback: string = DEFAULT_CONTENT_TYPE): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return fallback;
  return CONTENT_TYPES[name.slice(dot + 1).toLowerCase()] ?? fallback;
}
