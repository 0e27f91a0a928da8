/**
 * A process of its own that creates a PGlite data directory (initdb) and exits: `bun <this file>
 * <directory>`. See `createDataDirInProcess`.
 */
import { PGlite } from "@electric-sql/pglite";

const location = process.argv[2];
if (!location) {
  console.error("usage: bun initdb-process.ts <data directory>");
  process.exit(2);
}
const database = await PGlite.create(location);
await database.close();
