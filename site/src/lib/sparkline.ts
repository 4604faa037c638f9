/** @module A tiny inline SVG trend for leaderboard rows: a polyline of the last runs, no charting runtime. */

/**
 * An SVG polyline of values (oldest first) scaled into width x height, from zero to the highest value
 * (as the charts do: a wobble of a few percent stays a few percent of the height); a dot marks each
 * run when they are few enough to tell apart. Empty string when under 2 values.
 */
export function sparkline(
  values: (number | null)[],
  options: { width?: number; height?: number; label: string },
): string {
  const width = options.width ?? 80;
  const height = options.height ?? 20;
  const points = values.map((v, i) => [i, v] as const).filter((p): p is readonly [number, number] => p[1] !== null);
  if (points.length < 2) return "";
  const ys = points.map((p) => p[1]);
  const lo = Math.min(0, ...ys);
  const hi = Math.max(...ys);
  const span = hi - lo || 1;
  const last = values.length - 1 || 1;
  const xy = points.map(
    ([i, v]) =>
      [((i / last) * (width - 2) + 1).toFixed(1), (height - 1 - ((v - lo) / span) * (height - 2)).toFixed(1)] as const,
  );
  const coords = xy.map(([x, y]) => `${x},${y}`).join(" ");
  const dots = xy.length <= 12 ? xy.map(([x, y]) => `<circle cx="${x}" cy="${y}" r="1.5"/>`).join("") : "";
  const label = options.label.replace(/[<>&"]/g, "");
  return `<svg class="spark" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${label}"><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${coords}"/><g fill="currentColor">${dots}</g></svg>`;
}
