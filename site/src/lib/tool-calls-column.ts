/**
 * @module The leaderboard's "tool calls" column: added to every kind's ranking (the tool calls test a
 * route, whatever load its levels ran), before the trend, wherever a route on the table has a tool-call
 * run. Its cell is the schema-valid share, its interval and count in the tooltip, a badge when the
 * route is worse than its reference or has no tool support, a dash when not measured.
 */
import type { Column, RankingTable } from "./rankings.ts";
import type { TargetView } from "./site-data.ts";
import { toolCallsCell } from "./tool-calls.ts";

export const TOOL_CALLS_COLUMN: Column = {
  heading: "tool calls",
  sub: "schema-valid",
  type: "num",
  className: "tool-calls",
  title:
    "share of the latest tool-call run's calls whose arguments are valid against the tool's JSON Schema; its Wilson 95 % interval and count on hover; worse: below the model's reference route (one-sided test, Holm, α 0.01)",
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
      rows: g.rows.map((r) => ({
        ...r,
        cells: insert(r.cells, { kind: "toolCalls" as const, ...toolCallsCell(byId.get(r.id)?.toolCalls ?? null) }),
      })),
    })),
  };
}
