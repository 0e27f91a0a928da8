import { luaLongString } from "./lua-long-string.ts";
import type { Scenario } from "./scenarios.ts";


/** The wrk script for one scenario: a fixed POST with its body and headers. */
export function buildWrkScript(scenario: Scenario): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${luaLongString(scenario.body)}`];
  for (const [name, value] of Object.entries(scenario.headers)) {
    // Spaces inside the brackets: `headers[[[` would lex as the start of a long string.
    lines.push(`wrk.headers[ ${luaLongString(name)} ] = ${luaLongString(value)}`);
  }
  return `${lines.join("\n")}\n`;
}
