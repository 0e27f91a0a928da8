import { join } from "node:path";

/** The name under which `bun run build` embeds a new database's data dir beside the bundled code. */
export const TEMPLATE_FILE = "pglite-template.tar.gz";

/**
 * In a built executable: the `dumpDataDir` tarball of a database just after initdb, made by the
 * build with the PGlite it embeds, so a new data directory starts from it instead of running
 * initdb (see `openPgliteThread`). Running from source there is none, and initdb runs.
 */
export async function readBuiltInTemplate(): Promise<Blob | undefined> {
  const file = Bun.file(join(import.meta.dir, TEMPLATE_FILE));
  return (await file.exists()) ? file : undefined;
}
