import { newStreamCollector, sentTexts, type StreamCollector } from "../../cache/collect-stream-response.ts";
import { estimateTextTokens } from "../../canonical/estimate-text-tokens.ts";
import { createTextTally, type TextTally } from "../sse/create-text-tally.ts";

/**
 * A stream's collector for the response cache, and the tally of the text it sends read from what
 * the collector keeps. The collector holds the answer's text until the end anyway, so nothing is
 * counted as it goes: the count walks the text only when the tokens are asked for, which a stream
 * whose upstream reported its usage never does. Counted as it went, with a copy of the text of its
 * own, the bench's 2,000-event translated answer cost 7 % more CPU a request (`bun run bench
 * --sections long-stream --baseline`, 5 rounds: 7,829 against 7,286 µs). Once the collector lets
 * the text go (the answer outgrew what it keeps), what it held is counted then and the rest as it
 * comes, as without it. `add` must follow `collectStreamResponse` for each event, so that the piece
 * that outgrew the collector is counted.
 */
export function createCollectedTally(): { readonly collector: StreamCollector; readonly tally: TextTally } {
  let counting: TextTally | undefined;
  const collector = newStreamCollector((texts) => {
    counting = createTextTally();
    for (const text of texts) counting.add(text);
  });
  const tally: TextTally = {
    add(text) {
      counting?.add(text);
    },
    tokens() {
      if (counting) return counting.tokens();
      let tokens = 0;
      for (const text of sentTexts(collector)) tokens += estimateTextTokens(text);
      return tokens;
    },
  };
  return { collector, tally };
}
