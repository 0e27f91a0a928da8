import type { Job } from "./create-job-store.ts";

const hours = (ms: number): string => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} hours` : `${Math.round(ms / 60_000)} minutes`);

const block = (command: string): string => `\n\`\`\`sh\n${command}\n\`\`\`\n`;

/** The first answer of a job: what Smart+ does and the pack command to run. */
export function composeStartText(jobId: string, packCommand: string, tokenTtlMs: number): string {
  return [
    `Smart+ works on a copy of your repository and answers with a patch. Job ${jobId} is set up for this task.`,
    "",
    `Please run this command in the root of the repository. It uploads the files git tracks plus untracked files that are not ignored (it needs only git, tar and curl); the token in it is valid for job ${jobId} only, for ${hours(tokenTtlMs)}:`,
    block(packCommand),
    "When it has finished, send another message (for example \"uploaded\") and I will report progress, then give you the command that applies the patch.",
  ].join("\n");
}

/** A job still waiting for its upload: the pack command again (with a fresh token). */
export function composeAwaitingText(jobId: string, packCommand: string): string {
  return [`Job ${jobId} is still waiting for the repository. Please run this command in the root of the repository:`, block(packCommand), "Then send another message."].join("\n");
}

/** One progress line. */
export function composePhaseLine(job: Job): string {
  const files = job.fileCount !== null && job.state === "queued" ? ` (${job.fileCount} files uploaded)` : "";
  return `Job ${job.id}: ${job.phase ?? job.state}${files}.\n`;
}

export function composeStillWorkingText(): string {
  return "\nStill working on it. Send another message in a little while to check again.";
}

/** A ready job: the apply command, then what the patch changes. */
export function composeReadyText(job: Job, applyCommand: string): string {
  return [
    `The patch for job ${job.id} is ready. Please apply it by running this command in the root of the repository:`,
    block(applyCommand),
    `Summary of the change: ${job.summary ?? "(none given)"}`,
  ].join("\n");
}

export function composeFailedText(job: Job): string {
  return `Job ${job.id} failed: ${job.error ?? "unknown error"}.\n\nSend a message that starts with "new job" to start over with a fresh upload.`;
}

export function composeNoTaskText(): string {
  return "Smart+ turns a task into a patch for your repository. Please say what should change, and I will tell you how to upload the repository.";
}
