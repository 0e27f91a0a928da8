import type { ModelConfig } from "../../../src/config/schema.ts";
import type { UpstreamRequestContext } from "../../../src/wire/upstream-adapter.ts";

export const MODEL: ModelConfig = {
  provider: "sim",
  upstreamId: "sim-normal",
  apis: ["messages", "chat", "responses"],
  contextWindow: 200_000,
  maxOutputTokens: 64_000,
  vision: true,
  tools: true,
  efforts: ["off", "low", "medium", "high", "max"],
  thinking: "adaptive",
  prices: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
};

export const CTX: UpstreamRequestContext = { upstreamModelId: "sim-normal", model: MODEL };
