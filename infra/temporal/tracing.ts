/**
 * OpenTelemetry tracing of a run through the Temporal SDK's interceptors (@temporalio/interceptors-opentelemetry):
 * the CLI's client span (StartWorkflow), each workflow's spans (RunWorkflow, StartActivity, StartChildWorkflow…)
 * and each activity's (RunActivity), on whichever worker runs them, in one trace: the context travels in the
 * Temporal headers. Configured only by OpenTelemetry's standard variables: OTEL_TRACES_EXPORTER (otlp, console,
 * none), OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (read by the OTLP exporter itself),
 * OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_SDK_DISABLED. Neither an exporter nor an endpoint: off, and
 * nothing is loaded or intercepted (`tracing()` is null).
 *
 * The interceptors package is built on the 1.x tracing SDK and hands workflow spans (made inside the workflow
 * sandbox, exported through a sink) in that shape; the exporter is the 2.x one that the rest of node_modules
 * already pins (a peer of @mistralai/mistralai), so `toCurrentShape` renames the two fields that changed.
 */
import { context, propagation, type SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import { createRequire } from 'node:module';
import { EXIT_CODES, StopError } from '../../activities/faults.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface Tracing {
  clientInterceptors: WorkflowClientInterceptor[];
  activityInterceptors: ActivityInterceptorsFactory[];
  /** The sink through which the workflow sandbox hands its spans to this process's exporter. */
  sinks: NonNullable<WorkerOptions['sinks']>;
  /** Sends what is still buffered; called before the process exits. */
  shutdown(): Promise<void>;
}

/** Which exporter the variables ask for, or null for none (a bad value is a usage error, never ignored). */
export function tracesExporter(env: Env): 'otlp' | 'console' | null {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
  const named = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (named === 'none') return null;
  if (!named) return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : null;
  if (named === 'otlp' || named === 'console') {
    // The exporter installed speaks OTLP over HTTP with JSON bodies, which collectors take on 4318.
    const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/json').trim();
    if (named === 'otlp' && protocol !== 'http/json') {
      throw new StopError(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: only http/json is supported (a collector takes it on port 4318)`, EXIT_CODES.usage);
    }
    return named;
  }
  throw new StopError(`OTEL_TRACES_EXPORTER=${named}: not an exporter this tool has (otlp, console or none)`, EXIT_CODES.usage);
}

let installed: Tracing | null | undefined;

/** This process's tracing, set up on the first call from the variables (client and workers share it), or null. */
export function tracing(env: Env = process.env): Tracing | null {
  if (installed === undefined) installed = setUp(env);
  return installed;
}

/** The workflow interceptor modules to bundle: the OTel ones when tracing is on (a prebuilt bundle must be built with it on too). */
export function workflowTracingModules(env: Env = process.env): string[] {
  return tracesExporter(env) ? [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')] : [];
}

function setUp(env: Env): Tracing | null {
  const kind = tracesExporter(env);
  if (!kind) return null;
  // Loaded only when asked for: an untraced run pays nothing for the SDK.
  const require = createRequire(import.meta.url);
  const { BatchSpanProcessor, ConsoleSpanExporter, TracerProvider } = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');

  const service = env.OTEL_SERVICE_NAME || 'execretrieval';
  const resource: Resource = defaultResource().merge(resourceFromAttributes({ 'service.name': service })).merge(detectResources({ detectors: [envDetector] }));
  const exporter: SpanExporter = kind === 'otlp' ? new OTLPTraceExporter() : new ConsoleSpanExporter();
  const processor: SpanProcessor = new BatchSpanProcessor({ exporter });
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  // The interceptors inject and extract the context through the global propagator, and a client span is the
  // parent of what it starts only through the active context: both are no-ops until set.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracer = provider.getTracer('execretrieval');

  // Typed against the 1.x SDK nested under the interceptors package: only `onEnd` is called.
  const workflowSpans = { onStart() {}, onEnd: (s: unknown) => processor.onEnd(toCurrentShape(s as LegacySpan, resource)), forceFlush: async () => {}, shutdown: async () => {} };
  return {
    clientInterceptors: [new otel.OpenTelemetryWorkflowClientInterceptor({ tracer })],
    activityInterceptors: [(ctx) => ({ inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx, { tracer }), outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx) })],
    sinks: { exporter: otel.makeWorkflowExporter(workflowSpans as never, resource as never) },
    shutdown: () => provider.shutdown(),
  };
}

/** A workflow span as the 1.x SDK in the sandbox describes it. */
type LegacySpan = Omit<ReadableSpan, 'parentSpanContext' | 'instrumentationScope'> & {
  parentSpanId?: string;
  instrumentationLibrary?: { name: string; version?: string; schemaUrl?: string };
};

/** The 1.x span in the 2.x shape the exporter reads: its parent as a context, its library as a scope. */
function toCurrentShape(s: LegacySpan, resource: Resource): ReadableSpan {
  const own = s.spanContext();
  const parentSpanContext: SpanContext | undefined = s.parentSpanId ? { traceId: own.traceId, spanId: s.parentSpanId, traceFlags: own.traceFlags, isRemote: true } : undefined;
  const { parentSpanId: _p, instrumentationLibrary, ...rest } = s;
  return { ...rest, resource, parentSpanContext, instrumentationScope: instrumentationLibrary ?? { name: '@temporalio/interceptor-workflow' } };
}
