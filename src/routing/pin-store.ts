import type { Effort } from "../canonical/effort.ts";

/** Where a conversation stands in its struggle: steps above the class's effort, and what was counted. */
export interface EscalationState {
  readonly steps: number;
  /** Fingerprint of the tool results last counted, so a retried request is not counted twice. */
  readonly seen: string;
}

/** A conversation's pin: the model that answered its last turn, and the effort it ran at. */
export interface ConversationPin {
  readonly model: string;
  readonly taskClass: string;
  /** The class's effort before escalation. */
  readonly baseEffort: Effort;
  readonly escalation: EscalationState;
  /**
   * How many assistant turns of the history were answered before the conversation last switched
   * to `model`: their thinking is another model's and must not reach this one (absent: none).
   */
  readonly foreignTurns?: number;
}

/** The pin map: in process by default, Redis when REDIS_URL is set. Both expire pins after a TTL. */
export interface PinStore {
  readonly kind: "memory" | "redis";
  /**
   * The conversation's pin; with `ttlMs`, its life extended to that from now in the same call, so
   * a conversation in use stays pinned and an answer that leaves the pin as it was needs no write.
   * Without it (a dry run), the pin is only read.
   */
  get(key: string, ttlMs?: number): ConversationPin | null | Promise<ConversationPin | null>;
  set(key: string, pin: ConversationPin, ttlMs: number): void | Promise<void>;
  close(): Promise<void>;
}
