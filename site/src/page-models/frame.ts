/** @module What the frame of every page (the Base layout) says of the whole site. */
import { targetCounts } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";

export interface SiteFrame {
  /** Targets on the site, and how many of them are simulated (the notice on every page). */
  targets: number;
  simulated: number;
  generatedAt: string;
  /** Run documents the site was built from. */
  runs: number;
}

export function siteFrame(index: SiteIndex): SiteFrame {
  return { ...targetCounts(index.series), generatedAt: index.generatedAt, runs: index.runDocuments.count };
}
