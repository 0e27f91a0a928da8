import { Kind, Type, TypeGuard, type TSchema, type Static } from "@sinclair/typebox";
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
 * The check of `schema`, an object whose required member `key` is an array, that checks an element
 * of that array once if it is frozen: an element the parse memo shares between an account's
 * requests (a message of a conversation sent again, frozen three levels down: the message, its
 * content list, its blocks). The element schema must look no deeper than that, and no further than
 * the element itself, or a check could pass once and not again. Undefined for another schema.
 */
function compileSharedItemsCheck(schema: TSchema, key: string): ((body: unknown) => boolean) | undefined {
  if (!TypeGuard.IsObject(schema) || !schema.required?.includes(key)) return undefined;
  const list = schema.properties[key];
  if (!TypeGuard.IsArray(list)) return undefined;
  const rest = TypeCompiler.Compile(Type.Omit(schema, [key]));
  const item = TypeCompiler.Compile(list.items);
  const checked = new WeakSet<object>();
  return (body) => {
    if (!rest.Check(body)) return false;
    const elements = (body as Record<string, unknown>)[key];
    if (!Array.isArray(elements)) return false;
    for (const element of elements as unknown[]) {
      if (typeof element === "object" && element !== null && checked.has(element)) continue;
      if (!item.Check(element)) return false;
      if (typeof element === "object" && element !== null && Object.isFrozen(element)) checked.add(element);
    }
    return true;
  };
}

/**
 * Compiles a wire schema once into a check that either returns the typed body or throws a 400
 * naming the first field at fault ("`messages`: field required", "`max_tokens`: expected an integer").
 * With `sharedItems`, the array member holding a conversation (`messages`): its elements the parse
 * memo shares, frozen, are checked once, not again on every turn that sends them (a 1 MB
 * conversation's 700 messages: about 70 µs, and a closure each, a request).
 */
export function compileBodyCheck<S extends TSchema>(schema: S, sharedItems?: string): (body: unknown) => Static<S> {
  const compiled = TypeCompiler.Compile(schema);
  const passes = (sharedItems === undefined ? undefined : compileSharedItemsCheck(schema, sharedItems)) ?? ((body: unknown) => compiled.Check(body));
  return (body) => {
    if (passes(body)) return body as Static<S>;
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
