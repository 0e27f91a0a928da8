import { isJsonObject } from "../canonical/json-object.ts";

/** A stand-in value for one JSON-Schema property; strings carry the property name so tests can predict them. */
function sampleValue(name: string, schema: unknown): unknown {
  if (!isJsonObject(schema)) return `sim_${name}`;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length > 0) return sampleValue(name, variants[0]);
  const rawType = schema.type;
  const type = Array.isArray(rawType) ? rawType.find((t) => t !== "null") : rawType;
  switch (type) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    case "null":
      return null;
    default:
      return `sim_${name}`;
  }
}

/**
 * Deterministic arguments for a tool from its JSON Schema: the required properties (all of
 * them when none is required); strings → "sim_<property>", numbers → 1, booleans → true,
 * arrays → [], objects → {}, enums → their first value.
 */
export function buildToolArgs(schema: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  if (!isJsonObject(schema) || !isJsonObject(schema.properties)) return args;
  const properties = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : [];
  const names = required.length > 0 ? required : Object.keys(properties);
  for (const name of names) args[name] = sampleValue(name, properties[name]);
  return args;
}
