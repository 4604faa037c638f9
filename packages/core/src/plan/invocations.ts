/**
 * @module Lambda's time limits and how a sweep's levels fit into its invocations: the first and the
 * continuations a deployed run takes.
 */
/** Lambda's longest invocation, seconds. */
export const LAMBDA_INVOCATION_SECONDS = 900;

/** The deployed sweep stops this long before its invocation ends so the finished levels are saved, seconds. */
export const LAMBDA_DEADLINE_MARGIN_SECONDS = 30;

/**
 * Invocations one deployed run may use (the first and its continuations) before it is stored partial;
 * the functions' `KNEEBOARD_SWEEP_MAX_INVOCATIONS` overrides it.
 */
export const DEFAULT_MAX_INVOCATIONS = 4;

/** How a sweep of a given duration fits into Lambda invocations of `invocationBudgetSeconds` each. */
export interface InvocationFit {
  /** Invocations needed: levels run in order, a level that does not fit in what is left starts the next one. */
  invocations: number;
  /** Follow-up messages after the first invocation (`invocations - 1`). */
  continuations: number;
  /** Levels that cannot finish even in a fresh invocation: the run would end partial before them. */
  oversizedLevels: number[];
}

/** Packs level durations, in order, into invocations of budgetSeconds each. */
export function fitInvocations(levelSeconds: number[], budgetSeconds: number): InvocationFit {
  let invocations = 1;
  let used = 0;
  const oversizedLevels: number[] = [];
  levelSeconds.forEach((seconds, i) => {
    if (seconds > budgetSeconds) {
      oversizedLevels.push(i);
      return;
    }
    if (used + seconds > budgetSeconds) {
      invocations++;
      used = 0;
    }
    used += seconds;
  });
  return { invocations, continuations: invocations - 1, oversizedLevels };
}
