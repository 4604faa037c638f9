/** @module Renders a vega-lite spec to an SVG string at build time (no canvas, no browser). */
import { setImmediate } from "node:timers/promises";
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

/** What names a spec's inline data sets in its shape; a prefix no spec of ours uses. */
const DATA_NAME = "kneeboard_inline_";

/**
 * The spec with each inline data set (`data: { values }`) replaced by a named one, and the values
 * by name: charts of one family whose data differ share one shape, so one compile and one parse.
 */
function nameInlineData(spec: TopLevelSpec): { shape: unknown; values: Map<string, unknown[]> } {
  const values = new Map<string, unknown[]>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const data = value as { values?: unknown } | null;
      if (key === "data" && data && Array.isArray(data.values) && Object.keys(data).length === 1) {
        const name = `${DATA_NAME}${values.size}`;
        values.set(name, data.values);
        out[key] = { name };
      } else out[key] = walk(value);
    }
    return out;
  };
  // The description is set on the view instead: it differs chart by chart where the shape does not.
  const { description: _description, ...rest } = spec as TopLevelSpec & { description?: string };
  return { shape: walk(rest), values };
}

/**
 * Parsed vega dataflows by shape. A build renders thousands of charts in a few dozen shapes, and
 * compiling and parsing were half of each render. Bounded, so a long-lived process never grows it without end.
 */
const parsed = new Map<string, vega.Runtime>();
const MAX_SHAPES = 512;

function runtimeOf(shape: unknown): vega.Runtime {
  const key = JSON.stringify(shape);
  let runtime = parsed.get(key);
  if (!runtime) {
    if (parsed.size >= MAX_SHAPES) parsed.clear();
    runtime = vega.parse(compile(shape as TopLevelSpec).spec);
    parsed.set(key, runtime);
  }
  return runtime;
}

/**
 * The spec's SVG, named for assistive technology: `role="img"` with the spec's title as its name,
 * and its description as `<title>` and `<desc>` (the numbers themselves sit in a table beside it).
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // A build renders thousands in a row: each waits its turn, so file I/O started alongside proceeds.
  await setImmediate();
  const { shape, values } = nameInlineData(spec);
  const view = new vega.View(runtimeOf(shape), { renderer: "none" });
  try {
    for (const [name, rows] of values) view.data(name, rows);
    if (spec.description !== undefined) view.description(spec.description);
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
