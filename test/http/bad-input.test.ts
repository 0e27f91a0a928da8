import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway({
    fileConfig: { ...(await import("../../src/config/default-config.ts")).DEFAULT_CONFIG, server: { bodyLimitBytes: 64 * 1024 } },
  });
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(() => gw.stop(), 30_000);

async function post(path: string, body: string | object, extra: Record<string, string> = {}) {
  const res = await fetch(gw.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, ...extra },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as Record<string, { type: string; message: string; param?: string }> };
}

const cases: Array<[string, string | object, number, string]> = [
  ["/v1/messages", "{not json", 400, "request body is not valid JSON"],
  ["/v1/messages", { model: "normal", messages: [] }, 400, "`max_tokens`: field required"],
  ["/v1/messages", { model: "normal", max_tokens: "many", messages: [] }, 400, "`max_tokens`: expected an integer >= 0"],
  ["/v1/messages", { model: "normal", max_tokens: 10 }, 400, "`messages`: field required"],
  ["/v1/messages", { max_tokens: 10, messages: [{ role: "user", content: 7 }] }, 400, "`messages[0].content`: expected a string or an array"],
  ["/v1/messages", "[1,2]", 400, "request body must be a JSON object"],
  ["/v1/messages", "", 400, "request body is required"],
  ["/v1/chat/completions", { model: "normal" }, 400, "`messages`: field required"],
  ["/v1/chat/completions", { model: 5, messages: [] }, 400, "`model`: expected a string"],
  ["/v1/chat/completions", { messages: [], stream: "yes" }, 400, "`stream`: expected a boolean or null"],
  ["/v1/responses", { model: "normal" }, 400, "`input`: field required"],
  ["/v1/responses", { input: "hi", max_output_tokens: 3 }, 400, "`max_output_tokens`: expected an integer >= 16 or null"],
  ["/v1/messages/count_tokens", { model: "normal" }, 400, "`messages`: field required"],
];

describe("bad input answers 400 in the called format's shape, naming the field", () => {
  for (const [path, body, status, message] of cases) {
    test(`${path} ${typeof body === "string" ? JSON.stringify(body) : JSON.stringify(body).slice(0, 60)} → ${message}`, async () => {
      const res = await post(path, body);
      expect(res.status).toBe(status);
      if (path.startsWith("/v1/messages")) {
        expect(res.json.type as unknown).toBe("error");
        expect(res.json.error).toEqual(expect.objectContaining({ type: "invalid_request_error", message }));
      } else {
        expect(res.json.error).toEqual(expect.objectContaining({ type: "invalid_request_error", message }));
      }
      expect(res.text).not.toContain("at ");
    });
  }
});

describe("size, paths and methods", () => {
  test("a body over the configured limit → 413 in the format's shape", async () => {
    const big = { model: "normal", input: "x".repeat(70 * 1024) };
    const res = await post("/v1/responses", big);
    expect(res.status).toBe(413);
    expect(res.json.error?.type).toBe("request_too_large");
    expect(res.json.error?.message).toContain("65536");
  });

  test("a body many times the limit still gets the format's 413, not a bare one", async () => {
    const res = await post("/v1/chat/completions", { model: "normal", messages: [{ role: "user", content: "x".repeat(3 * 1024 * 1024) }] });
    expect(res.status).toBe(413);
    expect(res.json.error?.type).toBe("request_too_large");
  });

  test("a chunked body over the limit is refused while streaming", async () => {
    const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${gw.url}/v1/messages`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("request_too_large");
  });

  test("unknown path → 404; a known path with the wrong method → 405 with allow", async () => {
    const missing = await fetch(`${gw.url}/v1/nothing`, { headers: { "x-api-key": key } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { type: string } }).error.type).toBe("not_found_error");
    const wrong = await fetch(`${gw.url}/v1/messages`, { headers: { "x-api-key": key } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    const body = (await wrong.json()) as { type: string; error: { type: string } };
    expect(body.type).toBe("error");
    const wrongModels = await fetch(`${gw.url}/v1/models`, { method: "DELETE", headers: { "x-api-key": key } });
    expect(wrongModels.status).toBe(405);
  });

  test("HEAD / and GET / answer 200 with the service name and version", async () => {
    const head = await fetch(`${gw.url}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    const get = await fetch(`${gw.url}/`);
    expect(get.status).toBe(200);
    const body = (await get.json()) as { name: string; version: string };
    expect(body.name).toBe("routelane");
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
  });
});
