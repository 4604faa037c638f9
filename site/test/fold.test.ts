/** The leaderboard's fold past its row budget (`lib/fold.ts`), on tables made by hand. */
import { describe, expect, it } from "vitest";
import { foldRanking } from "../src/lib/fold.ts";
import type { RankingTable } from "../src/lib/rankings.ts";

/** A table of `rows` model keys in rank order, one group per stretch of one model. */
function table(rows: string[]): RankingTable {
  const groups: RankingTable["groups"] = [];
  rows.forEach((modelKey, i) => {
    const row = { id: `t${i}`, modelKey, cells: [] };
    const last = groups[groups.length - 1];
    if (last?.modelKey === modelKey) last.rows.push(row);
    else groups.push({ modelKey, header: null, rows: [row] });
  });
  return {
    kind: "closed",
    id: "leaderboard",
    heading: "",
    sectionHeading: "",
    anchor: "",
    lead: "",
    label: "",
    caption: ["", ""],
    columns: [],
    groups,
    grouped: true,
    empty: "",
    footnote: null,
    levelLinks: [],
  };
}
const ids = (t: RankingTable) => t.groups.flatMap((g) => g.rows.map((r) => r.id));
const href = (key: string) => `models/${key}/`;

describe("folding a ranking past its row budget", () => {
  it("leaves a ranking within the budget as it is", () => {
    const small = table(["a", "b", "a", "c"]);
    expect(foldRanking(small, href, 4)).toEqual({ table: small, fold: null });
  });

  it("keeps each model's best routes, as many each as fit, in rank order", () => {
    // a: 4 routes, b: 3, c: 1. Budget 6: 2 each (2 + 2 + 1 = 5) fits, 3 each (3 + 3 + 1 = 7) does not.
    const { table: folded, fold } = foldRanking(table(["a", "b", "a", "b", "c", "a", "b", "a"]), href, 6);
    expect(ids(folded)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(fold).toEqual({ perModel: 2, routes: 3, models: [] });
    // Models with routes folded away say so and link their page; a model shown whole keeps its header.
    const header = (key: string) => folded.groups.find((g) => g.modelKey === key)?.header;
    expect(header("a")).toEqual({ href: "models/a/", note: "its best 2 routes of 4; every route on the model's page" });
    expect(header("c")).toBeNull();
  });

  it("past one route per model, lists the models that do not fit by name, in rank order", () => {
    const { table: folded, fold } = foldRanking(table(["a", "b", "a", "c", "d", "e"]), href, 3);
    expect(ids(folded)).toEqual(["t0", "t1", "t3"]);
    expect(fold).toEqual({
      perModel: 1,
      routes: 3,
      models: [
        { modelKey: "d", href: "models/d/", routes: 1 },
        { modelKey: "e", href: "models/e/", routes: 1 },
      ],
    });
  });
});
