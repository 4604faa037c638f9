/**
 * @module The `tool_calls_regression` alert of one (target, scenario), following the route's tool-call
 * verdicts run by run (each run's `toolCallsVerdict`, judged against its model's reference route by
 * then: docs/methodology.md#tool-calls). A run judged `worse` opens the alert at once (the verdict's
 * own test already allows for chance, at a false-alarm rate of 1 % per model), as does a run that
 * refuses tools after earlier runs of the route took them; later runs still worse, or still refusing,
 * grow it; the first run judged `same` resolves it. Runs not judged against a reference (none yet,
 * or the route is the reference) leave an open alert as it is.
 */
import type { ToolCallsAlertMeasure } from "../alerts/index.ts";
import type { RunIndexEntry } from "../run-index/index.ts";
import { VERDICT_MEASURE_WORDS, type VerdictMeasure } from "../tool-calls/verdict.ts";
import { addRuns, newTracked, resolveAlert, type Tracked } from "./alert.ts";
import { subjectOf, toolCallsTitle } from "./title.ts";

/** The alert's words for a route that took tools and now refuses them. */
const REFUSES = "no_tool_support";

export class ToolCallsWatch {
  private open: Tracked | null = null;
  /** An earlier run of the route took tools. */
  private tookTools = false;

  constructor(
    private readonly runs: readonly RunIndexEntry[],
    /** Files a newly opened alert with the detector. */
    private readonly file: (t: Tracked) => void,
  ) {}

  /** Judges run `index`; runs without a tool-call phase say nothing. */
  observe(run: RunIndexEntry, index: number): void {
    if (!run.toolCalls) return;
    const verdict = run.toolCallsVerdict;
    const refuses = run.toolCalls.support === "no-tool-support" && this.tookTools;
    if (run.toolCalls.support === "supported") this.tookTools = true;
    if (verdict?.verdict === "worse" || refuses) {
      if (this.open) {
        addRuns(this.open, this.runs, [index]);
        this.open.alert.updatedAt = run.startedAt;
      } else this.raise(run, index);
      return;
    }
    if (this.open && verdict?.verdict === "same" && verdict.cause !== "reference") {
      addRuns(this.open, this.runs, [index]);
      resolveAlert(this.open, run.startedAt);
      this.open = null;
    }
  }

  /** Opens the alert on the run, with its verdict's cause and the measures found lower. */
  private raise(run: RunIndexEntry, index: number): void {
    const verdict = run.toolCallsVerdict;
    const worse = verdict?.verdict === "worse";
    const t = newTracked("tool_calls_regression", "tools", run, run, index);
    const measures: ToolCallsAlertMeasure[] = worse
      ? verdict.measures
          .filter((m) => verdict.lower.includes(m.measure))
          .map(({ measure, prompts, route, reference, lost, gained, pValue }) => ({
            measure,
            prompts,
            route,
            reference,
            lost,
            gained,
            pValue,
          }))
      : [];
    const cause = worse ? verdict.cause : REFUSES;
    const reason = worse ? verdict.reason : "the route refused tools after earlier runs took them";
    t.alert.toolCalls = {
      suite: run.toolCalls?.suite ?? "",
      cause,
      reference: verdict?.reference ?? null,
      reason,
      measures,
    };
    // A route that no longer calls tools, or refuses them, is of no use to an agent: critical.
    t.alert.severity = cause === "stopped_calling" || cause === REFUSES ? "critical" : "warning";
    t.alert.title = toolCallsTitle(
      subjectOf(t.alert),
      cause,
      verdict?.reference ?? null,
      measures.map((m) => ({ ...m, words: VERDICT_MEASURE_WORDS[m.measure as VerdictMeasure] ?? m.measure })),
    );
    addRuns(t, this.runs, [index]);
    this.open = t;
    this.file(t);
  }
}
