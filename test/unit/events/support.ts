/** A minimal in-memory events.k8s.io client, a recording logger and helpers to drive a recorder on a FakeClock. */
import type { EventObject, KubeObject } from "../../../src/api/index.ts";
import {
  AlreadyExistsError,
  type ApiError,
  NotFoundError,
  type PatchType,
  type RequestSummary,
  ServerError,
  type StatusDetails,
  type WriteOptions,
} from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { type EventClient, EventRecorder, type EventRecorderOptions } from "../../../src/events/index.ts";

/** One call the fake client received. */
export type Call =
  | { verb: "create"; namespace: string; name: string; body: EventObject }
  | {
      verb: "patch";
      namespace: string;
      name: string;
      patch: { series: { count: number; lastObservedTime: string } };
      type: PatchType;
    };

/** Fails the next call when it returns an error; `undefined` lets it through. */
export type Fault = (call: Call) => Error | undefined;

/** Stores Events by `namespace/name` like the apiserver would, and records every call. */
export class FakeEventClient implements EventClient {
  readonly calls: Call[] = [];
  readonly stored = new Map<string, EventObject>();
  /** Consulted (and consumed) in order, one per call. */
  readonly faults: Fault[] = [];
  /** While set, every call waits for it. */
  gate: Promise<void> | undefined;

  async create(_type: unknown, obj: EventObject, opts?: WriteOptions): Promise<EventObject> {
    const namespace = opts?.namespace ?? obj.metadata.namespace ?? "";
    const call: Call = {
      verb: "create",
      namespace,
      name: obj.metadata.name ?? "",
      body: structuredClone(obj),
    };
    await this.#enter(call, opts?.signal);
    const key = `${namespace}/${call.name}`;
    if (this.stored.has(key)) throw apiError(AlreadyExistsError, 409, "AlreadyExists", "POST", key);
    this.stored.set(key, structuredClone(obj));
    return obj;
  }

  async patch(
    _type: unknown,
    name: string,
    patch: unknown,
    opts: WriteOptions & { type: PatchType },
  ): Promise<EventObject> {
    const namespace = opts.namespace ?? "";
    const call = { verb: "patch", namespace, name, patch: structuredClone(patch), type: opts.type } as Call;
    await this.#enter(call, opts.signal);
    const key = `${namespace}/${name}`;
    const current = this.stored.get(key);
    if (!current) throw apiError(NotFoundError, 404, "NotFound", "PATCH", key);
    const merged = { ...current, ...(patch as Partial<EventObject>) };
    this.stored.set(key, merged);
    return merged;
  }

  /** The calls of one verb. */
  callsOf<V extends Call["verb"]>(verb: V): Extract<Call, { verb: V }>[] {
    return this.calls.filter((c): c is Extract<Call, { verb: V }> => c.verb === verb);
  }

  /** The stored Events. */
  events(): EventObject[] {
    return [...this.stored.values()];
  }

  async #enter(call: Call, signal?: AbortSignal): Promise<void> {
    this.calls.push(call);
    if (this.gate !== undefined) await Promise.race([this.gate, aborted(signal)]);
    signal?.throwIfAborted();
    const error = this.faults.shift()?.(call);
    if (error) throw error;
  }
}

function aborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** An ApiError of class `Class` as the client would raise it. */
export function apiError<E extends ApiError>(
  Class: new (status: StatusDetails, request: RequestSummary) => E,
  code: number,
  reason: string,
  method = "POST",
  path = "/apis/events.k8s.io/v1/namespaces/x/events",
): E {
  return new Class({ code, reason, message: `${reason} (test)` }, { method, path });
}

/** A 503 from the apiserver: transient. */
export const unavailable = (): Fault => () => apiError(ServerError, 503, "ServiceUnavailable");

/** A logger that keeps every warning. */
export function recordingLogger(): {
  warn(obj: object, msg: string): void;
  lines: { obj: object; msg: string }[];
} {
  const lines: { obj: object; msg: string }[] = [];
  return { lines, warn: (obj, msg) => lines.push({ obj, msg }) };
}

/** A recorder on a FakeClock (starting at a fixed date), a fake client and a recording logger. */
export function setup(options: Partial<EventRecorderOptions> = {}) {
  const clock = new FakeClock(Date.UTC(2025, 0, 2, 3, 4, 5, 678));
  const client = new FakeEventClient();
  const logger = recordingLogger();
  const recorder = new EventRecorder(client, {
    reportingController: "example.com/widget-controller",
    reportingInstance: "widget-controller-0",
    clock,
    logger,
    ...options,
  });
  return { clock, client, logger, recorder };
}

/** Lets pending promise callbacks run (one macrotask turn; no time passes on any clock). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Awaits `promise` while advancing `clock` by `stepMs` per turn, for work that sleeps on the clock. */
export async function driven<T>(
  clock: FakeClock,
  promise: Promise<T>,
  stepMs = 1000,
  maxSteps = 10_000,
): Promise<T> {
  let done = false;
  const tracked = promise.finally(() => {
    done = true;
  });
  for (let step = 0; !done && step < maxSteps; step++) {
    await settle();
    if (!done) clock.advance(stepMs);
  }
  return tracked;
}

/** A ConfigMap-like namespaced object. */
export function configMap(
  name: string,
  namespace = "shop",
  extra: Partial<KubeObject["metadata"]> = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: "7", ...extra },
  };
}
