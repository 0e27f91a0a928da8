import type { Principal } from "../accounts/principal.ts";
import { EFFORTS, type Effort } from "../canonical/effort.ts";
import { fail } from "../canonical/gateway-error.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import { waitFor } from "../canonical/wait-for.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { Config } from "../config/schema.ts";
import { wireApi } from "../wire/wire-apis.ts";
import { clampEffort } from "../canonical/clamp-effort.ts";
import { conversationKey, responseConversationKey } from "../routing/conversation-key.ts";
import { readSessionId } from "../routing/read-session-id.ts";
import { buildApplyCommand, buildPackCommand, publicBaseUrl } from "./build-commands.ts";
import {
  composeAwaitingText,
  composeFailedText,
  composeNoTaskText,
  composePhaseLine,
  composeReadyText,
  composeStartText,
  composeStillWorkingText,
} from "./compose-turn-text.ts";
import { isFinal, type Job, type JobStore } from "./create-job-store.ts";
import { encodeTextResponse, encodeTextStream } from "./encode-text-answer.ts";

export interface TurnInput {
  readonly format: WireFormat;
  readonly request: Request;
  /** The checked client body. */
  readonly body: Record<string, unknown>;
  readonly principal: Principal;
  readonly requestId: string;
  /** Headers the pipeline already decided (limits); the turn adds its own. */
  readonly headers: Record<string, string>;
  /**
   * Called once just before the answer's last bytes go out (a stream's terminator, or the whole
   * body), and waited for: what the turn holds (its concurrency slot) is free by then.
   */
  readonly beforeLastBytes?: () => void | Promise<void>;
  /** Called once when the answer has been sent (or the client left). */
  readonly onEnd?: () => void;
}

export interface TurnDeps {
  readonly store: JobStore;
  config(): Config;
  /** How often a waiting turn reads the job again, ms. */
  readonly pollMs: number;
}

const NEW_JOB = /^\s*new job\b[\s:,.-]*/i;

/** Context blocks coding agents put into the user's turn (Claude Code, Codex): not part of the task. */
const AGENT_CONTEXT = /<(system-reminder|environment_context|user_instructions)>[\s\S]*?<\/\1>/g;

/** Text of the newest user message, without agent context blocks (what a new job is asked to do). */
function newestUserText(request: CanonicalRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== "user") continue;
    const text = message.content.flatMap((part) => (part.type === "text" ? [part.text.replace(AGENT_CONTEXT, "")] : [])).join("\n").trim();
    if (text !== "") return text;
  }
  return "";
}

/** The tier's model and the effort a patch is asked at: the tier's default, at least high. */
export function patchModelOf(config: Config): { name: string; effort: Effort } {
  const tier = config.tiers["smart-plus"];
  const name = tier.models[0]!;
  const wanted: Effort = EFFORTS.indexOf(tier.defaultEffort) >= EFFORTS.indexOf("high") ? tier.defaultEffort : "high";
  const model = config.models[name];
  return { name, effort: model ? clampEffort(wanted, model.efforts) : wanted };
}

/**
 * The text of a turn, piece by piece: fixed text for a new or waiting job, and for a queued or
 * running one each phase as it changes, until the job is final or `turnWaitMs` has passed.
 */
async function* turnPieces(deps: TurnDeps, start: Job, baseUrl: string, signal: AbortSignal, isNew: boolean): AsyncGenerator<string> {
  const settings = deps.config().smartPlus;
  let job = start;
  if (isNew || job.state === "awaiting_upload") {
    const pack = buildPackCommand(baseUrl, job.id, await deps.store.issueToken(job.id, settings.tokenTtlMs));
    yield isNew ? composeStartText(job.id, pack, settings.tokenTtlMs) : composeAwaitingText(job.id, pack);
    return;
  }
  const deadline = Date.now() + settings.turnWaitMs;
  let shown = "";
  while (!isFinal(job)) {
    const line = composePhaseLine(job);
    if (line !== shown) {
      shown = line;
      yield line;
    }
    if (Date.now() >= deadline || signal.aborted) {
      yield composeStillWorkingText();
      return;
    }
    await waitFor(deps.pollMs, signal);
    job = (await deps.store.get(job.id)) ?? job;
  }
  if (shown !== "") yield "\n";
  if (job.state === "ready") yield composeReadyText(job, buildApplyCommand(baseUrl, job.id, await deps.store.issueToken(job.id, settings.tokenTtlMs)));
  else yield composeFailedText(job);
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

async function collect(pieces: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const piece of pieces) text += piece;
  return text;
}

/**
 * A `smart-plus` turn: finds the conversation's job (or starts one with the newest user text as
 * its task; an expired job, or "new job …" after a final one, starts afresh) and answers in the
 * caller's format with the job's news as ordinary text, streamed when the request streams.
 */
export async function handleTurn(deps: TurnDeps, input: TurnInput): Promise<Response> {
  const { format, principal, request } = input;
  const api = wireApi(format);
  const config = deps.config();
  const baseUrl = publicBaseUrl(request, { publicUrl: config.smartPlus.publicUrl, trustProxy: config.trustProxy });
  if (baseUrl === null) throw fail("InvalidRequest", "the Host header is not a host name (set smartPlus.publicUrl to give the address the commands use)");
  const canonical = api.client.decodeRequest(input.body).value;
  const key = conversationKey(principal.accountId, "smart-plus", canonical, readSessionId(request.headers, canonical));
  const task = newestUserText(canonical);
  const { name: modelName, effort } = patchModelOf(config);
  let job = await deps.store.forConversation(key, principal.accountId);
  const restart = job !== null && isFinal(job) && NEW_JOB.test(task);
  let pieces: AsyncIterable<string>;
  if (job === null || job.state === "expired" || restart) {
    const jobTask = restart ? task.replace(NEW_JOB, "").trim() || job!.task : task;
    if (jobTask === "") pieces = once(composeNoTaskText());
    else {
      job = await deps.store.create({ accountId: principal.accountId, keyId: principal.keyId, conversationKey: key, task: jobTask, model: modelName, effort, ttlMs: config.smartPlus.jobTtlMs });
      pieces = turnPieces(deps, job, baseUrl, request.signal, true);
    }
  } else pieces = turnPieces(deps, job, baseUrl, request.signal, false);

  const id = `${api.answerIdPrefix}sp${input.requestId}`;
  // A later Responses turn may carry only `previous_response_id`: that id must lead to the job too.
  if (api.conversationIds && job) await deps.store.link(responseConversationKey(principal.accountId, "smart-plus", id), job.id);
  const headers: Record<string, string> = {
    ...input.headers,
    "x-router-tier": "smart-plus",
    "x-router-model": job?.model ?? modelName,
    "x-router-effort": job?.effort ?? effort,
    "x-router-source": "smartplus",
    "x-router-request-id": input.requestId,
    [api.requestIdHeader]: input.requestId,
  };
  const ctx = { model: "smart-plus", created: Math.floor(Date.now() / 1000), includeUsage: canonical.includeUsage === true };
  if (input.body.stream === true) {
    const body = encodeTextStream(format, id, pieces, ctx, () => input.beforeLastBytes?.(), () => input.onEnd?.());
    return new Response(body, { status: 200, headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } });
  }
  const text = await collect(pieces);
  await input.beforeLastBytes?.();
  input.onEnd?.();
  return new Response(encodeTextResponse(format, id, text, ctx), { status: 200, headers: { ...headers, "content-type": "application/json" } });
}
