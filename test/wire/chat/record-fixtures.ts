import { startSim } from "../../../src/sim/start-sim.ts";
import { FIXTURE_REQUESTS, fetchChatStream } from "./fixture-requests.ts";

// Records the simulated upstream's Chat streams used by decode-stream.test.ts.
const sim = await startSim();
try {
  for (const [name, body] of Object.entries(FIXTURE_REQUESTS)) {
    await Bun.write(new URL(`../../fixtures/chat/${name}.sse`, import.meta.url), await fetchChatStream(sim.url, body));
  }
} finally {
  await sim.stop();
}
