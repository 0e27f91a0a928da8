/**
 * The one error type of the gateway. Every failure is turned into one of these and each wire
 * format renders it in its own body shape. Messages must never carry prompts, bodies or keys.
 */
export type GatewayErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "upstream_error"
  | "overloaded_error"
  | "timeout_error";

export class GatewayError extends Error {
  readonly status: number;
  readonly type: GatewayErrorType;
  /** OpenAI-style `code`; defaults to the type, as the spec shows. */
  readonly code: string;
  /** OpenAI-style `param`: the request field at fault, when there is one. */
  readonly param: string | null;
  /** Whether retrying the same request elsewhere could succeed (drives failover). */
  readonly retryable: boolean;
  /**
   * Whether the same call may well succeed when made again shortly (an upstream's 429, 5xx or 529,
   * a connection failure, a deadline): the same model is retried, and a caller is told to retry.
   */
  readonly transient: boolean;
  /** How long the upstream asked to be left alone (`retry-after-ms` / `retry-after`), ms. */
  readonly retryAfterMs: number | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    type: GatewayErrorType,
    message: string,
    options: { code?: string; param?: string | null; retryable?: boolean; transient?: boolean; retryAfterMs?: number | undefined; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "GatewayError";
    this.status = status;
    this.type = type;
    this.code = options.code ?? type;
    this.param = options.param ?? null;
    this.retryable = options.retryable ?? false;
    this.transient = options.transient ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.headers = options.headers ?? {};
  }
}

interface KindSpec {
  readonly status: number;
  readonly type: GatewayErrorType;
  /** OpenAI-style `code` when it is not the type itself. */
  readonly code?: string;
  readonly retryable?: boolean;
  readonly transient?: boolean;
}

/**
 * Every failure the gateway answers with, by name: each fixes its status, type and code once, so
 * the same failure reads the same on every path. What the gateway finds wrong with an upstream's
 * answer (malformed, cut short, credentials refused) is `upstream_error`; what an upstream reports
 * itself (a 5xx, an error event) or a connection that fails is `api_error`.
 */
const KINDS = {
  InvalidRequest: { status: 400, type: "invalid_request_error" },
  PreviousResponseNotFound: { status: 400, type: "invalid_request_error", code: "previous_response_not_found" },
  /** No model of the tier can take this request (its size, tools, images, `n`): another try cannot help. */
  NoModelFits: { status: 400, type: "invalid_request_error", code: "no_model_available" },
  /** The upstream refused the request as invalid (its 400 or 422). */
  UpstreamRejected: { status: 400, type: "invalid_request_error" },
  ContentFiltered: { status: 400, type: "invalid_request_error" },
  Unauthenticated: { status: 401, type: "authentication_error" },
  Forbidden: { status: 403, type: "permission_error" },
  NotFound: { status: 404, type: "not_found_error" },
  ModelNotFound: { status: 404, type: "not_found_error", code: "model_not_found" },
  NoSuchEndpoint: { status: 404, type: "not_found_error", code: "not_found" },
  UpstreamNotFound: { status: 404, type: "not_found_error", retryable: true },
  MethodNotAllowed: { status: 405, type: "invalid_request_error", code: "method_not_allowed" },
  Conflict: { status: 409, type: "invalid_request_error", code: "conflict" },
  Gone: { status: 410, type: "invalid_request_error", code: "gone" },
  TooLarge: { status: 413, type: "request_too_large" },
  BadArchive: { status: 422, type: "invalid_request_error", code: "bad_archive" },
  /** The caller's own plan or key limit. */
  RateLimited: { status: 429, type: "rate_limit_error" },
  UpstreamRateLimited: { status: 429, type: "rate_limit_error", retryable: true, transient: true },
  ClientClosed: { status: 499, type: "api_error" },
  Internal: { status: 500, type: "api_error" },
  /** The upstream answered with a server error of its own. */
  UpstreamFailed: { status: 502, type: "api_error", retryable: true, transient: true },
  UpstreamUnreachable: { status: 502, type: "api_error", retryable: true, transient: true },
  UpstreamAuthRefused: { status: 502, type: "upstream_error", retryable: true },
  UpstreamMalformed: { status: 502, type: "upstream_error", retryable: true },
  UpstreamCut: { status: 502, type: "upstream_error", retryable: true },
  /** An upstream answer or event past the gateway's cap. */
  UpstreamTooLarge: { status: 502, type: "api_error" },
  /** A gateway store (the account database) is down: the caller may try again shortly. */
  StoreUnavailable: { status: 503, type: "api_error", retryable: true },
  /** Every model that fits is failing. */
  NoModelAvailable: { status: 503, type: "overloaded_error", code: "no_model_available", transient: true },
  ConversationModelUnavailable: { status: 503, type: "overloaded_error", code: "conversation_model_unavailable" },
  UpstreamTimeout: { status: 504, type: "timeout_error", retryable: true, transient: true },
  /** A stream that went silent past the idle limit. */
  UpstreamIdle: { status: 504, type: "timeout_error" },
  UpstreamOverloaded: { status: 529, type: "overloaded_error", retryable: true, transient: true },
} as const satisfies Record<string, KindSpec>;

