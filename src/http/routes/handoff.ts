import { createReadStream } from "node:fs";
import { Elysia, type AnyElysia } from "elysia";
import { fail } from "../../canonical/gateway-error.ts";
import { encodeMessagesError } from "../../wire/messages/encode-error.ts";
import { newRequestId } from "../../pipeline/new-request-id.ts";
import { toGatewayError } from "../../pipeline/render-error.ts";
import type { Job } from "../../smartplus/create-job-store.ts";
import type { SmartPlus } from "../../smartplus/create-smart-plus.ts";
import { JOB_TOKEN_PREFIX } from "../../smartplus/generate-job-token.ts";
import { tooLarge } from "../../smartplus/create-blob-store.ts";

export interface HandoffRoutesOptions {
  readonly smartPlus: SmartPlus;
}

const conflict = (message: string) => fail("Conflict", message);
const gone = (message: string) => fail("Gone", message);

/** A handoff error in the Messages-style shape; `job` adds the job's state where it helps (409). */
function errorResponse(error: unknown, requestId: string, job?: Job): Response {
  const gatewayError = toGatewayError(error);
  const body = JSON.parse(encodeMessagesError(gatewayError, requestId)) as Record<string, unknown>;
  if (job) body.job = { id: job.id, state: job.state, phase: job.phase, ...(job.error ? { error: job.error } : {}) };
  return new Response(JSON.stringify(body), {
    status: gatewayError.status,
    headers: { "content-type": "application/json", "x-router-request-id": requestId, ...gatewayError.headers },
  });
}

/**
 * The job the request may act on: the bearer must be a live job token of exactly this job. An API
 * key is refused here (the commands carry only job tokens), as are unknown and expired tokens
 * (401) and a token of another job (403).
 */
async function authorizeJob(smartPlus: SmartPlus, request: Request, jobId: string): Promise<Job> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!bearer?.startsWith(JOB_TOKEN_PREFIX)) {
    const keyGiven = request.headers.has("x-api-key") || bearer?.startsWith("rl_") === true;
    throw fail("Unauthenticated", keyGiven ? "API keys are not accepted here; use the job token from the Smart+ command" : "invalid or missing job token");
  }
  const check = await smartPlus.store.checkToken(bearer);
  if (check.kind === "unknown") throw fail("Unauthenticated", "invalid or missing job token");
  if (check.jobId !== jobId) throw fail("Forbidden", "the job token is not valid for this job");
  if (check.kind === "expired") throw fail("Unauthenticated", "the job token has expired; ask Smart+ again for a fresh command");
  const job = await smartPlus.store.get(jobId);
  if (!job) throw fail("NotFound", `no such job: ${jobId}`);
  return job;
}

const isExpired = (job: Job): boolean => job.state === "expired" || job.expiresAt.getTime() <= Date.now();

async function handleUpload(smartPlus: SmartPlus, request: Request, jobId: string): Promise<Response> {
  const requestId = newRequestId();
  let job: Job | undefined;
  try {
    job = await authorizeJob(smartPlus, request, jobId);
    if (isExpired(job)) throw gone(`job ${job.id} has expired`);
    if (job.state === "failed") throw gone(`job ${job.id} has failed: ${job.error ?? "unknown error"}`);
    if (job.state !== "awaiting_upload") throw conflict(`the repository was already uploaded for job ${job.id} (it is ${job.state})`);
    const settings = smartPlus.settings();
    const declared = Number(request.headers.get("content-length") ?? "");
    if (Number.isFinite(declared) && declared > settings.uploadLimitBytes) throw tooLarge(settings.uploadLimitBytes);
    if (!request.body) throw fail("InvalidRequest", "the upload is empty: send the gzipped tar archive as the body");
    const bytes = await smartPlus.blobs.writeStream(job.id, "upload.tar.gz", request.body, settings.uploadLimitBytes);
    // Loaded at the first upload: the archive reader stays out of a gateway that never takes one.
    const { ArchiveError, extractArchive } = await import("../../smartplus/extract-archive.ts");
    let files: number;
    try {
      files = (await extractArchive(createReadStream(smartPlus.blobs.path(job.id, "upload.tar.gz")), settings, null)).paths.length;
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      await smartPlus.store.fail(job.id, `the upload was refused: ${error.message}`);
      throw fail("BadArchive", `the upload was refused: ${error.message}`);
    }
    if (!(await smartPlus.store.markUploaded(job.id, files, bytes))) throw conflict(`the repository was already uploaded for job ${job.id}`);
    smartPlus.wake();
    return Response.json({ job: job.id, state: "queued", files, bytes }, { status: 201, headers: { "x-router-request-id": requestId } });
  } catch (error) {
    return errorResponse(error, requestId);
  }
}

async function handlePatch(smartPlus: SmartPlus, request: Request, jobId: string): Promise<Response> {
  const requestId = newRequestId();
  try {
    const job = await authorizeJob(smartPlus, request, jobId);
    if (isExpired(job)) throw gone(`job ${job.id} has expired and its patch is gone`);
    if (job.state !== "ready") {
      const why = job.state === "failed" ? `job ${job.id} failed: ${job.error ?? "unknown error"}` : `the patch is not ready yet: job ${job.id} is ${job.phase ?? job.state}`;
      return errorResponse(conflict(why), requestId, job);
    }
    const file = await smartPlus.blobs.file(job.id, "patch.diff");
    if (!file) throw gone(`the patch of job ${job.id} is gone`);
    return new Response(file, { status: 200, headers: { "content-type": "text/x-diff; charset=utf-8", "x-router-request-id": requestId } });
  } catch (error) {
    return errorResponse(error, requestId);
  }
}

/**
 * The Smart+ handoff: `POST /v1/handoff/{job}/upload` takes the pack command's gzipped tar as a
 * stream (size counted as it arrives), `GET /v1/handoff/{job}/patch` gives the unified diff.
 * Authorised by the job token only; errors in the Messages-style shape.
 */
export function handoffRoutes(options: HandoffRoutesOptions): AnyElysia {
  const { smartPlus } = options;
  return new Elysia({ name: "handoff" })
    .post("/v1/handoff/:job/upload", ({ request, params }) => handleUpload(smartPlus, request, params.job), { parse: "none" })
    .get("/v1/handoff/:job/patch", ({ request, params }) => handlePatch(smartPlus, request, params.job));
}
