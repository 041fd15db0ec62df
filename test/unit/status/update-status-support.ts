/**
 * A scripted {@link StatusClient} for the status writer's unit tests: it records every call and
 * answers from queues the test fills (an object, or an error to throw); and an event recorder and
 * a reporting port that keep what they are told.
 */
import { type KubeObject, resourceType } from "../../../src/api/index.ts";
import {
  type ApiError,
  ConflictError,
  NotFoundError,
  type StatusDetails,
} from "../../../src/client/index.ts";
import type { EventSubject } from "../../../src/events/index.ts";
import type {
  Condition,
  StatusClient,
  TransitionMetrics,
  TransitionRecorder,
} from "../../../src/status/index.ts";

/** The test kind's object: a counter plus conditions in status. */
export interface GadgetObject extends KubeObject {
  spec: { size: number };
  status?: { count?: number; note?: string; extra?: { a?: number; b?: number }; conditions?: Condition[] };
}

/** The test kind. */
export const Gadget = resourceType<GadgetObject>("example.com/v1", "Gadget", "gadgets", true);

/** A Gadget at `resourceVersion` with `status`. */
export function gadget(resourceVersion: string, status?: GadgetObject["status"]): GadgetObject {
  return {
    apiVersion: "example.com/v1",
    kind: "Gadget",
    metadata: { name: "g", namespace: "ns", resourceVersion, generation: 1 },
    spec: { size: 1 },
    ...(status === undefined ? {} : { status }),
  };
}

/** One call the fake received. */
export interface Call {
  verb: "get" | "patch" | "apply" | "read";
  name: string;
  body?: unknown;
  opts: Record<string, unknown>;
}

type Answer = GadgetObject | ApiError;

function failure(code: number, reason: string): [StatusDetails, { method: string; path: string }] {
  return [
    { code, reason, message: reason },
    { method: "PATCH", path: "/apis/example.com/v1/gadgets/g" },
  ];
}

/** A 409 Conflict as the client throws it. */
export const conflict = (): ApiError => new ConflictError(...failure(409, "Conflict"));
/** A 404 as the client throws it. */
export const notFound = (): ApiError => new NotFoundError(...failure(404, "NotFound"));

/**
 * Records calls; writes answer from `writes`, status reads from `reads`, reads of the object itself
 * (`read`) from `objectReads` (default: echo / not found / not found).
 */
export class FakeStatusClient implements StatusClient {
  readonly calls: Call[] = [];
  readonly writes: Answer[] = [];
  readonly reads: Answer[] = [];
  readonly objectReads: Answer[] = [];

  readonly get: StatusClient["get"] = async (_type, name, opts = {}) =>
    this.#answer({ verb: "read", name, opts: { ...opts } }, this.objectReads);

  readonly status: StatusClient["status"] = {
    get: async (_type, name, opts = {}) => this.#answer({ verb: "get", name, opts: { ...opts } }, this.reads),
    patch: async (_type, name, body, opts) =>
      this.#answer({ verb: "patch", name, body, opts: { ...opts } }, this.writes),
    apply: async (_type, obj, opts = {}) =>
      this.#answer(
        { verb: "apply", name: obj.metadata.name ?? "", body: obj, opts: { ...opts } },
        this.writes,
      ),
  };

  /** The `status` sent by the `index`th write of `verb`; throws when there was none. */
  sentStatus(verb: "patch" | "apply", index = 0): unknown {
    const call = this.of(verb)[index];
    if (!call) throw new Error(`no ${verb} #${index} was sent`);
    return (call.body as { status?: unknown }).status;
  }

  /** The calls of one verb. */
  of(verb: Call["verb"]): Call[] {
    return this.calls.filter((c) => c.verb === verb);
  }

  /** Answers as whatever kind the writer asked about (`never` fits every `T`). */
  async #answer(call: Call, queue: Answer[]): Promise<never> {
    this.calls.push(call);
    const next = queue.shift() ?? (call.verb === "get" || call.verb === "read" ? notFound() : gadget("999"));
    if (next instanceof Error) throw next;
    return structuredClone(next) as never;
  }
}

/** Keeps each event as `[type, kind, reason, action, note]`. */
export class FakeRecorder implements TransitionRecorder {
  readonly events: string[][] = [];
  normal(regarding: EventSubject, reason: string, action: string, note?: string): void {
    this.events.push(["Normal", String(regarding.kind), reason, action, note ?? ""]);
  }
  warning(regarding: EventSubject, reason: string, action: string, note?: string): void {
    this.events.push(["Warning", String(regarding.kind), reason, action, note ?? ""]);
  }
}

/** A reporting port that keeps the labels of every count. */
export function countingReport(): { report: TransitionMetrics; counted: string[][] } {
  const counted: string[][] = [];
  return { report: { conditionTransitioned: (...labels) => counted.push(labels) }, counted };
}
