/** @module The page model of `/data/`: every download with its size, and one run document to show the keys by. */
import { fmt } from "../lib/format.ts";
import type { Download, SiteIndex } from "../lib/site-index.ts";

export interface DataPage {
  description: string;
  downloads: (Download & { size: string })[];
  runDocuments: { count: number; size: string };
  /** How many models have their own `index.json` and `runs.csv`, and one model's key as an example; null before any run. */
  models: { count: number; exampleKey: string | null };
  /** One run document's key, as an example of the layout; null before any run. */
  exampleKey: string | null;
  curl: string;
}

/** `512 B`, `3.2 KB`, `1.5 MB`. */
export function sizeWords(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${fmt(bytes / 1024, 1)} KB` : `${fmt(bytes / 1048576, 1)} MB`;
}

export function dataPage(index: SiteIndex): DataPage {
  const targets = new Set(index.series.map((v) => v.id)).size;
  const { count, bytes } = index.runDocuments;
  return {
    description: `${count} raw run documents of ${targets} targets (${sizeWords(bytes)}), every request recorded, plus index.json, each model's index.json and runs.csv, standing.csv and JSON Schemas.`,
    downloads: index.downloads.map((d) => ({ ...d, size: sizeWords(d.bytes) })),
    runDocuments: { count, size: sizeWords(bytes) },
    models: { count: index.modelKeys.length, exampleKey: index.modelKeys[0] ?? null },
    exampleKey: index.series[0]?.latest.key ?? null,
    curl: `curl -s https://SITE/data/models/${index.modelKeys[0] ?? "<modelKey>"}/index.json | jq '.targets[] | {id, peak: .latest.summary.peak}'`,
  };
}
