import { Kind, type TSchema, type Static } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { invalidRequest } from "../canonical/gateway-error.ts";

/** `/messages/0/role` → `messages[0].role`, the way API error messages name fields. */
export function fieldName(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), "");
}

function describe(schema: TSchema): string {
  const kind = schema[Kind] as string;
  if (kind === "Union") return (schema.anyOf as TSchema[]).map(describe).join(" or ");
  if (kind === "Integer") return schema.minimum !== undefined ? `an integer >= ${schema.minimum}` : "an integer";
  if (kind === "Number") return "a number";
  if (kind === "String") return "a string";
  if (kind === "Boolean") return "a boolean";
  if (kind === "Array") return "an array";
  if (kind === "Object") return "an object";
  if (kind === "Null") return "null";
  if (kind === "Literal") return JSON.stringify(schema.const);
  return "a valid value";
}

function valueAt(root: unknown, pointer: string): unknown {
  let current = root;
  for (const part of pointer.split("/").slice(1)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * Compiles a wire schema once into a check that either returns the typed body or throws a 400
 * naming the first field at fault ("`messages`: field required", "`max_tokens`: expected an integer").
 */
export function compileBodyCheck<S extends TSchema>(schema: S): (body: unknown) => Static<S> {
  const compiled = TypeCompiler.Compile(schema);
  return (body) => {
    if (compiled.Check(body)) return body;
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw invalidRequest("request body must be a JSON object");
    }
    const first = compiled.Errors(body).First();
    if (!first) throw invalidRequest("invalid request body");
    const field = fieldName(first.path);
    const message =
      valueAt(body, first.path) === undefined
        ? `\`${field}\`: field required`
        : `\`${field}\`: expected ${describe(first.schema)}`;
    throw invalidRequest(message, field);
  };
}
