import { and, eq, gt, lt } from "drizzle-orm";
import { createHmac, timingSafeEqual } from "node:crypto";
import { encodeBase62, generateId } from "../accounts/generate-api-key.ts";
import type { Database } from "../db/client.ts";
import { consoleSessions } from "../db/schema/index.ts";
import type { GateSession } from "../ops/create-admin-gate.ts";

export interface NewSession {
  readonly id: string;
  /** The cookie's value: shown to the browser once, stored only as a hash. */
  readonly secret: string;
  readonly expiresAt: Date;
}

export interface SessionStore {
  create(address: string): Promise<NewSession>;
  /** The live session of a cookie value; null when unknown, expired, or from before a change of the admin token. */
  find(secret: string): Promise<GateSession | null>;
  /** Ends the session of a cookie value (sign-out). */
  remove(secret: string): Promise<void>;
}

const hash = (secret: string): string => new Bun.CryptoHasher("sha256").update(secret).digest("hex");
const tokenCheckOf = (secret: string, adminToken: string): Buffer => createHmac("sha256", secret).update(adminToken).digest();

/** Console sessions in the database, so every instance behind one address knows them. */
export function createSessionStore(database: Database, adminToken: string, lifetimeMs: number): SessionStore {
  const { db } = database;
  let lastSweep = 0;
  return {
    async create(address) {
      const secret = encodeBase62(crypto.getRandomValues(new Uint8Array(32)), 43);
      const expiresAt = new Date(Date.now() + lifetimeMs);
      const id = generateId("ses_");
      await db.insert(consoleSessions).values({
        id,
        secretHash: hash(secret),
        csrfToken: encodeBase62(crypto.getRandomValues(new Uint8Array(32)), 43),
        tokenCheck: tokenCheckOf(secret, adminToken).toString("hex"),
        address,
        expiresAt,
      });
      // Expired rows go now and then, on sign-in, not on a timer.
      if (Date.now() - lastSweep > 3_600_000) {
        lastSweep = Date.now();
        await db.delete(consoleSessions).where(lt(consoleSessions.expiresAt, new Date()));
      }
      return { id, secret, expiresAt };
    },
    async find(secret) {
      if (secret.length === 0 || secret.length > 100) return null;
      const [row] = await db
        .select()
        .from(consoleSessions)
        .where(and(eq(consoleSessions.secretHash, hash(secret)), gt(consoleSessions.expiresAt, new Date())));
      if (!row) return null;
      const stored = Buffer.from(row.tokenCheck, "hex");
      const expected = tokenCheckOf(secret, adminToken);
      if (stored.length !== expected.length || !timingSafeEqual(stored, expected)) return null;
      return { id: row.id, csrfToken: row.csrfToken };
    },
    async remove(secret) {
      await db.delete(consoleSessions).where(eq(consoleSessions.secretHash, hash(secret)));
    },
  };
}
