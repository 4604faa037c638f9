/** @module Run claims as files in a local folder, for local runs. */
import { randomUUID } from "node:crypto";
import { link, mkdir, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ClaimError, type ClaimOptions, type ClaimResult, type RunClaims } from "./index.ts";

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
 * Claims as files under `rootDir`, for local runs. Each takeover creates the next generation
 * (`<runId>.<n>.json`) whole, by an exclusive hard link of a written file, so of owners racing for
 * a free or expired run exactly one wins, with no lock to go stale; the newest generation is the
 * claim. Complete and release replace the owner's generation by write-then-rename, so readers never
 * see half a file.
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

  /**
   * Creates generation n whole; false when another owner created it first. The claim is written to
   * a file of its own and hard-linked into place (a link fails on an existing name, as `wx` does), so
   * a reader never finds the generation before its contents: with `wx` it could read an empty file.
   */
  private async create(runId: string, generation: number, claim: ClaimFile): Promise<boolean> {
    const path = this.path(runId, generation);
    const temp = `${path}.${randomUUID()}.tmp`;
    await writeFile(temp, JSON.stringify(claim));
    try {
      await link(temp, path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw error;
    } finally {
      await unlink(temp).catch(() => {});
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
