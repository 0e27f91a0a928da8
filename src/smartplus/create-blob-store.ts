import { mkdirSync, rmSync } from "node:fs";
import { link, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { type GatewayError, fail } from "../canonical/gateway-error.ts";

/** The blobs of a job, by name. */
export type BlobName = "upload.tar.gz" | "patch.diff";

/**
 * Job blobs in a directory (one folder per job). Several instances share it when it sits on a
 * shared volume; nothing here holds state in memory.
 */
export interface BlobStore {
  readonly dir: string;
  path(jobId: string, name: BlobName): string;
  /** A scratch folder for the job's extracted tree, emptied first. */
  scratch(jobId: string): string;
  /**
   * Writes a stream to a blob, counting bytes as they arrive: past `maxBytes` the stream is
   * cancelled, the partial file removed, and a 413 thrown. The blob only appears once complete,
   * and never replaces one that exists (409).
   */
  writeStream(jobId: string, name: BlobName, body: ReadableStream<Uint8Array>, maxBytes: number): Promise<number>;
  write(jobId: string, name: BlobName, data: string): Promise<void>;
  /** The blob's file, or null when it does not exist. */
  file(jobId: string, name: BlobName): Promise<Bun.BunFile | null>;
  remove(jobId: string): Promise<void>;
}

const MIB = 1024 * 1024;

export const tooLarge = (maxBytes: number): GatewayError =>
  fail("TooLarge", `the upload is larger than the limit of ${maxBytes >= MIB ? `${Math.round(maxBytes / MIB)} MiB` : `${maxBytes} bytes`}`);

const alreadyThere = (): GatewayError => fail("Conflict", "the repository was already uploaded for this job");

export function createBlobStore(dir: string): BlobStore {
  mkdirSync(dir, { recursive: true });
  const jobDir = (jobId: string): string => {
    // Job ids are generated (`job_` + base62); anything else never reaches the file system.
    if (!/^job_[0-9A-Za-z]+$/.test(jobId)) throw new Error("bad job id");
    return join(dir, jobId);
  };
  return {
    dir,
    path: (jobId, name) => join(jobDir(jobId), name),
    scratch(jobId) {
      const path = join(jobDir(jobId), "tree");
      rmSync(path, { recursive: true, force: true });
      mkdirSync(path, { recursive: true });
      return path;
    },
    async writeStream(jobId, name, body, maxBytes) {
      mkdirSync(jobDir(jobId), { recursive: true });
      const final = join(jobDir(jobId), name);
      const partial = `${final}.${crypto.randomUUID()}.part`;
      const out = Bun.file(partial).writer({ highWaterMark: 1024 * 1024 });
      const reader = body.getReader();
      let bytes = 0;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.byteLength;
          if (bytes > maxBytes) {
            await reader.cancel().catch(() => {});
            throw tooLarge(maxBytes);
          }
          const pending = out.write(value);
          if (pending instanceof Promise) await pending;
        }
        await out.end();
        // A link fails when the blob exists: of two uploads racing, the second is refused whole.
        await link(partial, final).catch((error: NodeJS.ErrnoException) => {
          throw error.code === "EEXIST" ? alreadyThere() : error;
        });
        await rm(partial, { force: true });
        return bytes;
      } catch (error) {
        await Promise.resolve(out.end()).catch(() => {});
        await rm(partial, { force: true });
        throw error;
      }
    },
    async write(jobId, name, data) {
      mkdirSync(jobDir(jobId), { recursive: true });
      const final = join(jobDir(jobId), name);
      const partial = `${final}.${crypto.randomUUID()}.part`;
      await Bun.write(partial, data);
      await rename(partial, final);
    },
    async file(jobId, name) {
      const file = Bun.file(join(jobDir(jobId), name));
      return (await file.exists()) ? file : null;
    },
    async remove(jobId) {
      await rm(jobDir(jobId), { recursive: true, force: true });
    },
  };
}
