import { buildToolArgs } from "./build-tool-args.ts";
import { findShellCall } from "./find-shell-call.ts";
import type { SimDirective, SimInput, SimTool, SimToolCall } from "./types.ts";

function mentions(text: string, name: string): boolean {
  let at = text.indexOf(name);
  while (at >= 0) {
    const before = text[at - 1];
    const after = text[at + name.length];
    if ((before === undefined || !/[\w-]/.test(before)) && (after === undefined || !/[\w-]/.test(after))) return true;
    at = text.indexOf(name, at + 1);
  }
  return false;
}

function callFor(name: string, tools: readonly SimTool[], args: Record<string, unknown> | undefined): SimToolCall {
  const tool = tools.find((t) => t.name === name);
  return { name, arguments: JSON.stringify(args ?? buildToolArgs(tool?.schema)) };
}

/**
 * Which tools the sim calls. A tool result as the newest message never leads to a call (so an
 * agent loop ends); a directive names tools explicitly (parallel when several); otherwise a
 * forcing tool_choice, a shell tool asked to run a back-ticked command, or a tool named as a
 * whole word in the user text. `tool_choice: none` only yields to a directive.
 */
export function chooseToolCalls(input: SimInput, directive: SimDirective, userText: string): SimToolCall[] {
  if (input.toolResult !== null) return [];
  if (directive.tools && directive.tools.length > 0) {
    const names = input.parallelTools ? directive.tools : directive.tools.slice(0, 1);
    return names.map((name) => callFor(name, input.tools, directive.args));
  }
  const choice = input.toolChoice;
  if (choice.kind === "none" || input.tools.length === 0) return [];
  if (choice.kind === "tool") return [callFor(choice.name, input.tools, directive.args)];
  const shell = findShellCall(userText, input.tools);
  if (shell) return [shell];
  const named = input.tools.find((tool) => mentions(userText, tool.name));
  if (named) return [callFor(named.name, input.tools, directive.args)];
  const first = input.tools[0];
  if (choice.kind === "any" && first) return [callFor(first.name, input.tools, directive.args)];
  return [];
}
