import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CacheControl } from "../../canonical/content-part.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** The object at `field`, or a 400 naming it. */
export function objectAt(value: unknown, field: string): JsonObject {
  if (!isJsonObject(value)) throw invalidRequest(`\`${field}\`: expected an object`, field);
  return value;
}

/** A required string, or a 400 naming the field. */
export function stringAt(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalidRequest(`\`${field}\`: expected a string`, field);
  return value;
}

export function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined || value === null ? undefined : stringAt(value, field);
}

export function optionalNumber(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw invalidRequest(`\`${field}\`: expected a number`, field);
  return value;
}

/** Messages `cache_control` → canonical; absent or null → undefined. */
export function readCacheControl(value: unknown, field: string): CacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  const control = objectAt(value, field);
  if (control.type !== "ephemeral") throw invalidRequest(`\`${field}.type\`: expected "ephemeral"`, `${field}.type`);
  const ttl = optionalString(control.ttl, `${field}.ttl`);
  return ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl };
}

/** Canonical cache control → the Messages field, spread into a block (`{}` when absent). */
export function writeCacheControl(control: CacheControl | undefined): JsonObject {
  if (!control) return {};
  return { cache_control: control.ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl: control.ttl } };
}
