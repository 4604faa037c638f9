/** @module Renders a vega-lite spec to an SVG string at build time (no canvas, no browser). */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Em widths of a sans-serif's characters, rounded up from DejaVu Sans (Linux's usual system-ui) so estimates err wide. */
const emWidth = (c: string): number => {
  if (/[ .,:;'|!iIljft()[\]]/.test(c)) return 0.36;
  if (/[0-9]/.test(c)) return 0.64;
  if (/[mwMW@%]/.test(c)) return 0.92;
  if (/[A-Z]/.test(c)) return 0.72;
  return 0.6;
};

/**
 * Text widths for vega's layout, which without a canvas (there is none at build time) takes every
 * character as 0.8 em: nearly half again as wide as a sans-serif's, so titles, legends and axis labels
 * widened the SVG (which a phone then scaled down further) and long legend names were cut early.
 * `textMetrics.width` is the hook vega leaves for such a measure (vl-convert sets it too).
 */
type TextItem = { fontSize?: number; fontWeight?: string | number };
// vega's types leave `textMetrics` out; the bundle exports it (vega-scenegraph's).
(vega as unknown as { textMetrics: { width: (item: TextItem, text: unknown) => number } }).textMetrics.width = (
  item,
  text,
) => {
  const size = item.fontSize ?? 11;
  const bold = item.fontWeight === "bold" || Number(item.fontWeight) >= 600 ? 1.08 : 1;
  const chars = [...String(text ?? "")];
  return Math.ceil(chars.reduce((w, c) => w + emWidth(c), 0) * size * bold);
};

/** Geometry to two decimals (a hundredth of a pixel): vega writes full float precision, a third of a long chart's bytes. */
const roundGeometry = (svg: string) =>
  svg.replace(/ (transform|d|x|y|x2|y2)="([^"]*)"/g, (_all, name: string, value: string) => {
    return ` ${name}="${value.replace(/(\d\.\d\d)\d+/g, "$1")}"`;
  });

/**
 * The spec's SVG, named for assistive technology: `role="img"` with the spec's title as its name,
 * and its description as `<title>` and `<desc>` (the numbers themselves sit in a table beside it).
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    const svg = roundGeometry(await view.toSVG());
    const title = typeof spec.title === "string" ? spec.title : "chart";
    const description = spec.description ?? "";
    return svg
      .replace(/^<svg /, `<svg role="img" aria-label="${escapeXml(title)}" `)
      .replace(/^(<svg[^>]*>)/, `$1<title>${escapeXml(title)}</title><desc>${escapeXml(description)}</desc>`);
  } finally {
    view.finalize();
  }
}
