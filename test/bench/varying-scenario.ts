import type { Scenario } from "../../src/bench/scenarios.ts";

/** A soak scenario against `url`: a JSON POST whose body has `marker` once, for the load generator to number. */
export const varyingScenario = (url: string, id: string, body: string, marker: string): Scenario => ({
  id,
  kind: "soak",
  bodyCase: "",
  passes: ["load"],
  warmupRequests: 0,
  format: "messages",
  mode: "json",
  target: "gateway",
  url,
  headers: { "content-type": "application/json" },
  body,
  varyMarker: marker,
});
