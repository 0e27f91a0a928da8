import type { ContentPart } from "../canonical/content-part.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { Tier } from "../canonical/tier.ts";
import { hashKey } from "./hash-key.ts";

/**
 * How much of the system text and first message identifies a conversation: head and tail plus the
 * length. Hashing whole 100 KB prompts on every request would eat the warm-path budget, and two
 * conversations equal in all of that are, for pinning, the same conversation.
 */
const KEY_TEXT_CHARS = 8_192;
const HALF = KEY_TEXT_CHARS / 2;

/** Part of a system prompt that changes on every request of a session and must not split it. */
const VOLATILE_SYSTEM = /^x-anthropic-billing-header:/;

/**
 * `texts` joined with newlines, as the key reads it: the joined length, then the text, or its first
 * and last 4,096 characters around `\n…\n` when longer. Cut from the texts where they lie: joined
 * whole first, a long system prompt in parts (Claude Code sends two) was copied on every request
 * only to be cut (43 KB allocated a key for a 14 KB prompt, in process).
 */
function keyTextOf(texts: readonly string[]): string {
  let length = Math.max(0, texts.length - 1);
  for (const text of texts) length += text.length;
  if (length <= KEY_TEXT_CHARS) return `${length}:${texts.join("\n")}`;
  if (texts.length === 1) return `${length}:${texts[0]!.slice(0, HALF)}\n…\n${texts[0]!.slice(length - HALF)}`;
  return `${length}:${headOf(texts)}\n…\n${tailOf(texts)}`;
}

/** The first HALF characters of `texts` joined with newlines. */
function headOf(texts: readonly string[]): string {
  let head = "";
  for (let i = 0; i < texts.length && head.length < HALF; i++) {
    if (i > 0) head += "\n";
    head += texts[i]!.slice(0, HALF - head.length);
  }
  return head;
}

/** The last HALF characters of `texts` joined with newlines. */
function tailOf(texts: readonly string[]): string {
  let tail = "";
  for (let i = texts.length - 1; i >= 0 && tail.length < HALF; i--) {
    if (i < texts.length - 1) tail = `\n${tail}`;
    const text = texts[i]!;
    const want = HALF - tail.length;
    if (want > 0) tail = (want >= text.length ? text : text.slice(text.length - want)) + tail;
  }
  return tail;
}

/** The first user message's content that holds text: what, with the system prompt, names the conversation. */
function firstUserContent(request: CanonicalRequest): readonly ContentPart[] | undefined {
  for (const message of request.messages) {
    if (message.role !== "user") continue;
    for (const part of message.content) if (part.type === "text") return message.content;
  }
  return undefined;
}

function textsOf(content: readonly ContentPart[] | undefined): string[] {
  const texts: string[] = [];
  if (content) for (const part of content) if (part.type === "text") texts.push(part.text);
  return texts;
}

/** A key computed before, with the inputs besides the first message it was computed from. */
interface KeyedBefore {
  readonly accountId: string;
  readonly tier: Tier;
  readonly sessionId: string;
  readonly system: readonly string[];
  readonly key: string;
}

/**
 * Keys computed before, by the first user message's content when the parse memo shares it between
 * an account's requests (frozen: the same list each turn of a conversation sent again). The key is
 * given again when the other inputs are equal too (each system text compared, the same string as a
 * rule): the hash of a joined 16 KB text a request, for an agent's every turn, is spared. Held only
 * as long as the content is.
 */
const keyedBefore = new WeakMap<readonly ContentPart[], KeyedBefore>();

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The conversation a request belongs to: account, tier, system text and first user message,
 * refined by a client session id. A Responses request continuing `previous_response_id` holds
 * only the new turn, so its key is the key of that response (see `responseConversationKey`).
 */
export function conversationKey(accountId: string, tier: Tier, request: CanonicalRequest, sessionId: string | undefined): string {
  if (request.previousResponseId) return responseConversationKey(accountId, tier, request.previousResponseId);
  const system: string[] = [];
  for (const part of request.system) if (!VOLATILE_SYSTEM.test(part.text)) system.push(part.text);
  const first = firstUserContent(request);
  const session = sessionId ?? "";
  const shared = first !== undefined && Object.isFrozen(first);
  const known = shared ? keyedBefore.get(first) : undefined;
  if (known !== undefined && known.accountId === accountId && known.tier === tier && known.sessionId === session && sameTexts(known.system, system)) return known.key;
  const key = hashKey(["conv", accountId, tier, keyTextOf(system), keyTextOf(textsOf(first)), session]);
  if (shared) keyedBefore.set(first, { accountId, tier, sessionId: session, system, key });
  return key;
}

/** The key under which a response's conversation is found by a later `previous_response_id`. */
export function responseConversationKey(accountId: string, tier: Tier, responseId: string): string {
  return hashKey(["resp", accountId, tier, responseId]);
}
