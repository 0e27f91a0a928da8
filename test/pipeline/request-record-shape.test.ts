import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import type { RequestRecord } from "../../src/canonical/request-record.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Every finished request reaches the observers (request log, metrics, usage) as a record with
 * every member, in one order, whichever path served it: the observers' compiled reads then see one
 * shape, not one per path (see trackRequest).
 */

const MEMBERS: readonly (keyof RequestRecord)[] = [
  "requestId",
  "startedAt",
  "endpoint",
  "stream",
  "accountId",
  "keyId",
  "plan",
  "tier",
  "model",
  "effort",
  "source",
  "taskClass",
  "status",
  "errorType",
  "streamError",
  "clientAborted",
  "latencyMs",
  "ttfbMs",
  "usage",
  "costUsd",
  "limitsCharged",
  "cacheHit",
  "attempts",
  "warnings",
];

let gw: TestGateway;
let key: string;
const records: RequestRecord[] = [];
beforeAll(async () => {
  // The built-in config: the response cache on, `normal` on a Messages model, `fast` on a Chat one.
  gw = await startTestGateway();
  gw.gateway.observers.push((record) => void records.push(record));
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 30_000);

test("a JSON answer, a cache hit, same-format and translated streams, a Chat answer and a refused key are reported with the same members in the same order", async () => {
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  const ask = (model: string, text: string) => ({ model, max_tokens: 32, messages: [{ role: "user" as const, content: text }] });
  await anthropic.messages.create(ask("normal", "record shape: a JSON answer"));
  await anthropic.messages.create(ask("normal", "record shape: a JSON answer"));
  await anthropic.messages.stream(ask("normal", "record shape: a same-format stream")).finalMessage();
  await anthropic.messages.stream(ask("fast", "record shape: a translated stream")).finalMessage();
  await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions.create({
    model: "fast",
    messages: [{ role: "user", content: "record shape: a Chat answer" }],
  });
  const refused = new Anthropic({ baseURL: gw.url, apiKey: "rl_not_a_key", maxRetries: 0 });
  const error = await refused.messages.create(ask("normal", "record shape: refused")).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(Anthropic.AuthenticationError);

  // Each path was taken: the records differ in what they hold.
  expect(records.map((r) => [r.endpoint, r.stream, r.status, r.cacheHit, r.accountId !== undefined])).toEqual([
    ["messages", false, 200, false, true],
    ["messages", false, 200, true, true],
    ["messages", true, 200, false, true],
    ["messages", true, 200, false, true],
    ["chat", false, 200, false, true],
    ["messages", false, 401, false, false],
  ]);
  for (const record of records) expect(Object.keys(record)).toEqual([...MEMBERS]);
});
