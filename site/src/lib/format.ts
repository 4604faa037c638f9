/** @module Number and time formatting for pages, and relative links so the site works under any path prefix. */

/** One formatter per precision: `toLocaleString` builds a new one per call, a tenth of a large build's page rendering. */
const formatters = new Map<number, Intl.NumberFormat>();

/** A figure with sensible precision, or an em dash when there is none. */
export function fmt(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  let format = formatters.get(digits);
  if (!format) {
    format = new Intl.NumberFormat("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
    formatters.set(digits, format);
  }
  return format.format(value);
}

/** A rate (0..1) as a percentage. */
export function pct(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? "—" : `${fmt(value * 100, digits)} %`;
}

/** `2026-12-03 10:15 UTC` from an ISO time. */
export function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The prefix that leads from a page at `path` (like `targets/x/`) back to the site root. */
export function rootFrom(path: string): string {
  const depth = path.split("/").filter(Boolean).length;
  return depth === 0 ? "./" : "../".repeat(depth);
}

/** JSON safe to place inside a `<script type="application/json">` element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

/** An estimate as `1,656 (1,590-1,702)`: the median, then the interval bounding it; the median alone when the interval is one point. */
export function fmtEstimate(e: { median: number; low: number; high: number } | null | undefined, digits = 0): string {
  if (!e) return "—";
  const median = fmt(e.median, digits);
  const low = fmt(e.low, digits);
  const high = fmt(e.high, digits);
  return low === high ? median : `${median} (${low}-${high})`;
}

/** The tooltip of an estimate: how many runs it was taken over and what its interval is (kept short: one per cell). */
export function estimateTitle(e: { n: number } | null | undefined): string {
  if (!e) return "no valid run";
  return `median of ${e.n} run${e.n === 1 ? "" : "s"}; ${e.n < 6 ? "interval: their range" : "95 % interval"}`;
}
