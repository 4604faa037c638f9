/**
 * @module The drivers by load kind: the one place a kind is looked up, on the main thread and in
 * worker threads alike. A new load kind adds its driver here.
 */
import type { LevelLoad } from "../plan/index.ts";
import { closedLoop } from "./closed-loop.ts";
import type { DriveSpec, LevelDriver } from "./driver.ts";
import { openLoop } from "./open-loop.ts";
import { traceReplay } from "./trace-replay.ts";

const DRIVERS: {
  [K in LevelLoad["kind"]]: LevelDriver<Extract<LevelLoad, { kind: K }>, Extract<DriveSpec, { kind: K }>>;
} = {
  closed: closedLoop,
  open: openLoop,
  trace: traceReplay,
};

/** The driver of a load kind. */
export function driverOf(kind: LevelLoad["kind"]): LevelDriver {
  // Each entry is typed on its kind; callers pass a load and a spec of the same kind.
  return DRIVERS[kind] as unknown as LevelDriver;
}
