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

/** Conditions over the task's signals; a rule matches when every condition it names holds. */
export const RuleConditionsSchema = t.Object(
  {
    /** Length of the newest user text, characters. */
    minChars: t.Optional(t.Integer({ minimum: 0 })),
    maxChars: t.Optional(t.Integer({ minimum: 0 })),
    /** The newest user text holds code, a stack trace, a diff. */
    code: t.Optional(t.Boolean()),
    stackTrace: t.Optional(t.Boolean()),
    diff: t.Optional(t.Boolean()),
    /** Any of these words or phrases (case-insensitive, whole words) in the newest user text. */
    keywords: t.Optional(t.Array(t.String({ minLength: 1 }), { minItems: 1 })),
    /** Any of these regular expressions (case-insensitive) matches the newest user text. */
    patterns: t.Optional(t.Array(t.String({ minLength: 1 }), { minItems: 1 })),
    /** The request offers tools / holds images. */
    tools: t.Optional(t.Boolean()),
    images: t.Optional(t.Boolean()),
    /** Number of user turns in the conversation. */
    minDepth: t.Optional(t.Integer({ minimum: 0 })),
    maxDepth: t.Optional(t.Integer({ minimum: 0 })),
    /** Estimated prompt size, tokens. */
    minPromptTokens: t.Optional(t.Integer({ minimum: 0 })),
    maxPromptTokens: t.Optional(t.Integer({ minimum: 0 })),
    /** Estimated prompt size as a share of the smallest context window in the tier's pool. */
    minContextShare: t.Optional(t.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const RuleTierChoiceSchema = t.Object(
  {
    /** A model of the tier's pool; absent → the class's preference, else the pool's first. */
    model: t.Optional(t.String({ minLength: 1 })),
    effort: t.Optional(EffortSchema),
  },
  { additionalProperties: false },
);

export const RoutingRuleSchema = t.Object(
  {
    name: t.String({ minLength: 1 }),
    /** A key of `routing.classes`. */
    class: t.String({ minLength: 1 }),
    when: RuleConditionsSchema,
    /** Per-tier model and effort; unset tiers follow the class. */
    tiers: t.Optional(t.Partial(t.Object(Object.fromEntries(TIERS.map((tier) => [tier, RuleTierChoiceSchema])) as Record<(typeof TIERS)[number], typeof RuleTierChoiceSchema>, { additionalProperties: false }))),
  },
  { additionalProperties: false },
);
export type RoutingRule = Static<typeof RoutingRuleSchema>;

const tierEfforts = t.Partial(
  t.Object(Object.fromEntries(TIERS.map((tier) => [tier, EffortSchema])) as Record<(typeof TIERS)[number], typeof EffortSchema>, {
    additionalProperties: false,
  }),
);

export const TaskClassSchema = t.Object(
  {
    description: t.String(),
    /** Effort per tier; a tier left out uses its default effort. */
    effort: t.Optional(tierEfforts),
    /** Preferred models, best first; the first one in the tier's pool is chosen. */
    prefer: t.Optional(t.Array(t.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);
export type TaskClassConfig = Static<typeof TaskClassSchema>;

export const RoutingSchema = t.Object(
  {
    classifier: t.Optional(
      t.Object(
        {
          /** `rules`: the rules below; `llm`: ask the fast tier's model for the class, rules as fallback. */
          kind: literals(["rules", "llm"] as const),
          /** How long the `llm` classifier may take before the rules answer instead, ms. */
          llmDeadlineMs: t.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
    /** How much of the newest user text (and of each tool result) is scanned, characters. */
    scanChars: t.Optional(t.Integer({ minimum: 256 })),
    classes: t.Optional(t.Record(t.String({ minLength: 1 }), TaskClassSchema)),
    /** Checked in order; the first match decides. None → the tier's defaults (source `default`). */
    rules: t.Optional(t.Array(RoutingRuleSchema)),
    /** Highest effort per tier, for classes and escalation alike. */
    maxEffort: t.Optional(tierEfforts),
    /** Decisions by task text: in process, and with the `llm` classifier also in the database (every `cleanupIntervalMs`, whatever the classifier, each instance deletes the expired rows there). */
    decisionCache: t.Optional(
      t.Object(
        {
          ttlMs: t.Integer({ minimum: 0 }),
          lruSize: t.Integer({ minimum: 0 }),
          cleanupIntervalMs: t.Integer({ minimum: 1000 }),
        },
        { additionalProperties: false },
      ),
    ),
    conversations: t.Optional(
      t.Object(
        {
          /** How long a conversation stays on its model after its last answer, ms. */
          pinTtlMs: t.Integer({ minimum: 1 }),
          /** In-process pin map size (without Redis). */
          maxPins: t.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
    escalation: t.Optional(
      t.Object(
        {
          enabled: t.Boolean(),
          /** Regular expressions (case-insensitive) over tool results that show the agent struggling. */
          strugglePatterns: t.Array(t.String({ minLength: 1 })),
          /** Regular expressions over tool results that show progress (tests pass, edit applied). */
          successPatterns: t.Array(t.String({ minLength: 1 })),
          /** A tool result flagged as an error counts as struggling. */
          toolErrors: t.Boolean(),
          /** The same tool call (name and arguments) as in the previous turn counts as struggling. */
          repeatedCalls: t.Boolean(),
          /** At most this many steps above the class's effort. */
          maxSteps: t.Integer({ minimum: 0, maximum: 4 }),
        },
        { additionalProperties: false },
      ),
    ),
    breaker: t.Optional(
      t.Object(
        {
          /** Consecutive failures that open a model's breaker. */
          failureThreshold: t.Integer({ minimum: 1 }),
          /** How long an open breaker waits before one probe request, ms. */
          coolDownMs: t.Integer({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RoutingFileConfig = Static<typeof RoutingSchema>;
/** The routing section with every part filled in (defaults merged at load). */
export type RoutingConfig = { readonly [K in keyof RoutingFileConfig]-?: NonNullable<RoutingFileConfig[K]> };

/** The response cache: an in-process sharded LRU bounded by bytes (plus the Redis L2 when REDIS_URL is set). */
export const ResponseCacheSchema = t.Object(
  {
    enabled: t.Optional(t.Boolean()),
    /** In-process budget over all shards, bytes (default 64 MiB; 16 MiB with REDIS_URL, whose second level holds every answer). */
    maxBytes: t.Optional(t.Integer({ minimum: 0 })),
    ttlMs: t.Optional(t.Integer({ minimum: 1 })),
    shards: t.Optional(t.Integer({ minimum: 1, maximum: 1024 })),
  },
  { additionalProperties: false },
);

/** The batched usage writer. */
export const UsageWriterSchema = t.Object(
  {
    /** Rows per insert; a full batch is written at once. */
    batchRows: t.Optional(t.Integer({ minimum: 1 })),
    /** A partial batch waits at most this long, ms. */
    flushIntervalMs: t.Optional(t.Integer({ minimum: 1 })),
    /** Rows kept while the database is down; past it new rows are dropped (and counted). */
    maxBufferRows: t.Optional(t.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** Shared state in Redis (limits, response-cache L2). */
export const RedisSettingsSchema = t.Object(
  {
    /** Prefix of every key the gateway writes. */
    keyPrefix: t.Optional(t.String()),
    /** A concurrency slot lapses this long after its holder stopped refreshing it (a dead instance), ms. */
    leaseTtlMs: t.Optional(t.Integer({ minimum: 1000 })),
    /** Longest a request waits for one Redis command; past it Redis counts as down, ms. */
    commandTimeoutMs: t.Optional(t.Integer({ minimum: 10, maximum: 10_000 })),
    /** After a failure Redis is not asked for this long (in-process fallbacks serve), then probed; each failed probe doubles it up to 10 s, ms. */
    backoffMs: t.Optional(t.Integer({ minimum: 10, maximum: 10_000 })),
  },
  { additionalProperties: false },
);

/** The Smart+ job flow (src/smartplus/). */
export const SmartPlusSchema = t.Object(
  {
    /** How long a job token (`rlj_…`) is accepted after it was issued, ms. */
    tokenTtlMs: t.Optional(t.Integer({ minimum: 1000 })),
    /** How long a job and its blobs live after it was created, ms. */
    jobTtlMs: t.Optional(t.Integer({ minimum: 1000 })),
    /** Largest accepted upload (compressed), bytes; counted while the body streams in. */
    uploadLimitBytes: t.Optional(t.Integer({ minimum: 1024 })),
    /** Extraction limits of an uploaded archive. */
    maxFiles: t.Optional(t.Integer({ minimum: 1 })),
    maxFileBytes: t.Optional(t.Integer({ minimum: 1 })),
    maxTotalBytes: t.Optional(t.Integer({ minimum: 1 })),
    /** A running job whose worker stopped renewing its lease this long ago is claimed again, ms. */
    leaseTimeoutMs: t.Optional(t.Integer({ minimum: 1000 })),
    /** How often an idle worker looks for a queued job, ms. */
    pollIntervalMs: t.Optional(t.Integer({ minimum: 10 })),
    /** How long a turn waits for a running job to move on before it answers, ms. */
    turnWaitMs: t.Optional(t.Integer({ minimum: 0 })),
    /** Model calls per job after the first when the patch does not apply. */
    retries: t.Optional(t.Integer({ minimum: 0, maximum: 10 })),
    /** Where job blobs live; default `<dataDir>/smartplus`. Shared by every instance. */
    blobDir: t.Optional(t.String({ minLength: 1 })),
    /** Base URL put in the commands; default: the address the request came in on. */
    publicUrl: t.Optional(t.String({ pattern: "^https?://" })),
    /** Run the worker loop in this process (default true). */
    worker: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
);

/** Same-model retries before the first byte, within a budget per request. */
export const RetriesSchema = t.Object(
  {
    /** Retries per request, over all its candidate models; 0 = only failover. */
    attempts: t.Optional(t.Integer({ minimum: 0, maximum: 10 })),
    /** A retry is made only when its wait ends within this long of the request's first call, ms. */
    budgetMs: t.Optional(t.Integer({ minimum: 0 })),
    /** The first back-off when the upstream names no wait; doubled per retry of a model, jittered, ms. */
    baseDelayMs: t.Optional(t.Integer({ minimum: 0 })),
    /** The longest back-off the gateway chooses itself (an upstream's `retry-after` is honoured as asked), ms. */
    maxDelayMs: t.Optional(t.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type RetryPolicy = Required<Static<typeof RetriesSchema>>;

export const FileConfigSchema = t.Object(
  {
    providers: t.Record(t.String({ minLength: 1 }), ProviderSchema),
    models: t.Record(t.String({ minLength: 1 }), ModelSchema),
    tiers: t.Object(Object.fromEntries(TIERS.map((tier) => [tier, TierSchema])) as Record<(typeof TIERS)[number], typeof TierSchema>, {
      additionalProperties: false,
    }),
    responseCache: t.Optional(ResponseCacheSchema),
    usage: t.Optional(UsageWriterSchema),
    redis: t.Optional(RedisSettingsSchema),
    server: t.Optional(
      t.Object(
        {
          /** Largest accepted request body, bytes. */
          bodyLimitBytes: t.Optional(t.Integer({ minimum: 1024 })),
          /** How long a key→account lookup may be served from memory without a database check, ms. */
          keyCacheTtlMs: t.Optional(t.Integer({ minimum: 0 })),
          /** How long an upstream may take to its first event (stream) or whole body (non-stream), ms. */
          upstreamTimeoutMs: t.Optional(t.Integer({ minimum: 1 })),
          /** Calling the same model again after a transient failure (429, 5xx, 529, connection), before the first byte. */
          retries: t.Optional(RetriesSchema),
          /** Believe `x-forwarded-host` / `x-forwarded-proto` and the last `x-forwarded-for` entry (only behind a proxy that sets them); default false. */
          trustProxy: t.Optional(t.Boolean()),
          /** A stream with nothing to send for this long gets a keep-alive (Messages `ping`, an SSE comment otherwise), ms. */
          streamKeepaliveMs: t.Optional(t.Integer({ minimum: 100, maximum: 60_000 })),
          /** A stream whose upstream has sent nothing for this long ends with the format's error event, ms. */
          streamIdleTimeoutMs: t.Optional(t.Integer({ minimum: 100 })),
          /** Largest non-streamed upstream answer read; a larger one fails the request with 502, bytes. */
          maxUpstreamBodyBytes: t.Optional(t.Integer({ minimum: 1024 })),
          /** Largest single upstream stream event read; a larger one ends the stream with the format's error event, bytes. */
          maxUpstreamEventBytes: t.Optional(t.Integer({ minimum: 1024 })),
          /** Upstream calls (streams included) the process keeps open at once; Bun's own default would be 256. */
          maxUpstreamRequests: t.Optional(t.Integer({ minimum: 1, maximum: 65_535 })),
          /** Characters of big request bodies whose parsed pieces are kept for the conversation's next turn; 0 = none kept. Read at start. */
          parseMemoChars: t.Optional(t.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    routing: t.Optional(RoutingSchema),
    smartPlus: t.Optional(SmartPlusSchema),
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
  readonly retries: RetryPolicy;
  /** Whether `x-forwarded-host` / `x-forwarded-proto` and the last `x-forwarded-for` entry are believed (server.trustProxy). */
  readonly trustProxy: boolean;
  readonly streamKeepaliveMs: number;
  readonly streamIdleTimeoutMs: number;
  readonly maxUpstreamBodyBytes: number;
  readonly maxUpstreamEventBytes: number;
  /** Upstream calls open at once (server.maxUpstreamRequests): Bun's fetch pool is sized to it at start. */
  readonly maxUpstreamRequests: number;
  /** Bytes of big request bodies' text (UTF-8; a character of ASCII is one) whose parsed pieces are kept for the next turn (server.parseMemoChars); 0 = off. */
  readonly parseMemoChars: number;
  readonly providers: Readonly<Record<string, Provider>>;
  readonly models: Readonly<Record<string, ModelConfig>>;
  readonly tiers: Readonly<Record<(typeof TIERS)[number], TierConfig>>;
  readonly responseCache: { readonly enabled: boolean; readonly maxBytes: number; readonly ttlMs: number; readonly shards: number };
  readonly usage: { readonly batchRows: number; readonly flushIntervalMs: number; readonly maxBufferRows: number };
  readonly redis: { readonly keyPrefix: string; readonly leaseTtlMs: number; readonly commandTimeoutMs: number; readonly backoffMs: number };
  readonly routing: RoutingConfig;
  readonly smartPlus: SmartPlusConfig;
}

/** The Smart+ settings with defaults filled in (see SmartPlusSchema). */
export interface SmartPlusConfig {
  readonly tokenTtlMs: number;
  readonly jobTtlMs: number;
  readonly uploadLimitBytes: number;
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
  readonly leaseTimeoutMs: number;
  readonly pollIntervalMs: number;
  readonly turnWaitMs: number;
  readonly retries: number;
  readonly blobDir: string;
  readonly publicUrl: string | undefined;
  readonly worker: boolean;
}
