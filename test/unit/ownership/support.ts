/**
 * In-memory stand-ins for what src/ownership talks to: a JSON-patch client that records every
 * call, an event recorder and a drift reporting port that record what they are told, and a reconcile
 * context whose cache holds given children and tombstones and whose client stands for the apiserver.
 */
import {
  type ConfigMapObject,
  type KubeObject,
  keyOf,
  type ManagedFieldsEntry,
  type ResourceType,
  resourceType,
} from "../../../src/api/index.ts";
import type { InformerCache, InformerScope } from "../../../src/cache/index.ts";
import {
  AlreadyExistsError,
  type ApplyOptions,
  type Client,
  NotFoundError,
  type RequestSummary,
  type StatusCause,
  type StatusDetails,
} from "../../../src/client/index.ts";
import type { DriftMetrics } from "../../../src/controller/index.ts";
import type { EventOptions, EventRecorder } from "../../../src/events/index.ts";
import {
  type ChildContext,
  type FinalizerClient,
  setControllerReference,
} from "../../../src/ownership/index.ts";
import { APPLIED_ANNOTATION, fingerprintOf } from "../../../src/ownership/internal/fingerprint.ts";

export interface WidgetObject extends KubeObject {
  spec?: { message?: string };
}

/** A namespaced custom kind for owners and finalizer subjects. */
export const Widget = resourceType<WidgetObject>("example.com/v1", "Widget", "widgets", true);
/** A cluster-scoped custom kind. */
export const Cluster = resourceType<KubeObject>("example.com/v1", "Cluster", "clusters", false);

/** A Widget as the apiserver would return it. */
export function widget(overrides: Partial<WidgetObject["metadata"]> = {}): WidgetObject {
  return {
    apiVersion: Widget.apiVersion,
    kind: Widget.kind,
    metadata: { name: "w", namespace: "ns", uid: "uid-w", resourceVersion: "7", ...overrides },
    spec: { message: "hi" },
  };
}

/** One JSON-patch call the fake client received. */
export interface PatchCall {
  type: ResourceType;
  name: string;
  patch: unknown;
  opts: { type: "json"; namespace?: string };
}

/** Records patches in `calls` (and in the shared `log`) and answers with `respond`, or throws `fail`. */
export class FakeFinalizerClient implements FinalizerClient {
  readonly calls: PatchCall[] = [];
  fail: Error | undefined;
  constructor(
    private readonly log: string[] = [],
    private readonly respond: (call: PatchCall) => KubeObject = () => widget(),
  ) {}

  async patch<T extends KubeObject>(
    type: ResourceType<T>,
    name: string,
    patch: unknown,
    opts: { type: "json"; namespace?: string },
  ): Promise<T> {
    const call = { type, name, patch: structuredClone(patch), opts: { ...opts } };
    this.calls.push(call);
    this.log.push("patch");
    if (this.fail) throw this.fail;
    return this.respond(call) as T;
  }
}

/** One event the fake recorder was given. */
export interface RecordedEvent {
  type: "Normal" | "Warning";
  regarding: unknown;
  reason: string;
  action: string;
  note?: string;
  related?: unknown;
}

/** Records events; stands in for an {@link EventRecorder} (only `normal`/`warning` are used). */
export function fakeRecorder(): { recorder: EventRecorder; events: RecordedEvent[] } {
  const events: RecordedEvent[] = [];
  const record =
    (type: RecordedEvent["type"]) =>
    (regarding: unknown, reason: string, action: string, note?: string, options?: EventOptions) =>
      events.push({ type, regarding, reason, action, note, related: options?.related });
  const recorder = { normal: record("Normal"), warning: record("Warning") };
  return { recorder: recorder as unknown as EventRecorder, events };
}

/** A reporting port that records `driftRepaired(kind, manager)` calls. */
export function fakeReport(): { report: DriftMetrics; drifts: [string, string][] } {
  const drifts: [string, string][] = [];
  return { report: { driftRepaired: (kind, manager) => drifts.push([kind, manager]) }, drifts };
}

/** A managedFields summary entry, as owned informers keep it. */
export function entry(
  manager: string,
  time: string,
  operation: "Apply" | "Update" = "Update",
  subresource?: string,
): ManagedFieldsEntry {
  return subresource ? { manager, operation, time, subresource } : { manager, operation, time };
}

/** A full managedFields entry as the apiserver returns it, owning `fieldsV1`. */
export function owning(
  manager: string,
  time: string,
  fieldsV1: object,
  operation: "Apply" | "Update" = "Update",
) {
  return { manager, operation, time, fieldsType: "FieldsV1", fieldsV1 };
}

/** A ConfigMap in `ns`. */
export function configMap(
  name: string,
  data: Record<string, string>,
  metadata: Partial<ConfigMapObject["metadata"]> = {},
): ConfigMapObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns", ...metadata }, data };
}

