/**
 * A fake in-memory Lease store with the apiserver's resourceVersion rules, and a harness that
 * runs electors on a FakeClock and records what they report.
 */
import type { Lease, LeaseObject } from "../../../src/api/index.ts";
import {
  AlreadyExistsError,
  ConflictError,
  type DeleteOptions,
  InvalidError,
  type ListOptions,
  NotFoundError,
  type ObjectList,
  type ObjectOptions,
  ServerError,
  type StatusDetails,
  type WriteOptions,
} from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  type ElectionMetrics,
  type ElectionPhase,
  LeaderElector,
  type LeaderElectorOptions,
  type LeaseClient,
  microTime,
} from "../../../src/election/index.ts";

/** 2030-01-01T00:00:00Z: where every test's clock starts. */
export const T0 = Date.UTC(2030, 0, 1);

/** The Lease name the harness uses. */
export const LEASE = "lock";

type ErrorClass = new (status: StatusDetails, request: { method: string; path: string }) => Error;

function apiError(Class: ErrorClass, code: number, reason: string, method: string): Error {
  return new Class({ code, reason, message: `fake ${reason}` }, { method, path: `/leases/${LEASE}` });
}

/** The Lease API of one apiserver, in memory: resourceVersions, 404, 409 on stale writes and taken names. */
/** A replica's view of `store`, which a test can cut off: every call fails, as in a partition. */
export function cuttable(store: FakeLeaseStore): { client: FakeLeaseStore; link: { cut: boolean } } {
  const link = { cut: false };
  const client = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        link.cut ? Promise.reject(new Error("connection refused")) : value.apply(target, args);
    },
  });
  return { client, link };
}

export class FakeLeaseStore implements LeaseClient {
  readonly #leases = new Map<string, LeaseObject>();
  #version = 0;
  /** Each call made, by verb. */
  readonly calls: ("get" | "create" | "update" | "list" | "delete")[] = [];
  /** How many writes were refused with a 409 (stale resourceVersion or name taken). */
  conflicts = 0;
  /** While true, every call fails with a 500. */
  failing = false;
  /** While true, every call hangs until its signal aborts. */
  hanging = false;
  /** How many hung calls were aborted by their signal. */
  abortedCalls = 0;

  /** The stored Lease (a copy), if any. */
  lease(name = LEASE): LeaseObject | undefined {
    const lease = this.#leases.get(name);
    return lease && structuredClone(lease);
  }

