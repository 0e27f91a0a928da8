import { Type as t, type Static } from "@sinclair/typebox";

/**
 * The environment the gateway reads. `description` is what the value must be, quoted in the error;
 * `echo` says the value may be quoted back (never for URLs or tokens, which can hold secrets).
 */
export const EnvSchema = t.Object(
  {
    PORT: t.Optional(t.String({ pattern: "^(0|[1-9][0-9]{0,4})$", description: "an integer from 0 to 65535", echo: true })),
    HOST: t.Optional(t.String({ pattern: "^\\S+$", description: "a host name or address", echo: true })),
    DATABASE_URL: t.Optional(t.String({ pattern: "^postgres(ql)?://\\S+$", description: "a postgres:// or postgresql:// URL" })),
    ROUTELANE_DATA_DIR: t.Optional(t.String({ minLength: 1, description: "a directory path", echo: true })),
    REDIS_URL: t.Optional(
      t.String({ pattern: "^(redis|rediss|valkey|valkeys)://\\S+$", description: "a redis://, rediss://, valkey:// or valkeys:// URL" }),
    ),
    ROUTELANE_CONFIG: t.Optional(t.String({ minLength: 1, description: "the path of a JSON config file", echo: true })),
    ROUTELANE_ADMIN_TOKEN: t.Optional(t.String({ minLength: 16, description: "at least 16 characters" })),
    ROUTELANE_METRICS_TOKEN: t.Optional(t.String({ minLength: 16, description: "at least 16 characters" })),
    ROUTELANE_LOG_LEVEL: t.Optional(
      t.String({ pattern: "^(trace|debug|info|warn|error|fatal|silent)$", description: "one of trace, debug, info, warn, error, fatal, silent", echo: true }),
    ),
    ROUTELANE_LOG_DESTINATION: t.Optional(t.String({ minLength: 1, description: "stdout, stderr or a file path", echo: true })),
    ROUTELANE_LOG_BODIES: t.Optional(t.String({ pattern: "^(0|1|true|false)$", description: "0, 1, true or false", echo: true })),
    ROUTELANE_SHUTDOWN_TIMEOUT_MS: t.Optional(t.String({ pattern: "^[0-9]{1,9}$", description: "a whole number of milliseconds", echo: true })),
  },
  { additionalProperties: false },
);
export type EnvSettings = Static<typeof EnvSchema>;

export const ENV_NAMES = Object.keys(EnvSchema.properties) as Array<keyof EnvSettings>;
