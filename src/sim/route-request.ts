import { anthropicError } from "./anthropic-error.ts";
import { handleChat } from "./chat/handle-chat.ts";
import { hashSeed } from "./hash-seed.ts";
import { handleModels } from "./handle-models.ts";
import { makeId } from "./make-id.ts";
import { handleCountTokens } from "./messages/handle-count-tokens.ts";
import { handleMessages } from "./messages/handle-messages.ts";
import { openaiError } from "./openai-error.ts";
import { handleInputTokens } from "./responses/handle-input-tokens.ts";
import { handleResponses } from "./responses/handle-responses.ts";
import type { Fault } from "../config/schema.ts";
import type { SimRequest } from "./types.ts";

export interface SimReceived {
  method: string;
  /** Path with query string. */
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface SimContext {
  faults: Readonly<Record<string, Fault>>;
  /** Faults with `times` played so far (see SimRequest). */
  faultCounts: Map<string, number>;
  /** Where received requests go; null when not recording. */
  received: SimReceived[] | null;
  modelIds: readonly string[];
}

type Shape = "anthropic" | "openai";

interface Route {
  shape: Shape;
  handle: (req: SimRequest) => Response | Promise<Response>;
}

const POST_ROUTES: Record<string, Route> = {
  "/v1/messages": { shape: "anthropic", handle: handleMessages },
  "/v1/messages/count_tokens": { shape: "anthropic", handle: handleCountTokens },
  "/v1/chat/completions": { shape: "openai", handle: handleChat },
  "/v1/responses": { shape: "openai", handle: handleResponses },
  "/v1/responses/input_tokens": { shape: "openai", handle: handleInputTokens },
};

const renderError = (shape: Shape, status: number, message: string, requestId: string): Response =>
  shape === "anthropic" ? anthropicError(status, message, requestId) : openaiError(status, message, requestId);

/** Path and path-with-query of a request URL, without building a URL object on the hot path. */
function splitUrl(url: string): { path: string; full: string } {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return { path: "/", full: "/" };
  const full = url.slice(start);
  const query = full.indexOf("?");
  let path = query < 0 ? full : full.slice(0, query);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return { path, full };
}

function parseBody(raw: string): { body: unknown; invalidJson: boolean } {
  try {
    return { body: JSON.parse(raw), invalidJson: false };
  } catch {
    return { body: undefined, invalidJson: true };
  }
}

/** The sim's whole HTTP surface: routes by path, records when asked, and never lets a handler crash. */
export async function routeRequest(request: Request, ctx: SimContext): Promise<Response> {
  const { path, full } = splitUrl(request.url);
  const route = POST_ROUTES[path];
  if (path === "/v1/models") {
    if (request.method === "GET" || request.method === "HEAD") return handleModels(ctx.modelIds);
    return openaiError(405, `Method ${request.method} not allowed for /v1/models.`, "req_sim", { code: "method_not_allowed" });
  }
  if (!route) return openaiError(404, `Unknown request URL: ${request.method} ${path}.`, "req_sim", { code: "unknown_url" });
  if (request.method !== "POST") {
    return renderError(route.shape, 405, `Method ${request.method} not allowed for ${path}; use POST.`, "req_sim");
  }
  let raw = "";
  try {
    raw = await request.text();
  } catch {
    return renderError(route.shape, 400, "Could not read the request body.", "req_sim");
  }
  const { body, invalidJson } = parseBody(raw);
  if (ctx.received) {
    ctx.received.push({ method: request.method, path: full, headers: Object.fromEntries(request.headers), body: invalidJson ? raw : body });
  }
  const seed = hashSeed(raw);
  try {
    return await route.handle({ body, invalidJson, raw, seed, headers: request.headers, signal: request.signal, faults: ctx.faults, faultCounts: ctx.faultCounts });
  } catch (err) {
    const message = err instanceof Error ? `Simulated upstream failed: ${err.message}` : "Simulated upstream failed.";
    return renderError(route.shape, 500, message, makeId("req_sim", seed));
  }
}
