/** PGlite's location for a database kept in memory only. */
export const MEMORY_DATA_DIR = "memory://";
