import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig, loadOpsSettings } from "../../src/config/load-config.ts";

describe("operational settings", () => {
  test("defaults", () => {
    expect(loadOpsSettings({})).toEqual({
      logLevel: "info",
      logDestination: "stdout",
      logBodies: false,
      metricsToken: undefined,
      shutdownTimeoutMs: 25_000,
      otlpEndpoint: undefined,
    });
  });

  test("read from the environment", () => {
    expect(
      loadOpsSettings({
        ROUTELANE_LOG_LEVEL: "debug",
        ROUTELANE_LOG_DESTINATION: "/var/log/routelane.log",
        ROUTELANE_LOG_BODIES: "1",
        ROUTELANE_METRICS_TOKEN: "m".repeat(16),
        ROUTELANE_SHUTDOWN_TIMEOUT_MS: "5000",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      }),
    ).toEqual({
      logLevel: "debug",
      logDestination: "/var/log/routelane.log",
      logBodies: true,
      metricsToken: "m".repeat(16),
      shutdownTimeoutMs: 5000,
      otlpEndpoint: "http://collector:4318",
    });
  });

  test.each([
    [{ ROUTELANE_LOG_LEVEL: "loud" }, 'ROUTELANE_LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got "loud"'],
    [{ ROUTELANE_LOG_BODIES: "yes" }, 'ROUTELANE_LOG_BODIES: expected 0, 1, true or false, got "yes"'],
    [{ ROUTELANE_SHUTDOWN_TIMEOUT_MS: "10s" }, 'ROUTELANE_SHUTDOWN_TIMEOUT_MS: expected a whole number of milliseconds, got "10s"'],
    [{ ROUTELANE_METRICS_TOKEN: "short" }, "ROUTELANE_METRICS_TOKEN: expected at least 16 characters"],
  ])("a bad value %p stops start-up naming it", (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });
});
