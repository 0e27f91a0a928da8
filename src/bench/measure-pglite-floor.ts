/**
 * The embedded database's own memory floor: a bare script that opens an existing PGlite data
 * directory with the project's PGlite (on its main thread, nothing else loaded) and makes 2,000
 * small inserts one at a time, as a gateway's writes would. What the gateway holds beyond this is
 * the gateway's; this much it cannot go below while PGlite runs inside it.
 *
 * Standalone: `bun run src/bench/measure-pglite-floor.ts <PGlite data dir>` prints one JSON line.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_START_PARAMS } from "../db/pglite-thread/pglite-start-params.ts";
import type { ChildGroup } from "./child-group.ts";
import { readProcessMemory } from "./read-process-memory.ts";

export const FLOOR_INSERTS = 2_000;

export interface PgliteFloor {
  /** RSS once the existing data directory is open, bytes. */
  readonly openRssBytes: number;
  /** RSS after the inserts: the floor the gateway is judged against. */
  readonly afterInsertsRssBytes: number;
  /** The script's VmHWM at the end. */
  readonly peakBytes: number;
  readonly inserts: number;
  /** Wall time of the inserts, ms. */
  readonly insertsMs: number;
}

async function floor(location: string): Promise<PgliteFloor> {
  // With the gateway's start options (its buffer pool), so the floor is the one the gateway stands on.
  const db = await PGlite.create({ dataDir: location, startParams: [...PGLITE_START_PARAMS] });
  const opened = readProcessMemory(process.pid);
  await db.exec("create table if not exists bench_floor (id bigserial primary key, note text not null, n integer not null)");
  const started = performance.now();
  for (let i = 0; i < FLOOR_INSERTS; i++) {
    await db.query("insert into bench_floor (note, n) values ($1, $2)", [`row ${i} of the floor`, i]);
  }
  const insertsMs = performance.now() - started;
  const after = readProcessMemory(process.pid);
  await db.exec("drop table bench_floor");
  await db.close();
  if (!opened || !after) throw new Error("measure-pglite-floor: no /proc/self/status");
  return { openRssBytes: opened.rssBytes, afterInsertsRssBytes: after.rssBytes, peakBytes: after.peakBytes, inserts: FLOOR_INSERTS, insertsMs };
}

/** Runs the script in a process of its own on `location` (no other process may have it open) and reads its line. */
export async function measurePgliteFloor(group: ChildGroup, location: string): Promise<PgliteFloor> {
  const child = group.spawn("PGlite floor", [process.execPath, "run", import.meta.path, location], process.env);
  const code = await child.exited;
  await child.drained;
  const line = child
    .output()
    .split("\n")
    .findLast((l) => l.startsWith("{"));
  if (code !== 0 || line === undefined) throw new Error(`the PGlite floor script failed (code ${code}):\n${child.output()}`);
  return JSON.parse(line) as PgliteFloor;
}

if (import.meta.main) {
  const location = process.argv[2];
  if (!location) {
    console.error("usage: bun run src/bench/measure-pglite-floor.ts <PGlite data dir>");
    process.exit(2);
  }
  console.log(JSON.stringify(await floor(location)));
}
