/**
 * The Chat Completions requests whose simulated-upstream streams are recorded in
 * test/fixtures/chat/<name>.sse. Re-record with `bun test/wire/chat/record-fixtures.ts`.
 */
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city", "days"] },
    },
  },
  {
    type: "function",
    function: { name: "get_time", description: "Current time in a timezone", parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } },
  },
];

const usage = { stream: true, stream_options: { include_usage: true } };

export const FIXTURE_REQUESTS: Readonly<Record<string, Record<string, unknown>>> = {
  text: { model: "sim-normal", ...usage, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Explain the release notes [sim words=12]" }] },
  "parallel-tools": { model: "sim-normal", ...usage, tools, messages: [{ role: "user", content: "Weather and time please [sim tool=get_weather,get_time]" }] },
  "reasoning-usage": {
    model: "sim-smart",
    ...usage,
    reasoning_effort: "high",
    messages: [
      { role: "user", content: "Plan the migration [sim words=8]" },
      { role: "assistant", content: "Sure." },
      { role: "user", content: "Go on [sim words=6]" },
    ],
  },
  "no-usage": { model: "sim-fast", stream: true, messages: [{ role: "user", content: "hi [sim words=4]" }] },
  cut: { model: "sim-fast", ...usage, messages: [{ role: "user", content: "hi [sim words=10 cut=4]" }] },
};

/** POSTs one fixture request and returns the SSE text received, up to a connection reset. */
export async function fetchChatStream(baseUrl: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // The cut fault resets the connection; what arrived before it is the recording.
  }
  return text;
}