/**
 * The annotations of a child `ensureChild` wrote from `desired` for `owner`: the fingerprint of
 * what it wrote, as a settled child carries it.
 */
export function writtenFrom(owner: KubeObject, desired: KubeObject): Record<string, string> {
  const written = structuredClone(desired);
  setControllerReference(owner, written);
  return { [APPLIED_ANNOTATION]: fingerprintOf(written) };
}

/** One server-side apply the fake client received. */
export interface ApplyCall {
  type: ResourceType;
  obj: KubeObject;
  opts: ApplyOptions | undefined;
}

/** One JSON patch of a child the fake client received. */
export interface ChildPatchCall {
  key: string;
  patch: unknown;
}

/** A failure as the apiserver answers it, as the client throws it. */
export function apiError<E>(
  Kind: new (status: StatusDetails, request: RequestSummary) => E,
  code: number,
  reason: string,
  causes?: StatusCause[],
): E {
  const status = { code, reason, message: reason, details: causes ? { causes } : undefined };
  return new Kind(status, { method: "TEST", path: "/" });
}

/**
 * A reconcile context for ensureChild: a cache holding `stored` and `tombstones`, and a client
 * that records creates, applies, patches and reads (and their order, in `calls`), and answers reads from `server` (default:
 * `stored`), which has the full `managedFields` that the cache only summarizes. A create throws
 * `createError`, or fails with AlreadyExists for a name `server` holds; an apply answers
 * `applied(obj)` or throws `applyError`; a patch throws the next of `patchErrors`, else answers
 * what `server` holds.
 */
export function childContext(
  opts: {
    stored?: KubeObject[];
    tombstones?: KubeObject[];
    server?: KubeObject[];
    fieldManager?: string;
    owned?: ChildContext["owned"];
    applied?: (obj: KubeObject) => KubeObject;
    applyError?: Error;
    createError?: Error;
    clock?: ChildContext["clock"];
    /** Thrown by the first patches, one each. */
    patchErrors?: Error[];
  } = {},
) {
  const applies: ApplyCall[] = [];
  const creates: KubeObject[] = [];
  const patches: ChildPatchCall[] = [];
  const gets: string[] = [];
  const calls: ("create" | "apply" | "patch" | "get")[] = [];
  const stored = new Map((opts.stored ?? []).map((o) => [keyOf(o), o]));
  const server = new Map((opts.server ?? opts.stored ?? []).map((o) => [keyOf(o), o]));
  const tombstones = new Map((opts.tombstones ?? []).map((o) => [keyOf(o), o]));
  const informers: { type: ResourceType; scope?: InformerScope }[] = [];
  const client = {
    fieldManager: opts.fieldManager ?? "widgets",
    async create(_type: ResourceType, obj: KubeObject) {
      calls.push("create");
      creates.push(structuredClone(obj));
      if (opts.createError) throw opts.createError;
      if (server.has(keyOf(obj))) throw apiError(AlreadyExistsError, 409, "AlreadyExists");
      return obj;
    },
    async apply(type: ResourceType, obj: KubeObject, applyOpts?: ApplyOptions) {
      calls.push("apply");
      applies.push({ type, obj: structuredClone(obj), opts: applyOpts });
      if (opts.applyError) throw opts.applyError;
      return opts.applied?.(obj) ?? obj;
    },
    async patch(_type: ResourceType, name: string, patch: unknown, patchOpts: { namespace?: string }) {
      const key = patchOpts.namespace ? `${patchOpts.namespace}/${name}` : name;
      calls.push("patch");
      patches.push({ key, patch });
      const failure = opts.patchErrors?.shift();
      if (failure) throw failure;
      return server.get(key);
    },
    async get(_type: ResourceType, name: string, getOpts: { namespace?: string } = {}) {
      const key = getOpts.namespace ? `${getOpts.namespace}/${name}` : name;
      calls.push("get");
      gets.push(key);
      const found = server.get(key);
      if (!found) throw apiError(NotFoundError, 404, "NotFound");
      return structuredClone(found);
    },
  };
  const informer = {
    store: { get: (key: string) => stored.get(key) },
    tombstone: (key: string) => tombstones.get(key),
  };
  const cache = {
    informer(type: ResourceType, scope?: InformerScope) {
      informers.push(scope ? { type, scope } : { type });
      return informer;
    },
    scopeFor: () => ({}),
  };
  const { recorder, events } = fakeRecorder();
  const { report, drifts } = fakeReport();
  const ctx: ChildContext = {
    client: client as unknown as Client,
    cache: cache as unknown as InformerCache,
    recorder,
    report,
    owned: opts.owned,
    clock: opts.clock,
  };
  return { ctx, applies, creates, patches, gets, calls, events, drifts, informers };
}
