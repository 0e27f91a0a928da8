import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { SimServer } from "../../src/sim/start-sim.ts";

/** SDK clients pointed at a running sim; no retries so fault tests see the first answer. */
export function clientsFor(sim: SimServer): { anthropic: Anthropic; openai: OpenAI } {
  return {
    anthropic: new Anthropic({ baseURL: sim.url, apiKey: "x", maxRetries: 0 }),
    openai: new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "x", maxRetries: 0 }),
  };
}

export async function postJson(
  sim: SimServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: unknown; text: string }> {
  const res = await fetch(`${sim.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Splits an SSE body into `{event, data}` records (data left as text). */
export function parseSse(text: string): { event: string | null; data: string }[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      let event: string | null = null;
      let data = "";
      for (const line of frame.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      return { event, data };
    });
}

export const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: {
    type: "object" as const,
    properties: { city: { type: "string" }, days: { type: "integer" }, metric: { type: "boolean" }, note: { type: "string" } },
    required: ["city", "days", "metric"],
  },
};

export const timeTool = {
  name: "get_time",
  description: "Current time in a timezone",
  input_schema: { type: "object" as const, properties: { zone: { type: "string" }, verbose: { type: "boolean" } } },
};

/** The error a promise rejects with, or null; works with the SDKs' APIPromise subclasses. */
export async function rejectionOf(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
    return null;
  } catch (err) {
    return err;
  }
}
