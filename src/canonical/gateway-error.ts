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
 * A failure reported inside a stream (its type a plain string, as decoders read it off the wire)
 * as the gateway's error; a type the gateway does not know is `api_error`.
 */
export function gatewayErrorOf(status: number, type: string, message: string): GatewayError {
  return new GatewayError(status, GATEWAY_ERROR_TYPES.has(type) ? (type as GatewayErrorType) : "api_error", message);
}

export const invalidRequest = (message: string, param: string | null = null): GatewayError =>
  new GatewayError(400, "invalid_request_error", message, { param });

export const authenticationFailed = (): GatewayError =>
  new GatewayError(401, "authentication_error", "invalid or missing API key");

export const clientSuspended = (): GatewayError => new GatewayError(403, "permission_error", "client is suspended");

export const notFound = (message: string): GatewayError => new GatewayError(404, "not_found_error", message);
