import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { PUBLIC_ROUTES } from "../../src/http/public-routes.ts";
import { adminRoutes } from "../../src/http/routes/admin.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref: string } }> }; responses: Record<string, { headers?: Record<string, unknown> }>; security?: unknown[]; parameters?: Array<{ name: string }> }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }>; securitySchemes: Record<string, unknown> };
}

let gw: TestGateway;
let doc: Document;
beforeAll(async () => {
  gw = await startTestGateway();
  const res = await fetch(`${gw.url}/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Document;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(() => gw.stop(), DATABASE_HOOK_TIMEOUT_MS);

/** An OpenAPI path for one of the app's route patterns (`{id}` for a path segment). */
const pathOf = (pattern: RegExp): string =>
  pattern.source.replace(/^\^/, "").replace(/\\\/\?\$$|\$$/, "").replaceAll("\\/", "/").replaceAll("\\.", ".").replace("[^/]+", "{id}").replace(/^$/, "/") || "/";

describe("GET /openapi.json", () => {
  test("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2).slice(0, 3000));
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("the validator does reject a broken document", async () => {
    const broken = { ...doc, paths: { "/x": { get: { responses: { "200": {} } } } } };
    const result = await new Validator().validate(broken as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.valid).toBe(false);
  });

  test("covers every public route with its methods", () => {
    // Path parameters are compared by position, not by name (`{id}`, `{job}`).
    const shape = (path: string): string => path.replace(/\{[^}]+\}/g, "{}");
    for (const [pattern, methods] of PUBLIC_ROUTES) {
      const path = Object.keys(doc.paths).find((p) => shape(p) === shape(pathOf(pattern)));
      expect(path).toBeDefined();
      for (const method of methods) expect(Object.keys(doc.paths[path!]!)).toContain(method.toLowerCase());
    }
  });

  test.each([
    ["/v1/messages", "MessagesRequest", ["max_tokens", "messages"]],
    ["/v1/messages/count_tokens", "CountTokensRequest", ["messages"]],
    ["/v1/chat/completions", "ChatRequest", ["messages", "reasoning_effort"]],
    ["/v1/responses", "ResponsesRequest", ["input", "reasoning"]],
  ])("%s has its request body from the format schema, both auth headers, errors", (path, schema, fields) => {
    const operation = doc.paths[path]!.post!;
    expect(operation.requestBody!.content["application/json"]!.schema.$ref).toBe(`#/components/schemas/${schema}`);
    for (const field of fields) expect(Object.keys(doc.components.schemas[schema]!.properties!)).toContain(field);
    expect(operation.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    for (const status of ["400", "401", "403", "429", "502"]) expect(Object.keys(operation.responses)).toContain(status);
  });

  test("chat answers carry the x-router-* headers", () => {
    for (const path of ["/v1/messages", "/v1/chat/completions", "/v1/responses"]) {
      expect(Object.keys(doc.paths[path]!.post!.responses["200"]!.headers!).sort()).toEqual(
        ["x-router-effort", "x-router-model", "x-router-request-id", "x-router-source", "x-router-tier"],
      );
    }
  });
});

describe("GET /docs", () => {
  test("an HTML page listing the endpoints, loading nothing from elsewhere", async () => {
    const res = await fetch(`${gw.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    const html = await res.text();
    for (const path of ["/v1/messages", "/v1/chat/completions", "/v1/responses", "/readyz", "/openapi.json"]) expect(html).toContain(path);
    expect(html).not.toMatch(/<script|src="http/);
  });
});

describe("the admin API in /openapi.json", () => {
  test("every admin route the gateway serves is documented, with the admin security", async () => {
    const app = adminRoutes({ database: gw.gateway.database, adminToken: "a-token-of-sixteen-chars", accounts: gw.store, routing: () => { throw new Error("not called"); } });
    const served = (app.routes as Array<{ method: string; path: string }>).filter((r) => r.method !== "ALL" && r.path.startsWith("/admin"));
    expect(served.length).toBeGreaterThan(10);
    const shape = (path: string): string => path.replace(/\{[^}]+\}|:[^/]+/g, "{}");
    const documented = new Map(Object.keys(doc.paths).map((p) => [shape(p), p]));
    for (const route of [...served, { method: "POST", path: "/admin/config/reload" }]) {
      const path = documented.get(shape(route.path));
      expect(path === undefined ? `${route.method} ${route.path} missing` : path).toBe(path!);
      const operation = doc.paths[path!]![route.method.toLowerCase()];
      expect(operation === undefined ? `${route.method} ${route.path} missing` : "ok").toBe("ok");
      expect(operation!.security).toEqual([{ adminBearer: [] }, { consoleSession: [] }]);
      expect(Object.keys(operation!.responses)).toContain("401");
    }
  });
});
