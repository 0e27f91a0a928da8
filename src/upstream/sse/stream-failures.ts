import { GatewayError, fail } from "../../canonical/gateway-error.ts";

/** Why the gateway ends a committed stream with the format's error event: one wording for both paths. */
export const streamFailures = {
  malformed: (): GatewayError => new GatewayError(502, "api_error", "upstream sent a malformed stream event"),
  incomplete: (): GatewayError => new GatewayError(502, "api_error", "upstream stream ended before it was complete"),
  broken: (code: string): GatewayError => new GatewayError(502, "api_error", `upstream connection broke mid-stream (${code})`),
  idle: (idleMs: number): GatewayError => fail("UpstreamIdle", `upstream sent nothing for ${formatSeconds(idleMs)} s`),
  eventTooLarge: (maxBytes: number): GatewayError => fail("UpstreamTooLarge", `upstream sent a stream event larger than ${maxBytes} bytes`),
};

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? String(ms / 1000) : (ms / 1000).toFixed(1);
}
