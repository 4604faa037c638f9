/**
 * @module The leaderboard's filters, as links (no script needed): a scenario's routes by the provider
 * that serves them or the gateway they go through, each at `s/<scenario>/by/<facet>/<value>/`. A model's
 * routes are its model page. A facet is offered where it tells routes apart (two values or more).
 */
import type { TargetView } from "./site-data.ts";

export const FACETS = ["provider", "gateway"] as const;
export type Facet = (typeof FACETS)[number];

/** A route's provider (the one it pins, else the one that served most of its latest run) or gateway; null when it names none. */
export function facetValue(v: TargetView, facet: Facet): string | null {
  if (facet === "gateway") return v.latest.route.gateway;
  return v.latest.route.provider ?? v.latest.servedProviders[0] ?? null;
}

/** A value as one path segment: lower case, runs of anything but letters, digits, dots and dashes as one dash. */
export function facetSlug(value: string): string {
  return (
    value
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "-"
  );
}

/** A filter page's path from the site root. */
export function facetPath(scenario: string, facet: Facet, slug: string): string {
  return `s/${scenario}/by/${facet}/${slug}/`;
}

export interface FacetValue {
  value: string;
  slug: string;
  routes: number;
}

/** Each facet's values among `views`, most routes first, where it has two or more. */
export function facetValues(views: readonly TargetView[]): { facet: Facet; values: FacetValue[] }[] {
  return FACETS.map((facet) => {
    const counts = new Map<string, FacetValue>();
    for (const v of views) {
      const value = facetValue(v, facet);
      if (value === null) continue;
      const slug = facetSlug(value);
      const seen = counts.get(slug) ?? { value, slug, routes: 0 };
      seen.routes++;
      counts.set(slug, seen);
    }
    const values = [...counts.values()].sort((a, b) => b.routes - a.routes || a.slug.localeCompare(b.slug));
    return { facet, values };
  }).filter((f) => f.values.length >= 2);
}

/** The views a filter keeps. */
export function filterViews(views: readonly TargetView[], facet: Facet, slug: string): TargetView[] {
  return views.filter((v) => {
    const value = facetValue(v, facet);
    return value !== null && facetSlug(value) === slug;
  });
}
