/** @module A tiny inline SVG trend for leaderboard rows: a polyline of the last runs, no charting runtime. */

/** An SVG polyline of values (oldest first) scaled into width x height; empty string when under 2 values. */
export function sparkline(
  values: (number | null)[],
  options: { width?: number; height?: number; label: string },
): string {
  const width = options.width ?? 80;
  const height = options.height ?? 20;
  const points = values.map((v, i) => [i, v] as const).filter((p): p is readonly [number, number] => p[1] !== null);
  if (points.length < 2) return "";
  const ys = points.map((p) => p[1]);
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const span = hi - lo || 1;
  const last = values.length - 1 || 1;
  const coords = points
    .map(
      ([i, v]) =>
        `${((i / last) * (width - 2) + 1).toFixed(1)},${(height - 1 - ((v - lo) / span) * (height - 2)).toFixed(1)}`,
    )
    .join(" ");
  const label = options.label.replace(/[<>&"]/g, "");
  return `<svg class="spark" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${label}"><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${coords}"/></svg>`;
}
