/**
 * @module The leaderboard's "tool calls" column: added to every kind's ranking (the tool calls test a
 * route, whatever load its levels ran), before the trend, wherever a route on the table has a tool-call
 * run. Its cell is the schema-valid share, its interval and count in the tooltip, a dash when not
 * measured; a route worse than its reference, or with no tool support, gets a badge beside its name,
 * where the same-model badge sits (a badge in the cell would widen the table past a laptop's width).
 */
import type { Column, RankingTable } from "./rankings.ts";
import type { TargetView } from "./site-data.ts";
import { toolCallsCell } from "./tool-calls.ts";

export const TOOL_CALLS_COLUMN: Column = {
  heading: "tool calls",
  type: "num",
  className: "tool-calls",
  title:
    "schema-valid: share of the latest tool-call run's calls whose arguments are valid against the tool's JSON Schema; its Wilson 95 % interval and count on hover; worse: below the model's reference route (one-sided test, Holm, α 0.01)",
};

/** The table with the tool-calls column, or as it is when none of its routes has a tool-call run. */
export function withToolCalls(table: RankingTable, views: readonly TargetView[]): RankingTable {
  const byId = new Map(views.map((v) => [v.id, v]));
  const rows = table.groups.flatMap((g) => g.rows);
  if (!rows.some((r) => byId.get(r.id)?.toolCalls)) return table;
  const fixed = table.columns.findIndex((c) => c.fixed);
  const at = fixed < 0 ? table.columns.length : fixed;
  const insert = <T>(list: readonly T[], item: T) => [...list.slice(0, at), item, ...list.slice(at)];
  return {
    ...table,
    columns: insert(table.columns, TOOL_CALLS_COLUMN),
    groups: table.groups.map((g) => ({
      ...g,
      rows: g.rows.map((r) => {
        const words = toolCallsCell(byId.get(r.id)?.toolCalls ?? null);
        const badge = words.badge ? { badge: words.badge, title: words.title } : null;
        const cells = r.cells.map((c) =>
          c.kind === "target" ? { ...c, target: { ...c.target, toolCalls: badge } } : c,
        );
        const cell = { kind: "toolCalls" as const, value: words.value, text: words.text, title: words.title };
        return { ...r, cells: insert(cells, cell) };
      }),
    })),
  };
}
