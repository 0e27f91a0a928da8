import { parseDirectives } from "./parse-directives.ts";
import { parseFaultHeader } from "./parse-fault-header.ts";
import { resolveFault } from "./resolve-fault.ts";
import { stripAgentContext } from "./strip-agent-context.ts";
import type { SimDirective, SimRequest } from "./types.ts";

export interface SimControls {
  /** Directive ∪ header ∪ per-model fault, most specific winning. */
  fault: SimDirective;
  /** The user text with directives and agent context removed: what the answer may quote. */
  text: string;
}

/** Gathers the request's controls from the three sources: prompt directive, `x-sim-fault`, per-model config. */
export function readControls(req: SimRequest, model: string, userText: string): SimControls {
  const { directive, text } = parseDirectives(userText, model);
  const header = parseFaultHeader(req.headers.get("x-sim-fault"), model);
  return { fault: resolveFault(directive, header, req.faults[model]), text: stripAgentContext(text) };
}
