import { applyLeadingFault } from "./apply-leading-fault.ts";
import { makeId } from "./make-id.ts";
import { planAnswer } from "./plan-answer.ts";
import { readControls } from "./read-controls.ts";
import { spendFaultTimes } from "./spend-fault-times.ts";
import type { ReadResult, SimAnswer, SimDirective, SimInput, SimRequest } from "./types.ts";

/** Renders an error in the called API's shape; `param`/`code` are used where the shape has them. */
export type RenderSimError = (status: number, message: string | undefined, requestId: string, detail?: { param: string | null; code: string | null }) => Response;

export interface PreparedAnswer<T extends SimInput> {
  readonly requestId: string;
  readonly input: T;
  readonly fault: SimDirective;
  readonly answer: SimAnswer;
}

/**
 * What every create endpoint does before shaping its answer: refuse bad JSON and bad fields in the
 * API's own error shape, gather the fault controls, play a leading fault (status, delay), and plan
 * the deterministic answer. Returns the error Response, or what the endpoint needs to answer.
 */
export async function prepareAnswer<T extends SimInput>(
  req: SimRequest,
  options: {
    readonly invalidJsonMessage: string;
    readonly read: (body: unknown, seed: bigint) => ReadResult<T>;
    readonly renderError: RenderSimError;
    /** A further check of the read request (e.g. thinking signatures); a message means 400. */
    readonly check?: (input: T) => string | null | undefined;
  },
): Promise<Response | PreparedAnswer<T>> {
  const requestId = makeId("req_sim", req.seed);
  const { renderError } = options;
  if (req.invalidJson) return renderError(400, options.invalidJsonMessage, requestId);
  const read = options.read(req.body, req.seed);
  if (!read.ok) return renderError(400, read.message, requestId, { param: read.param ?? null, code: read.code ?? null });
  const input = read.value;
  const refusal = options.check?.(input);
  if (refusal) return renderError(400, refusal, requestId);
  const controls = readControls(req, input.model, input.userText);
  const fault = spendFaultTimes(controls.fault, req.faultCounts, `${input.model}:${req.seed}`);
  const text = controls.text;
  const early = await applyLeadingFault(fault, req.signal, (status, message) => renderError(status, message, requestId));
  if (early) return early;
  return { requestId, input, fault, answer: planAnswer(input, fault, text) };
}
