/** @module Renders a vega-lite spec to an SVG string at build time (no canvas, no browser). */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

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
