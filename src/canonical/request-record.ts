import type { Usage } from "./usage.ts";

/** The endpoint a record is about. */
export type RecordEndpoint = "messages" | "chat" | "responses" | "count_tokens" | "smartplus_job";

/**
 * What the pipeline reports once a request has finished (the last byte of a stream sent, or the
 * client gone). The request log, metrics and usage accounting all consume it; none of it is in
 * the hot path (consumers buffer). It never holds a key, a prompt or a body.
 */
export interface RequestRecord {
  readonly requestId: string;
  /** When the request arrived (ms since epoch). */
  readonly startedAt: number;
  readonly endpoint: RecordEndpoint;
  readonly stream: boolean;
  /** Absent when authentication failed. */
  readonly accountId?: string;
  /** The key the request came with (its id, never the key); absent when authentication failed. */
  readonly keyId?: string;
  readonly plan?: string;
  readonly tier?: string;
  /** Config name of the model that answered (or was last tried). */
  readonly model?: string;
  readonly effort?: string;
  readonly source?: string;
  /** The class the router gave the task (absent on continuations without classification). */
  readonly taskClass?: string;
  /** HTTP status sent; a stream that failed after its first byte keeps 200 and sets `streamError`. */
  readonly status: number;
  readonly errorType?: string;
  readonly streamError?: string;
  /** True when the client went away before the end. */
  readonly clientAborted: boolean;
  readonly latencyMs: number;
  /** Time to the first byte of the body sent to the client. */
  readonly ttfbMs?: number;
  readonly usage?: Usage;
  readonly costUsd?: number;
  /**
   * The pipeline counted `usage` (and its cost) toward the account's limits itself, before the end:
   * a stream that ended normally does so before its last bytes, so a shared limiter settles its
   * tokens with its slot in one call. Consumers that count toward the limits leave it alone.
   */
  readonly limitsCharged?: boolean;
  readonly cacheHit: boolean;
  /** Upstream attempts made (1 = no failover). */
  readonly attempts: number;
  /** Conversion and effort-mapping warnings. */
  readonly warnings: readonly string[];
}

/** A consumer of finished requests. Must not throw and must not block. */
export type RequestObserver = (record: RequestRecord) => void;
