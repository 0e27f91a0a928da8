import { isJsonObject, type JsonObject } from "../canonical/json-object.ts";

/**
 * Thinking signatures crossing the Responses format. Reasoning from a Responses upstream travels
 * in the canonical model as a thinking part signed `rlr1.<payload>` (its item id and
 * `encrypted_content`), so the Responses adapter can send the item back unchanged. Thinking from
 * another API shown to a Responses client travels the other way, as a reasoning item whose
 * `encrypted_content` is `rlm1.<payload>` (the text and the original signature, or the data of a
 * redacted block), so the request decoder can rebuild the exact part on the next turn.
 */

export const RESPONSES_REASONING_PREFIX = "rlr1.";
export const FOREIGN_THINKING_PREFIX = "rlm1.";

export interface ResponsesReasoningRef {
  readonly id: string;
  readonly encryptedContent?: string;
}

export type ForeignThinking = { readonly text: string; readonly signature?: string } | { readonly redacted: string };

function encodePayload(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

function decodePayload(text: string): JsonObject | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    return isJsonObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** The canonical signature for a reasoning item of a Responses upstream. */
export function packResponsesReasoning(ref: ResponsesReasoningRef): string {
  const payload: Record<string, string> = { id: ref.id };
  if (ref.encryptedContent !== undefined) payload.encrypted_content = ref.encryptedContent;
  return RESPONSES_REASONING_PREFIX + encodePayload(payload);
}

/** The item id and encrypted content packed in an `rlr1.` signature, or null for any other signature. */
export function unpackResponsesReasoning(signature: string | undefined): ResponsesReasoningRef | null {
  if (signature === undefined || !signature.startsWith(RESPONSES_REASONING_PREFIX)) return null;
  const payload = decodePayload(signature.slice(RESPONSES_REASONING_PREFIX.length));
  if (payload === null || typeof payload.id !== "string") return null;
  const encrypted = payload.encrypted_content;
  return typeof encrypted === "string" ? { id: payload.id, encryptedContent: encrypted } : { id: payload.id };
}

/** The `encrypted_content` that carries another API's thinking (signed or redacted) through a Responses client. */
export function packForeignThinking(thinking: ForeignThinking): string {
  return FOREIGN_THINKING_PREFIX + encodePayload(thinking);
}

/** The thinking packed in an `rlm1.` encrypted content, or null for any other value. */
export function unpackForeignThinking(encrypted: string | undefined): ForeignThinking | null {
  if (encrypted === undefined || !encrypted.startsWith(FOREIGN_THINKING_PREFIX)) return null;
  const payload = decodePayload(encrypted.slice(FOREIGN_THINKING_PREFIX.length));
  if (payload === null) return null;
  if (typeof payload.redacted === "string") return { redacted: payload.redacted };
  if (typeof payload.text !== "string") return null;
  return typeof payload.signature === "string" ? { text: payload.text, signature: payload.signature } : { text: payload.text };
}
