/**
 * Re-records test/fixtures/messages/*.sse from the simulated upstream, one per body in
 * requests.json: `bun run test/wire/messages/record-fixtures.ts`.
 */
import { startSim } from "../../../src/sim/start-sim.ts";

const dir = `${import.meta.dir}/../../fixtures/messages`;

export async function recordStream(url: string, body: unknown): Promise<string> {
  const res = await fetch(`${url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return res.text();
}

export async function loadRequests(): Promise<Record<string, unknown>> {
  return (await Bun.file(`${dir}/requests.json`).json()) as Record<string, unknown>;
}

if (import.meta.main) {
  const sim = await startSim();
  for (const [name, body] of Object.entries(await loadRequests())) await Bun.write(`${dir}/${name}.sse`, await recordStream(sim.url, body));
  await sim.stop();
}
