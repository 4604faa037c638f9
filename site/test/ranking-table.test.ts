/** The generic ranking table: a kind's column entries laid out as headers and cells, rows grouped by model or not. */
import { describe, expect, it } from "vitest";
import { type RankedRow, type RankingColumns, rankingTable, routesTable } from "../src/lib/ranking-table.ts";
import type { RankingContext, RankingGroup } from "../src/lib/rankings.ts";

type Row = RankedRow & { figure: number };
const row = (id: string, modelKey: string, rank: number): Row => ({
  id,
  label: `${id} label`,
  modelKey,
  simulated: false,
  rank,
  rankLabel: String(rank),
  figure: 10 * rank,
});
// m has two routes ranked apart by n's: two stretches of m, each under a header; n is alone.
const ROWS = [row("a", "m", 1), row("b", "n", 2), row("c", "m", 3)];
const COLUMNS: RankingColumns<Row> = {
  rankTitle: "how ranks are shared",
  notes: (r) => ({ problem: null, notes: [`note of ${r.id}`], invalid: null, sameModel: null }),
  figures: [
    { heading: "figure", type: "num", sorted: true, cell: (r) => ({ kind: "number", value: r.figure, digits: 0 }) },
    { heading: "words", type: "text", className: "text", cell: (r) => ({ kind: "text", text: r.label }) },
  ],
};
const CTX: RankingContext = {
  scenario: "chat",
  named: false,
  targetHref: (id) => `targets/${id}/`,
  modelHref: (key) => `models/${key}/`,
  window: { windowHours: 72, maxRuns: 10 },
  section: false,
};
const WORDS = {
  kind: "closed",
  id: "t",
  heading: "h",
  sectionHeading: "s",
  anchor: "a",
  lead: "l",
  label: "L",
  caption: ["before", "after"] as [string, string],
  empty: "none",
  footnote: null,
  levelLinks: [],
};

const modelLines = (table: { groups: RankingGroup[] }) =>
  table.groups.flatMap((g) =>
    g.rows.map((r) => {
      const name = r.cells[1];
      return name?.kind === "target" ? (name.target.model?.key ?? null) : "no name cell";
    }),
  );

describe("the ranking table", () => {
  it("heads rank, the name, then each entry's header (without its cell function), a cell per header in every row", () => {
    const table = rankingTable(WORDS, COLUMNS, ROWS, { grouped: false, ctx: CTX });
    expect(table.columns).toEqual([
      { heading: "rank", type: "num", title: "how ranks are shared" },
      { heading: "target", type: "text", className: "text" },
      { heading: "figure", type: "num", sorted: true },
      { heading: "words", type: "text", className: "text" },
    ]);
    for (const r of table.groups.flatMap((g) => g.rows)) expect(r.cells).toHaveLength(4);
    expect(table.groups[0]?.rows[0]?.cells).toEqual([
      { kind: "rank", label: "1", value: 1 },
      {
        kind: "target",
        target: {
          label: "a label",
          href: "targets/a/",
          simulated: false,
          problem: null,
          notes: ["note of a"],
          invalid: null,
          sameModel: null,
          model: { key: "m", href: "models/m/" },
        },
      },
      { kind: "number", value: 10, digits: 0 },
      { kind: "text", text: "a label" },
    ]);
  });

  it("gives each row a group of its own with its model line when not grouped", () => {
    const table = rankingTable(WORDS, COLUMNS, ROWS, { grouped: false, ctx: CTX });
    expect(table.grouped).toBe(false);
    expect(table.groups.map((g) => [g.modelKey, g.header, g.rows.map((r) => r.id)])).toEqual([
      ["m", null, ["a"]],
      ["n", null, ["b"]],
      ["m", null, ["c"]],
    ]);
    expect(modelLines(table)).toEqual(["m", "n", "m"]);
  });

  it("groups by model: a model of several routes under a header (no model line), a lone route with its model line", () => {
    const table = rankingTable(WORDS, COLUMNS, ROWS, { grouped: true, ctx: CTX });
    expect(table.grouped).toBe(true);
    expect(table.groups.map((g) => [g.modelKey, g.header?.href ?? null, g.rows.map((r) => r.id)])).toEqual([
      ["m", "models/m/", ["a"]],
      ["n", null, ["b"]],
      ["m", "models/m/", ["c"]],
    ]);
    expect(modelLines(table)).toEqual([null, "n", null]);
  });

  it("lays a model page's routes in one group, the name column headed route, with no model line", () => {
    const { rankTitle: _, ...untitled } = COLUMNS;
    const table = routesTable(
      { id: "r", label: "routes", modelKey: "m", targetHref: (id) => `t/${id}/` },
      untitled,
      ROWS,
    );
    expect(table.columns.slice(0, 2)).toEqual([
      { heading: "rank", type: "num" },
      { heading: "route", type: "text", className: "text" },
    ]);
    expect(table.groups).toHaveLength(1);
    expect(table.groups[0]?.rows.map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(modelLines(table)).toEqual([null, null, null]);
  });
});
