/**
 * @module The site's downloads read back as one: every model's `data/models/<modelKey>/index.json`
 * (listed by the top `data/index.json`) together, and every model's `runs.csv` under one header.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

// biome-ignore lint/suspicious/noExplicitAny: a published file read back, checked field by field by each test.
type Loose = any;

/** The top index and every model's views together: `targets` (the first scenario's) and `series` (the others'). */
export function publishedIndex(outDir: string): { top: Loose; targets: Loose[]; series: Loose[] } {
  const read = (path: string) => JSON.parse(readFileSync(join(outDir, path), "utf8"));
  const top = read("data/index.json");
  const models = (top.models as { index: string }[]).map((m) => read(m.index));
  return { top, targets: models.flatMap((m) => m.targets), series: models.flatMap((m) => m.series) };
}

/** Every model's `runs.csv`, one header, each model's rows in key order. */
export function publishedRunsCsv(outDir: string): string {
  const top = JSON.parse(readFileSync(join(outDir, "data/index.json"), "utf8"));
  const files = (top.models as { runs: string }[]).map((m) => readFileSync(join(outDir, m.runs), "utf8"));
  const [header] = (files[0] ?? "").split("\n");
  return `${header}\n${files.map((f) => f.slice(f.indexOf("\n") + 1)).join("")}`;
}
