import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CacheControl } from "../../canonical/content-part.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/**
 * Where a value sits in a body (`messages[3].content[0]`), spelt out only when a 400 names it: a
 * big conversation's decode walks thousands of blocks and names none of them, so building each
 * block's name as a string up front was a good part of its cost.
 */
export class FieldPath {
  constructor(
    private readonly parent: Field,
    private readonly step: string | number,
  ) {}

  toString(): string {
    const parent = String(this.parent);
    return typeof this.step === "number" ? `${parent}[${this.step}]` : `${parent}.${this.step}`;
  }
}

/** A field's name as a 400 shows it, or the path it is spelt from. */
export type Field = string | FieldPath;

/** `field`, or its member or element `step`, spelt out. */
const nameOf = (field: Field, step: string | number | undefined): string => (step === undefined ? String(field) : String(new FieldPath(field, step)));

/** The object at `field` (its member `step` when given), or a 400 naming it. */
export function objectAt(value: unknown, field: Field, step?: string | number): JsonObject {
  if (!isJsonObject(value)) {
    const name = nameOf(field, step);
    throw invalidRequest(`\`${name}\`: expected an object`, name);
  }
  return value;
}

/** A required string, or a 400 naming the field. */
export function stringAt(value: unknown, field: Field, step?: string | number): string {
  if (typeof value !== "string") {
    const name = nameOf(field, step);
    throw invalidRequest(`\`${name}\`: expected a string`, name);
  }
  return value;
}

export function optionalString(value: unknown, field: Field, step?: string | number): string | undefined {
  return value === undefined || value === null ? undefined : stringAt(value, field, step);
}

export function optionalNumber(value: unknown, field: Field, step?: string | number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    const name = nameOf(field, step);
    throw invalidRequest(`\`${name}\`: expected a number`, name);
  }
  return value;
}

/** Messages `cache_control` → canonical; absent or null → undefined. */
export function readCacheControl(value: unknown, field: Field, step?: string | number): CacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  const name = nameOf(field, step);
  const control = objectAt(value, name);
  if (control.type !== "ephemeral") throw invalidRequest(`\`${name}.type\`: expected "ephemeral"`, `${name}.type`);
  const ttl = optionalString(control.ttl, name, "ttl");
  return ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl };
}

/** Canonical cache control → the Messages field, spread into a block (`{}` when absent). */
export function writeCacheControl(control: CacheControl | undefined): JsonObject {
  if (!control) return {};
  return { cache_control: control.ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl: control.ttl } };
}
