import type { ContentPart } from "../canonical/content-part.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { wireApi } from "../wire/wire-apis.ts";

const VALID_ID = /^[A-Za-z0-9_-]+$/;

function rewriteId(id: string, max: number, taken: Set<string>): string {
  if (VALID_ID.test(id) && id.length <= max) return id;
  const suffix = `_${Bun.hash.wyhash(id).toString(36).slice(0, 8)}`;
  const base = id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, max - suffix.length);
  let candidate = base + suffix;
  for (let n = 1; taken.has(candidate); n++) candidate = `${base.slice(0, max - suffix.length - String(n).length)}${n}${suffix}`;
  return candidate;
}

/**
 * Makes every tool-call id of the history valid for the target API (characters and length), the
 * call and its result rewritten alike so they still pair. Ids already valid are kept; nothing
 * changed → the request itself. Pure: the id map is returned for logs, never needed to answer
 * (the client never sees history ids again).
 */
export function normalizeToolIds(request: CanonicalRequest, target: WireFormat): { value: CanonicalRequest; renamed: ReadonlyMap<string, string> } {
  const max = wireApi(target).maxToolIdLength;
  const renamed = new Map<string, string>();
  const taken = new Set<string>();
  for (const message of request.messages) {
    for (const part of message.content) {
      const id = part.type === "tool_call" ? part.id : part.type === "tool_result" ? part.callId : null;
      if (id !== null) taken.add(id);
    }
  }
  const rename = (id: string): string => {
    let next = renamed.get(id);
    if (next === undefined) {
      next = rewriteId(id, max, taken);
      if (next !== id) {
        renamed.set(id, next);
        taken.add(next);
      }
    }
    return next;
  };
  let changed = false;
  const messages = request.messages.map((message) => {
    let touched = false;
    const content = message.content.map((part): ContentPart => {
      if (part.type === "tool_call") {
        const id = rename(part.id);
        if (id === part.id) return part;
        touched = true;
        return { ...part, id };
      }
      if (part.type === "tool_result") {
        const callId = rename(part.callId);
        if (callId === part.callId) return part;
        touched = true;
        return { ...part, callId };
      }
      return part;
    });
    if (!touched) return message;
    changed = true;
    return { ...message, content };
  });
  return { value: changed ? { ...request, messages } : request, renamed };
}
