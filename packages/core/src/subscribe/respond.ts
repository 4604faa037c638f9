/**
 * @module The subscribe endpoint's responses: JSON with CORS for scripts, a tiny self-contained
 * HTML page for plain form posts (the function URL is on another origin than the site).
 */

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** `*` by default: the endpoint holds no cookies or credentials, so any page may call it. */
export function corsHeaders(allowOrigin = "*"): Record<string, string> {
  return {
    "access-control-allow-origin": allowOrigin,
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers": "content-type",
    "access-control-max-age": "86400",
  };
}

export function jsonResponse(
  statusCode: number,
  body: Record<string, unknown>,
  extra: Record<string, string> = {},
): HttpResponse {
  return {
    statusCode,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...extra },
    body: JSON.stringify(body),
  };
}

/** Every character that could open markup or end an attribute. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"'`]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" })[c] ?? c,
  );
}

/** Only http(s) links are offered back; anything else (javascript:, data:) is dropped. */
function safeLink(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** A page with a heading and one paragraph; every piece of text is escaped here. */
export function htmlResponse(
  statusCode: number,
  page: { title: string; message: string; returnUrl?: string },
  extra: Record<string, string> = {},
): HttpResponse {
  const link = safeLink(page.returnUrl);
  const body = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.title)} · kneeboard</title>`,
    "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}</style>",
    `</head><body><h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.message)}</p>`,
    link ? `<p><a href="${escapeHtml(link)}">Back to the alerts page</a></p>` : "",
    "</body></html>",
  ].join("\n");
  return {
    statusCode,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // The page runs nothing and loads nothing; inline style only.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
      "x-content-type-options": "nosniff",
      ...extra,
    },
    body,
  };
}
