import type { Span, Tracer } from "@opentelemetry/api";
import { NOOP_SPAN, type SpanAttributes, type TraceSpan } from "../canonical/trace-span.ts";

export interface Tracing {
  readonly enabled: boolean;
  startSpan(name: string, attributes?: SpanAttributes): TraceSpan;
  /** Exports what is pending; part of the shutdown drain. */
  shutdown(): Promise<void>;
}

export const NOOP_TRACING: Tracing = Object.freeze({
  enabled: false,
  startSpan: () => NOOP_SPAN,
  shutdown: async () => {},
});

function clean(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(attributes ?? {})) if (value !== undefined) out[name] = value;
  return out;
}

type Api = typeof import("@opentelemetry/api");

function wrap(api: Api, tracer: Tracer, span: Span): TraceSpan {
  return {
    setAttributes: (attributes) => void span.setAttributes(clean(attributes)),
    fail: (message) => void span.setStatus({ code: api.SpanStatusCode.ERROR, message }),
    end: () => span.end(),
    child(name, attributes) {
      const parent = api.trace.setSpan(api.context.active(), span);
      return wrap(api, tracer, tracer.startSpan(name, { attributes: clean(attributes) }, parent));
    },
  };
}

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT; unset → the no-op tracer and nothing loaded. */
  readonly endpoint: string | undefined;
  readonly serviceVersion: string;
}

/**
 * OpenTelemetry over OTLP/HTTP, loaded only when an endpoint is configured, so a gateway without
 * one neither imports the SDK nor allocates a span per request. Parents are passed explicitly
 * (no async context manager), which is all three levels need.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  if (!options.endpoint) return NOOP_TRACING;
  const [api, base, exporterModule, resources, conventions] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  // The variable names the base endpoint; the traces signal path is appended, as the OTLP spec says.
  const url = `${options.endpoint.replace(/\/+$/, "")}/v1/traces`;
  const provider = new base.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      [conventions.ATTR_SERVICE_NAME]: "routelane",
      [conventions.ATTR_SERVICE_VERSION]: options.serviceVersion,
    }),
    spanProcessors: [new base.BatchSpanProcessor(new exporterModule.OTLPTraceExporter({ url }), { scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer("routelane", options.serviceVersion);
  return {
    enabled: true,
    startSpan: (name, attributes) => wrap(api, tracer, tracer.startSpan(name, { attributes: clean(attributes) })),
    async shutdown() {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}
