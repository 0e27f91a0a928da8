import { type GatewayError, fail } from "../../canonical/gateway-error.ts";

/**
 * Why the gateway ends a committed stream with the format's error event: one wording and one kind
 * for both paths (the decoders of the translated path name the same failures with the same kinds).
 * A connection that breaks is a stream cut short, as is a body that ends early: which of the two
 * a client sees of an upstream that went away is a matter of timing.
 */
export const streamFailures = {
  malformed: (): GatewayError => fail("UpstreamMalformed", "upstream sent a malformed stream event"),
  incomplete: (): GatewayError => fail("UpstreamCut", "upstream stream ended before it was complete"),
  broken: (code: string): GatewayError => fail("UpstreamCut", `upstream connection broke mid-stream (${code})`),
  idle: (idleMs: number): GatewayError => fail("UpstreamIdle", `upstream sent nothing for ${formatSeconds(idleMs)} s`),
  eventTooLarge: (maxBytes: number): GatewayError => fail("UpstreamTooLarge", `upstream sent a stream event larger than ${maxBytes} bytes`),
};

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? String(ms / 1000) : (ms / 1000).toFixed(1);
}
