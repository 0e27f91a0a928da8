import type { Tier } from "../canonical/tier.ts";
import { decodeMessagesRequest } from "../wire/messages/decode-request.ts";
import { conversationKey } from "../routing/conversation-key.ts";
import type { PinStore } from "../routing/pin-store.ts";
import { readSessionId } from "../routing/read-session-id.ts";

export type PinnedModelLookup = (accountId: string, tier: Tier, body: Record<string, unknown>, headers: Headers) => Promise<string | undefined>;

/**
 * The model a count request's conversation is pinned to (the one that will answer its next turn),
 * found the way the router finds it: same conversation key, same pin map. Undefined when the
 * conversation is new or the body cannot be read as a conversation.
 */
export function findPinnedModel(pins: Pick<PinStore, "get">): PinnedModelLookup {
  return async (accountId, tier, body, headers) => {
    try {
      const request = decodeMessagesRequest(body).value;
      const pin = await pins.get(conversationKey(accountId, tier, request, readSessionId(headers, request)));
      return pin?.model;
    } catch {
      return undefined;
    }
  };
}
