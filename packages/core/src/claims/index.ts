/**
 * @module Run claims: a run is claimed before its first request, so a duplicate delivery of the same
 * schedule slot finds the claim and exits, and a claim whose worker died expires so the slot can be
 * retried. The port, the slot's run id, and a folder implementation for local use.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { KneeboardError } from "../errors/index.ts";
import { compactTimestamp } from "../run/index.ts";

/** `claimed`: the caller owns the run now. `held`: another owner's lease is live. `done`: the run completed. */
export type ClaimResult = "claimed" | "held" | "done";

export interface ClaimOptions {
  targetId: string;
  /** Who claims (e.g. the invocation's request id); only the owner may complete or release. */
  owner: string;
  /** Now, in ms since the epoch (injected so tests drive the clock). */
  nowMs: number;
  /** How long the lease lasts, ms; past `nowMs + ttlMs` another owner may take the run over. */
  ttlMs: number;
}

/** Where runs are claimed, completed and released. */
export interface RunClaims {
  /**
   * Claims runId when nobody holds it or the holder's lease ran out, and it is not done. The same
   * owner claiming again renews its lease.
   */
  claim(runId: string, options: ClaimOptions): Promise<ClaimResult>;
  /** Marks the run done (after its document and index entry are written); later claims get `done`. */
  complete(runId: string, owner: string): Promise<void>;
  /** Gives the claim up so the slot can be retried at once; a no-op when owner no longer holds it. */
  release(runId: string, owner: string): Promise<void>;
  /**
   * Moves the claim from `fromOwner` to `options.owner` with a fresh lease, whether or not the old
   * lease is live, as long as `fromOwner` still holds it and the run is not done (a continued sweep's
   * next invocation takes over from the one before). Of several takers from one holder, exactly one
   * gets `claimed`; the rest get `held` (or `done`).
   */
  handOver(runId: string, fromOwner: string, options: ClaimOptions): Promise<ClaimResult>;
}

/** The claim is not the caller's (it expired and another owner took it, or it never was). */
export class ClaimError extends KneeboardError {
  override name = "ClaimError";
}

/**
 * The run id of a target's schedule slot: the slot's compact time and a short hash of target and
 * slot (`20250101T060000Z-3f9a0c12d4`). Deterministic, so every delivery of one slot claims one id;
 * safe as a key segment whatever the target id holds.
 */
export function slotRunId(targetId: string, slotIso: string): string {
  const slot = new Date(slotIso);
  if (Number.isNaN(slot.getTime())) throw new KneeboardError(`invalid schedule slot: ${slotIso}`);
  const normalized = slot.toISOString();
  const hash = createHash("sha256").update(`${targetId}\n${normalized}`).digest("hex").slice(0, 10);
  return `${compactTimestamp(normalized)}-${hash}`;
}

/** A claim as the folder implementation keeps it; validated on every read. */
const ClaimFile = z.object({
  runId: z.string(),
  targetId: z.string(),
  owner: z.string(),
  /** ms since the epoch; the lease is live while nowMs <= leaseUntil. */
  leaseUntil: z.number(),
  status: z.enum(["claimed", "done"]),
});
type ClaimFile = z.infer<typeof ClaimFile>;

const RunIdSegment = /^[A-Za-z0-9._-]+$/;

/**
 * Claims as files under `rootDir`, for local runs. Each takeover writes the next generation
 * (`<runId>.<n>.json`) with exclusive create (`wx`), so of owners racing for a free or expired run
 * exactly one wins, with no lock to go stale; the newest generation is the claim. Complete and
 * release replace the owner's generation by write-then-rename, so readers never see half a file.
 */
export class FolderRunClaims implements RunClaims {
  constructor(readonly rootDir: string) {}

  private check(runId: string): void {
    if (!RunIdSegment.test(runId)) throw new ClaimError(`invalid run id: ${JSON.stringify(runId)}`);
  }

  private path(runId: string, generation: number): string {
    return join(this.rootDir, `${runId}.${generation}.json`);
  }

