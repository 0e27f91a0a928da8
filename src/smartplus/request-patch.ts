import type { Usage } from "../canonical/usage.ts";
import type { Effort } from "../canonical/effort.ts";
import { fail } from "../canonical/gateway-error.ts";
import type { ModelConfig } from "../config/schema.ts";
import { clampEffort } from "../canonical/clamp-effort.ts";
import { messagesApi } from "../wire/messages/api.ts";
import { wireApi } from "../wire/wire-apis.ts";
import { buildForwardHeaders } from "../upstream/passthrough/build-forward-headers.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import type { JsonObject } from "../canonical/json-object.ts";

/** A whole-repository answer at max effort takes minutes, far beyond a chat call's first-byte timeout. */
const PATCH_TIMEOUT_MS = 15 * 60_000;

/** Enough room for a large diff without asking for a model's whole output allowance. */
const MAX_PATCH_TOKENS = 64_000;

export interface PatchModel {
  readonly name: string;
  readonly model: ModelConfig;
  readonly provider: ResolvedProvider;
  readonly effort: Effort;
}

/** Output tokens asked for a patch answer. */
export const patchOutputTokens = (model: ModelConfig): number => Math.min(model.maxOutputTokens, MAX_PATCH_TOKENS);

/**
 * Asks the model for the patch: one user message, no stream, the model's first API, at the job's
 * effort (clamped to what the model supports). Written as a Messages body and translated through
 * the canonical model when the model speaks another API, like any cross-format request.
 */
export async function requestPatch(target: PatchModel, prompt: string, signal: AbortSignal): Promise<PatchAnswer> {
  const { model, provider } = target;
  const api = wireApi(model.apis[0]!);
  const messagesBody: JsonObject = { model: model.upstreamId, max_tokens: patchOutputTokens(model), messages: [{ role: "user", content: prompt }] };
  const body =
    api === messagesApi
      ? messagesBody
      : api.upstream.encodeRequest(messagesApi.client.decodeRequest(messagesBody).value, { upstreamModelId: model.upstreamId, model }).value;
  api.setEffort(body, clampEffort(target.effort, model.efforts), model);
  const response = await fetch(provider.baseUrl + api.path, {
    method: "POST",
    headers: buildForwardHeaders(api, new Headers(), provider, false),
    body: JSON.stringify(body),
    signal: AbortSignal.any([signal, AbortSignal.timeout(PATCH_TIMEOUT_MS)]),
  });
  const text = await response.text();
  if (!response.ok) throw fail("UpstreamFailed", `the model answered ${response.status}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw fail("UpstreamMalformed", "the model's answer was not JSON");
  }
  const decoded = api.upstream.decodeResponse(json).value;
  return { text: decoded.content.map((part) => (part.type === "text" ? part.text : "")).join(""), usage: decoded.usage };
}

/** The model's answer and what it cost (billed to the job's account). */
export interface PatchAnswer {
  readonly text: string;
  readonly usage: Usage;
}

/** The diff in a model's answer: a fenced `diff`/`patch` block, else the text from the first `diff --git` or `--- `. */
export function extractDiff(answer: string): { diff: string; rest: string } | null {
  const fenced = /```(?:diff|patch)?[^\n]*\n([\s\S]*?)```/.exec(answer);
  if (fenced && /^(diff --git |--- )/m.test(fenced[1]!)) {
    const rest = (answer.slice(0, fenced.index) + answer.slice(fenced.index + fenced[0].length)).trim();
    return { diff: fenced[1]!.endsWith("\n") ? fenced[1]! : `${fenced[1]}\n`, rest };
  }
  const start = /^(diff --git |--- )/m.exec(answer);
  if (!start) return null;
  const diff = answer.slice(start.index);
  return { diff: diff.endsWith("\n") ? diff : `${diff}\n`, rest: answer.slice(0, start.index).trim() };
}
