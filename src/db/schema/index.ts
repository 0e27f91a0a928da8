export * from "./accounts.ts";
export * from "./decision-cache.ts";
export * from "./usage.ts";
export * from "./smartplus.ts";
export * from "./audit.ts";
export * from "./console.ts";
