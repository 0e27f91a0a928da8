import type { GatewayError } from "../canonical/gateway-error.ts";

export interface AdminErrorOptions {
  /** Defaults to the type. */
  readonly code?: string;
  /** The request field at fault, when there is one. */
  readonly param?: string | null;
  readonly headers?: Record<string, string>;
}

/**
 * The one error body of the operator routes (admin API, config reload, metrics, console): the
 * OpenAI shape `{error: {message, type, param, code}}`, whose `code` is the type unless said.
 */
export function adminError(status: number, type: string, message: string, options: AdminErrorOptions = {}): Response {
  return Response.json(
    { error: { message, type, param: options.param ?? null, code: options.code ?? type } },
    { status, headers: options.headers },
  );
}

/** A GatewayError (a rule of the account store, the explain decoders) in the operator routes' shape. */
export function adminErrorOf(error: GatewayError): Response {
  return adminError(error.status, error.type, error.message, { code: error.code, param: error.param, headers: error.headers });
}
