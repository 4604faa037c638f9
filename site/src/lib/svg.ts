/** @module Renders a vega-lite spec to an SVG string at build time (no canvas, no browser). */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
