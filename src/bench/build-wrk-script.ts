import type { Scenario } from "./scenarios.ts";

/**
 * A Lua long string that cannot be closed early by the text: `[==[ … ]==]` with enough `=` that
 * the matching closer never appears inside. No escaping needed, unlike a quoted Lua string
 * (which has no \uXXXX escape for what JSON.stringify would produce).
 */
export function luaLongString(text: string): string {
  let level = 0;
  while (text.includes(`]${"=".repeat(level)}]`)) level++;
  const eq = "=".repeat(level);
  // A newline right after the opener is dropped by Lua; add one so a leading newline survives.
  return `[${eq}[\n${text}]${eq}]`;
}

/** The wrk script for one scenario: a fixed POST with its body and headers. */
export function buildWrkScript(scenario: Scenario): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${luaLongString(scenario.body)}`];
  for (const [name, value] of Object.entries(scenario.headers)) {
    // Spaces inside the brackets: `headers[[[` would lex as the start of a long string.
    lines.push(`wrk.headers[ ${luaLongString(name)} ] = ${luaLongString(value)}`);
  }
  return `${lines.join("\n")}\n`;
}