  /** The newest generation and its claim, or null when the run was never claimed. */
  private async latest(runId: string): Promise<{ generation: number; claim: ClaimFile } | null> {
    for (;;) {
      const pattern = new RegExp(`^${runId.replace(/\./g, "\\.")}\\.(\\d+)\\.json$`);
      let names: string[];
      try {
        names = await readdir(this.rootDir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
      const generations = names.map((n) => pattern.exec(n)?.[1]).filter((g) => g !== undefined);
      if (generations.length === 0) return null;
      const generation = Math.max(...generations.map(Number));
      try {
        const claim = ClaimFile.parse(JSON.parse(await readFile(this.path(runId, generation), "utf8")));
        return { generation, claim };
      } catch (error) {
        // A newer generation's winner removed this one after we listed: list again.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw new ClaimError(`cannot read the claim of ${runId}`, { cause: error });
      }
    }
  }

  /** Creates generation n; false when another owner created it first. */
  private async create(runId: string, generation: number, claim: ClaimFile): Promise<boolean> {
    try {
      await writeFile(this.path(runId, generation), JSON.stringify(claim), { flag: "wx" });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw error;
    }
  }

  private async replace(runId: string, generation: number, claim: ClaimFile): Promise<void> {
    const path = this.path(runId, generation);
    const temp = `${path}.${randomUUID()}.tmp`;
    await writeFile(temp, JSON.stringify(claim));
    await rename(temp, path);
  }

  async claim(runId: string, options: ClaimOptions): Promise<ClaimResult> {
    this.check(runId);
    await mkdir(this.rootDir, { recursive: true });
    const mine: ClaimFile = {
      runId,
      targetId: options.targetId,
      owner: options.owner,
      leaseUntil: options.nowMs + options.ttlMs,
      status: "claimed",
    };
    for (;;) {
      const current = await this.latest(runId);
      if (current === null) {
        if (await this.create(runId, 0, mine)) return "claimed";
        continue;
      }
      const { generation, claim } = current;
      if (claim.status === "done") return "done";
      if (claim.owner === options.owner) {
        await this.replace(runId, generation, mine);
        return "claimed";
      }
      if (claim.leaseUntil >= options.nowMs) return "held";
      if (await this.create(runId, generation + 1, mine)) {
        await this.prune(runId, generation + 1);
        return "claimed";
      }
      // Another owner took the expired claim first; look at theirs.
    }
  }

  /** Removes generations older than `keep`; best effort, since readers skip what vanished. */
  private async prune(runId: string, keep: number): Promise<void> {
    for (let g = 0; g < keep; g++) await unlink(this.path(runId, g)).catch(() => {});
  }

  async complete(runId: string, owner: string): Promise<void> {
    this.check(runId);
    const current = await this.latest(runId);
    if (current === null || current.claim.owner !== owner) {
      throw new ClaimError(`${owner} does not hold the claim of ${runId}`);
    }
    await this.replace(runId, current.generation, { ...current.claim, status: "done" });
  }

  async handOver(runId: string, fromOwner: string, options: ClaimOptions): Promise<ClaimResult> {
    this.check(runId);
    const current = await this.latest(runId);
    if (current === null) return "held";
    const { generation, claim } = current;
    if (claim.status === "done") return "done";
    if (claim.owner !== fromOwner) return "held";
    const mine: ClaimFile = {
      runId,
      targetId: options.targetId,
      owner: options.owner,
      leaseUntil: options.nowMs + options.ttlMs,
      status: "claimed",
    };
    // The next generation is created exclusively: of racing takers, one wins.
    if (!(await this.create(runId, generation + 1, mine))) return "held";
    await this.prune(runId, generation + 1);
    return "claimed";
  }

  async release(runId: string, owner: string): Promise<void> {
    this.check(runId);
    const current = await this.latest(runId);
    if (current === null || current.claim.owner !== owner || current.claim.status === "done") return;
    // A lease that ended before any clock's now is free to the next claimer, whose generation follows.
    await this.replace(runId, current.generation, { ...current.claim, leaseUntil: -1 });
  }
}