  /** Writes `spec` directly, as another candidate (or a person) would, bumping the resourceVersion. */
  put(spec: NonNullable<LeaseObject["spec"]>, name = LEASE): void {
    const metadata = { name, namespace: "default", resourceVersion: String(++this.#version) };
    this.#leases.set(name, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata, spec });
  }

  /** Renews `holder`'s lease in place: a new renewTime at `now`, everything else kept. */
  renew(now: number, name = LEASE): void {
    const lease = this.lease(name);
    this.put({ ...lease?.spec, renewTime: microTime(now) }, name);
  }

  /** Every stored Lease, as a list answer (the namespace is not checked: the store has one). */
  async list(_type: typeof Lease, opts: ListOptions): Promise<ObjectList<LeaseObject>> {
    await this.#call("list", opts.signal);
    return {
      items: [...this.#leases.values()].map((lease) => structuredClone(lease)),
      resourceVersion: String(this.#version),
    };
  }

  async get(_type: typeof Lease, name: string, opts: ObjectOptions): Promise<LeaseObject> {
    await this.#call("get", opts.signal);
    const lease = this.lease(name);
    if (!lease) throw apiError(NotFoundError, 404, "NotFound", "GET");
    return lease;
  }

  async create(_type: typeof Lease, obj: LeaseObject, opts: WriteOptions): Promise<LeaseObject> {
    await this.#call("create", opts.signal);
    // The apiserver's rule for Lease names (a DNS-1123 subdomain), answered with its 422.
    if (!isDnsSubdomain(obj.metadata.name ?? "")) throw apiError(InvalidError, 422, "Invalid", "POST");
    if (this.#leases.has(obj.metadata.name ?? ""))
      this.#conflict(AlreadyExistsError, "AlreadyExists", "POST");
    return this.#save(obj);
  }

  async update(_type: typeof Lease, obj: LeaseObject, opts: WriteOptions): Promise<LeaseObject> {
    await this.#call("update", opts.signal);
    const current = this.#leases.get(obj.metadata.name ?? "");
    if (!current) throw apiError(NotFoundError, 404, "NotFound", "PUT");
    if (current.metadata.resourceVersion !== obj.metadata.resourceVersion) {
      this.#conflict(ConflictError, "Conflict", "PUT");
    }
    return this.#save(obj);
  }

  /** Deletes the Lease `name`; a 409 when a precondition does not hold, as the apiserver answers. */
  async delete(_type: typeof Lease, name: string, opts: DeleteOptions): Promise<undefined> {
    await this.#call("delete", opts.signal);
    const current = this.#leases.get(name);
    if (!current) throw apiError(NotFoundError, 404, "NotFound", "DELETE");
    const { uid, resourceVersion } = opts.preconditions ?? {};
    const { metadata } = current;
    if ((uid && uid !== metadata.uid) || (resourceVersion && resourceVersion !== metadata.resourceVersion)) {
      this.#conflict(ConflictError, "Conflict", "DELETE");
    }
    this.#leases.delete(name);
    return undefined;
  }

  #save(obj: LeaseObject): LeaseObject {
    const saved = structuredClone(obj);
    const uid = saved.metadata.uid ?? `uid-${saved.metadata.name}-${this.#version + 1}`;
    saved.metadata = {
      ...saved.metadata,
      namespace: "default",
      uid,
      resourceVersion: String(++this.#version),
    };
    this.#leases.set(saved.metadata.name ?? "", saved);
    return structuredClone(saved);
  }

  #conflict(Class: ErrorClass, reason: string, method: string): never {
    this.conflicts++;
    throw apiError(Class, 409, reason, method);
  }

  async #call(verb: FakeLeaseStore["calls"][number], signal: AbortSignal | undefined): Promise<void> {
    this.calls.push(verb);
    if (this.hanging) await this.#hang(signal);
    await Promise.resolve();
    signal?.throwIfAborted();
    if (this.failing) throw apiError(ServerError, 500, "InternalError", verb.toUpperCase());
  }

  #hang(signal: AbortSignal | undefined): Promise<never> {
    return new Promise((_, reject) => {
      signal?.addEventListener("abort", () => {
        this.abortedCalls++;
        reject(signal.reason);
      });
    });
  }
}

/**
 * The apiserver's rule for Lease names, written out from `IsDNS1123Subdomain`
 * (k8s.io/apimachinery/pkg/util/validation), which `ValidateLease` applies through
 * `NameIsDNSSubdomain`: at most 253 characters; dot-separated labels of lower-case alphanumerics
 * and `-`, each starting and ending alphanumeric.
 */
export function isDnsSubdomain(name: string): boolean {
  const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  return name.length > 0 && name.length <= 253 && name.split(".").every((part) => label.test(part));
}

/** Lets every pending promise callback run (one macrotask turn; no time passes on any clock). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One candidate under test and what it reported. */
export interface Candidate {
  elector: LeaderElector;
  /** `new:<id>`, `started`, `stopped` and `error:<phase>`, in order. */
  events: string[];
  /** The stop signal of each term, in order. */
  terms: AbortSignal[];
  /** The lost signal of each term, in order. */
  losses: (AbortSignal | undefined)[];
  /** Metric hook calls: `status=0|1` and `transition`. */
  metrics: string[];
  /** Errors passed to onError. */
  errors: unknown[];
  /** The promise of `run`. */
  running: Promise<void>;
  /** Aborts the run and waits for it to end. */
  stop(): Promise<void>;
}

/** A store and a clock shared by the candidates a test starts. */
export class Harness {
  readonly clock = new FakeClock(T0);
  readonly store = new FakeLeaseStore();

  /** Starts a candidate with `identity`; other options override the harness's. */
  start(identity: string, options: Partial<LeaderElectorOptions> = {}): Candidate {
    const candidate = { events: [], terms: [], losses: [], metrics: [], errors: [] } as unknown as Candidate;
    const controller = new AbortController();
    candidate.elector = new LeaderElector({
      client: this.store,
      clock: this.clock,
      random: () => 0, // No jitter: candidates retry every retryPeriod exactly.
      name: LEASE,
      identity,
      metrics: recordMetrics(candidate.metrics),
      onNewLeader: (id) => candidate.events.push(`new:${id}`),
      onStartedLeading: (signal, lost) => {
        candidate.events.push("started");
        candidate.terms.push(signal);
        candidate.losses.push(lost);
      },
      onStoppedLeading: () => candidate.events.push("stopped"),
      onError: (error: unknown, phase: ElectionPhase) => {
        candidate.events.push(`error:${phase}`);
        candidate.errors.push(error);
      },
      ...options,
    });
    candidate.running = candidate.elector.run(controller.signal);
    candidate.stop = () => {
      controller.abort(new Error("test shutdown"));
      return candidate.running;
    };
    return candidate;
  }

  /** Moves the clock forward by `ms` in `stepMs` steps, letting the electors act after each. */
  async advance(ms: number, stepMs = 100): Promise<void> {
    await flush();
    for (let left = ms; left > 0; left -= stepMs) {
      this.clock.advance(Math.min(stepMs, left));
      await flush();
    }
  }

  /** Advances until `at` milliseconds have passed since the start (on the monotonic clock). */
  async advanceTo(at: number, stepMs = 100): Promise<void> {
    await this.advance(at - this.clock.monotonicMs(), stepMs);
  }

  /** Advances step by step until `check` holds; returns the elapsed time since the start when it did. */
  async until(check: () => boolean, limitMs: number, stepMs = 100): Promise<number> {
    await flush();
    for (let spent = 0; !check(); spent += stepMs) {
      if (spent >= limitMs) throw new Error(`condition not met within ${limitMs} ms of fake time`);
      this.clock.advance(stepMs);
      await flush();
    }
    return this.clock.monotonicMs();
  }
}

function recordMetrics(calls: string[]): ElectionMetrics {
  return {
    masterStatus: (_name, value) => calls.push(`status=${value}`),
    leaderTransition: () => calls.push("transition"),
  };
}
