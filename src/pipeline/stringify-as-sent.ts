import type { JsonObject } from "../canonical/json-object.ts";

/** One top-level member of a body as it came: its text (key, colon and value) and the value parsed from it. */
interface SentMember {
  readonly text: string;
  readonly value: unknown;
}

/** Bodies parsed from a client's text, with their top-level members as sent. */
const sentBodies = new WeakMap<object, ReadonlyMap<string, SentMember>>();

/** A key as the parse reads it: most keys hold no escape, and are their text less the quotes. */
function readKey(text: string, start: number, end: number): string | undefined {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes("\\")) return raw;
  try {
    const key: unknown = JSON.parse(text.slice(start, end));
    return typeof key === "string" ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps the top-level members of `body` as `text` held them (`members` as `scanJsonText` found
 * them, in the parsed text): `stringifyAsSent` cuts unchanged members from the text instead of
 * serialising them again. Nothing is kept when the text repeats a key or the members do not match
 * the body, so an odd text only costs the usual serialisation.
 */
export function keepSentMembers(body: JsonObject, text: string, members: readonly number[]): void {
  const kept = new Map<string, SentMember>();
  for (let i = 0; i < members.length; i += 3) {
    const key = readKey(text, members[i]!, members[i + 1]!);
    if (key === undefined || kept.has(key) || !Object.hasOwn(body, key)) return;
    kept.set(key, { text: text.slice(members[i]!, members[i + 2]!), value: body[key] });
  }
  if (kept.size !== Object.keys(body).length) return;
  sentBodies.set(body, kept);
}

/**
 * `JSON.stringify(body)` for a body made from `sent` (a body `keepSentMembers` kept, copied and
 * given other top-level members): each member still holding the value parsed from the client's
 * text is that text, cut as it came, and only the others are serialised. The members come in the
 * body's own order, as `JSON.stringify` puts them; an unchanged member keeps the client's spacing
 * and escapes, the same JSON value. Relies on what the pipeline holds to: a body's nested values
 * are never changed in place, only top-level members replaced.
 */
export function stringifyAsSent(body: JsonObject, sent: JsonObject): string {
  const kept = sentBodies.get(sent);
  if (!kept) return JSON.stringify(body);
  let out = "";
  for (const key of Object.keys(body)) {
    const value = body[key];
    const member = kept.get(key);
    let piece: string;
    if (member !== undefined && Object.is(member.value, value)) piece = member.text;
    else {
      const json = JSON.stringify(value);
      // As in an object JSON.stringify serialises: a member with no JSON form is left out.
      if (json === undefined) continue;
      piece = `${JSON.stringify(key)}:${json}`;
    }
    out = out === "" ? piece : `${out},${piece}`;
  }
  return `{${out}}`;
}