export type ErrorKind = keyof typeof KINDS;

/** The status, type, code and flags each kind fixes. */
export const ERROR_KINDS: Readonly<Record<ErrorKind, KindSpec>> = KINDS;

export interface FailDetails {
  readonly param?: string | null;
  readonly headers?: Record<string, string>;
  readonly retryAfterMs?: number | undefined;
  /** Whether the same call may succeed again shortly, where the kind leaves it to what the upstream said. */
  readonly transient?: boolean;
}

/** The gateway's error of one kind. */
export function fail(kind: ErrorKind, message: string, details: FailDetails = {}): GatewayError {
  const spec: KindSpec = KINDS[kind];
  return new GatewayError(spec.status, spec.type, message, {
    ...(spec.code !== undefined ? { code: spec.code } : {}),
    param: details.param ?? null,
    retryable: spec.retryable ?? false,
    transient: details.transient ?? spec.transient ?? false,
    retryAfterMs: details.retryAfterMs,
    ...(details.headers ? { headers: details.headers } : {}),
  });
}

/**
 * The answer when no candidate answered: the last failure, told with `message` and `headers`,
 * and nothing left to retry here. An upstream's 429 is not the caller's limit: to the caller every
 * model is busy.
 */
export function exhausted(last: GatewayError, message: string, headers: Record<string, string>): GatewayError {
  const [status, type] = last.status === 429 ? [KINDS.UpstreamOverloaded.status, KINDS.UpstreamOverloaded.type] : [last.status, last.type];
  return new GatewayError(status, type, message, { code: last.code, transient: last.transient, headers });
}

const GATEWAY_ERROR_TYPES: ReadonlySet<string> = new Set<GatewayErrorType>([
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "rate_limit_error",
  "api_error",
  "upstream_error",
  "overloaded_error",
  "timeout_error",
]);

/**
 * A failure reported inside a stream or an answer (its type a plain string, as decoders read it
 * off the wire) as the gateway's error; a type the gateway does not know is `api_error`.
 * `retryable` where another model may do better (a failure before anything was sent).
 */
export function gatewayErrorOf(status: number, type: string, message: string, options: { readonly retryable?: boolean } = {}): GatewayError {
  return new GatewayError(status, GATEWAY_ERROR_TYPES.has(type) ? (type as GatewayErrorType) : "api_error", message, options);
}

export const invalidRequest = (message: string, param: string | null = null): GatewayError => fail("InvalidRequest", message, { param });

export const authenticationFailed = (): GatewayError => fail("Unauthenticated", "invalid or missing API key");

export const clientSuspended = (): GatewayError => fail("Forbidden", "client is suspended");

export const notFound = (message: string): GatewayError => fail("NotFound", message);
