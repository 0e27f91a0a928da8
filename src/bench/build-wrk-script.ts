import { luaLongString } from "./lua-long-string.ts";
import { varyingBody, type Scenario } from "./scenarios.ts";

/**
 * The wrk script for one scenario: a fixed POST with its body and headers. A scenario with a
 * `varyMarker` gets a body of its own each request, the marker replaced by `run` (a text of the
 * caller's, new for each run of wrk, so no run repeats another's bodies), the wrk thread's number
 * and its count of requests (wrk sets the Content-Length of each).
 */
export function buildWrkScript(scenario: Scenario, run = ""): string {
  const lines = ['wrk.method = "POST"'];
  const varying = varyingBody(scenario);
  if (varying === undefined) {
    lines.push(`wrk.body = ${luaLongString(scenario.body)}`);
  } else {
    lines.push(
      `local head = ${luaLongString(varying.head + run)}`,
      `local tail = ${luaLongString(varying.tail)}`,
      "local threads = 0",
      // setup runs in the main state, once a thread; each thread's own state then has its number.
      'function setup(thread) threads = threads + 1; thread:set("thread_number", threads) end',
      "local sent = 0",
      'function request() sent = sent + 1; return wrk.format(nil, nil, nil, head .. thread_number .. "-" .. sent .. tail) end',
    );
  }
  for (const [name, value] of Object.entries(scenario.headers)) {
    // Spaces inside the brackets: `headers[[[` would lex as the start of a long string.
    lines.push(`wrk.headers[ ${luaLongString(name)} ] = ${luaLongString(value)}`);
  }
  return `${lines.join("\n")}\n`;
}
