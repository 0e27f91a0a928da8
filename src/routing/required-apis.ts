import type { CanonicalRequest } from "../canonical/request.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { wireApi } from "../wire/wire-apis.ts";

/**
 * The upstream APIs a request can only be answered through, or undefined when any will do. Chat
 * `n` > 1 goes only to models that take it as Chat, passed through: a translation would answer
 * with one choice.
 */
export function requiredApis(format: WireFormat, request: CanonicalRequest): readonly WireFormat[] | undefined {
  return wireApi(format).needsOwnApi(request.extra) ? [format] : undefined;
}
