import { Type as t, type Static, type TLiteral, type TUnion } from "@sinclair/typebox";
import { EFFORTS } from "../canonical/effort.ts";
import { TIERS } from "../canonical/tier.ts";
import { WIRE_FORMATS } from "../canonical/wire-format.ts";

const literals = <T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> =>
  t.Union(values.map((v) => t.Literal(v)));

export const WireFormatSchema = literals(WIRE_FORMATS);
export const EffortSchema = literals(EFFORTS);

/**
 * A fault the simulated upstream injects. Set per model in config (every request to that model)
 * or per request with a prompt directive / header (see src/sim/README.md).
 */
export const FaultSchema = t.Object(
  {
    /** Answer with this HTTP status and an error body in the called API's shape. */
    status: t.Optional(t.Integer({ minimum: 400, maximum: 599 })),
    /** Error message for `status`. */
    message: t.Optional(t.String()),
    /** Wait this long before the first byte. */
    delayMs: t.Optional(t.Integer({ minimum: 0 })),
    /** Close the stream abruptly after this many events. */
    cutAfterEvents: t.Optional(t.Integer({ minimum: 0 })),
    /** Send a malformed (non-JSON) event at this position (0 = first event). */
    malformedAt: t.Optional(t.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type Fault = Static<typeof FaultSchema>;

export const ProviderSchema = t.Object(
  {
    /** `sim` is the built-in simulated upstream; without `baseUrl` it is started in-process. */
    kind: literals(["sim", "anthropic", "openai", "openai-compatible"] as const),
    baseUrl: t.Optional(t.String({ pattern: "^https?://" })),
    /** Name of the environment variable that holds the provider's API key (never the key itself). */
    apiKeyEnv: t.Optional(t.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type Provider = Static<typeof ProviderSchema>;

export const PricesSchema = t.Object(
  {
    /** USD per million tokens. */
    input: t.Number({ minimum: 0 }),
    output: t.Number({ minimum: 0 }),
    cacheRead: t.Number({ minimum: 0 }),
    cacheWrite: t.Number({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export const ModelSchema = t.Object(
  {
    provider: t.String({ minLength: 1 }),
    /** The model id sent upstream. */
    upstreamId: t.String({ minLength: 1 }),
    /** Upstream APIs this model can be called with, preferred first. */
    apis: t.Array(WireFormatSchema, { minItems: 1, uniqueItems: true }),
    contextWindow: t.Integer({ minimum: 1 }),
    maxOutputTokens: t.Integer({ minimum: 1 }),
    vision: t.Boolean(),
    tools: t.Boolean(),
    /** Efforts the model supports; `off` means thinking can be disabled. */
    efforts: t.Array(EffortSchema, { minItems: 1, uniqueItems: true }),
    /** How the Messages API controls thinking on this model: effort-steered adaptive, manual budgets, or none. */
    thinking: literals(["adaptive", "manual", "none"] as const),
    prices: PricesSchema,
    /** Simulated upstream only: a fault injected on every request to this model. */
    faults: t.Optional(FaultSchema),
  },
  { additionalProperties: false },
);
export type ModelConfig = Static<typeof ModelSchema>;

export const TierSchema = t.Object(
  {
    displayName: t.String({ minLength: 1 }),
    description: t.String(),
    ownedBy: t.String({ minLength: 1 }),
    /** Ordered pool of model names (keys of `models`). */
    models: t.Array(t.String({ minLength: 1 }), { minItems: 1 }),
    defaultEffort: EffortSchema,
    /** What the models endpoint advertises for the tier. */
    contextWindow: t.Integer({ minimum: 1 }),
    maxOutputTokens: t.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type TierConfig = Static<typeof TierSchema>;

export const FileConfigSchema = t.Object(
  {
    providers: t.Record(t.String({ minLength: 1 }), ProviderSchema),
    models: t.Record(t.String({ minLength: 1 }), ModelSchema),
    tiers: t.Object(Object.fromEntries(TIERS.map((tier) => [tier, TierSchema])) as Record<(typeof TIERS)[number], typeof TierSchema>, {
      additionalProperties: false,
    }),
    server: t.Optional(
      t.Object(
        {
          /** Largest accepted request body, bytes. */
          bodyLimitBytes: t.Optional(t.Integer({ minimum: 1024 })),
          /** How long a key→account lookup may be served from memory without a database check, ms. */
          keyCacheTtlMs: t.Optional(t.Integer({ minimum: 0 })),
          /** How long an upstream may take to its first event (stream) or whole body (non-stream), ms. */
          upstreamTimeoutMs: t.Optional(t.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FileConfig = Static<typeof FileConfigSchema>;

/** The whole validated configuration: environment plus config file. Frozen after load. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** postgres:// URL; unset → embedded PGlite in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly redisUrl: string | undefined;
  readonly adminToken: string | undefined;
  /** Path of the config file, when one was given (ROUTELANE_CONFIG). */
  readonly configPath: string | undefined;
  readonly bodyLimitBytes: number;
  readonly keyCacheTtlMs: number;
  readonly upstreamTimeoutMs: number;
  readonly providers: Readonly<Record<string, Provider>>;
  readonly models: Readonly<Record<string, ModelConfig>>;
  readonly tiers: Readonly<Record<(typeof TIERS)[number], TierConfig>>;
}
