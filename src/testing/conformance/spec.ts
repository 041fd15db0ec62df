/**
 * What a conformance run needs to know about an operator: where its module is, which objects to
 * create in a test namespace, and, where the defaults do not fit, when an object has settled, how
 * to change its spec, how to tamper with an output, and how long things may take.
 */
import type { KubeObject, ResourceType } from "../../api/index.ts";
import { kstatus } from "../../status/index.ts";
import { ConformanceError } from "./errors.ts";

/** One JSON Patch operation (RFC 6902). */
export interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "test";
  path: string;
  value?: unknown;
}

/** Deadlines and windows of a run, in milliseconds. */
export interface ConformanceTimings {
  /** How long a namespace's fixtures may take to settle. Default 120 s. */
  convergeMs?: number;
  /** How long a repair (a deleted or tampered output, a wiped status, a deletion) may take. Default 60 s. */
  repairMs?: number;
  /** No reconcile write for this long, with idle queues, counts as settled. Default 2 s. */
  quietMs?: number;
  /**
   * The operator's watch inactivity detection during the run: a watch silent this long reconnects.
   * Default 12 s (180 s in production), so that the missed-events check takes seconds, not minutes.
   */
  watchInactivityMs?: number;
  /** How long generation-honesty holds the operator's output writes after a spec change. Default 5 s. */
  holdMs?: number;
  /**
   * The period of the operator's informer relists during the run (4 min in production), so that
   * cache-heals sees a cache repaired in seconds. Default 15 s.
   */
  relistMs?: number;
}

/**
 * A conformance spec: the operator under test and how to exercise it. Pass it to `defineConformance`.
 * `T` is the object type of the operator's primary kind (`ObjectOf<typeof Widget>`), which
 * `settled` and `mutate` receive; the default, `KubeObject`, suits an operator of several kinds.
 */
export interface ConformanceSpec<T extends KubeObject = KubeObject> {
  /** The operator module (default export of `defineOperator`), relative to `root` unless absolute. */
  operator: string | URL;
  /** Directory that relative paths are resolved against. Default: the current directory. */
  root?: string;
  /**
   * The objects to create in a test namespace, in order: inputs first (ConfigMaps, Services, ...),
   * then the operator's primary objects. Called once per namespace the kit uses.
   */
  fixtures: (namespace: string) => KubeObject[];
  /**
   * Whether a primary object has settled. Default {@link defaultSettled}: kstatus `Current` and
   * `status.observedGeneration` equal to `metadata.generation`.
   */
  settled?(obj: T): boolean;
  /** The kinds of the operator's outputs. Default: the kinds its controllers declare with `owns()`. */
  outputs?: readonly ResourceType[];
  /**
   * Field managers the operator writes outputs with, besides its name (the manager's default), for
   * reading which fields of an output it owns from `managedFields`.
   */
  fieldManagers?: readonly string[];
  /**
   * A spec change of a primary object (the first primary among the fixtures): returns the object with
   * a different spec, a different one for each `round` (1, 2, ...). It should change at least one output. Used by generation-honesty (which
   * is skipped without it), missed-events, crash-safety and transient-failures.
   */
  mutate?(obj: T, round: number): T;
  /**
   * Tampers with an output: a JSON Patch the kit sends to it, or `undefined` for one it should leave
   * alone. Default: change one field the operator wrote (data first, then spec, then labels).
   */
  tamper?: (output: KubeObject) => JsonPatchOperation[] | undefined;
  /**
   * Which outputs the operator holds exclusively, removing any field another manager adds to them
   * (kubeloop's `ensureChild` default): `false` for none, as for outputs other tools write too.
   * Default: every output kind.
   */
  exclusiveOutputs?: false | readonly ResourceType[];
  /**
   * A field another manager might add to an exclusive output, as a JSON Patch of `add` operations
   * the kit sends under its own field manager, or `undefined` to leave the output alone. Default: a
   * new key in `data`, else a new `env` entry in the first container of a pod template.
   */
  addForeignField?: (output: KubeObject) => JsonPatchOperation[] | undefined;
  /**
   * What the operator does when one of its outputs is deleted: `recreate` it (the default), or
   * `leave` it deleted — for a run-to-completion output whose re-creation would repeat a side effect
   * (a Job that ran a test); its owner may report the loss in its status. With `leave`,
   * outputs-watched expects a deleted output to stay deleted, and the other checks tamper with
   * outputs rather than delete them.
   */
  outputDeletion?: "recreate" | "leave";
  /**
   * The messy starts of `converge`. By default two: outputs present but partly wrong while the
   * operator was down, and outputs controlled by another object. A function adds a third: from the
   * outputs of a clean run (the fields the operator wrote, without owner references) it returns
   * objects to create, with the primary objects deleted, before they are created again — e.g. the
   * outputs without an owner, for an operator that adopts them. `false` skips the messy starts (for
   * an operator whose outputs have generated names).
   */
  messyStart?: false | ((outputs: KubeObject[]) => KubeObject[]);
  /** How many times crash-safety kills the operator. Default 5. */
  crashes?: number;
  /** Seed of the run's random choices (kill points, fault sampling). Default 1. */
  seed?: number;
  /** Extra Node.js flags for the operator process. */
  nodeArgs?: readonly string[];
  /** pino level of the operator's logs, which failure reports quote. Default `info`. */
  logLevel?: string;
  timings?: ConformanceTimings;
}

/** The default timings. */
export const defaultTimings: Required<ConformanceTimings> = Object.freeze({
  convergeMs: 120_000,
  repairMs: 60_000,
  quietMs: 2_000,
  watchInactivityMs: 12_000,
  holdMs: 5_000,
  relistMs: 15_000,
});

/**
 * The default `settled`: the object's kstatus is `Current` and `status.observedGeneration` equals
 * `metadata.generation`, so the status speaks for the latest spec.
 */
export function defaultSettled(obj: KubeObject): boolean {
  const observed = (obj as { status?: { observedGeneration?: unknown } }).status?.observedGeneration;
  return observed === obj.metadata.generation && kstatus(obj).status === "Current";
}

/**
 * Declares a conformance spec; checks its shape and returns it. A project's `test/conformance.ts`
 * default-exports one, for `kubeloop verify`. Its type argument (or the parameter type of
 * `mutate`) types the primary objects `mutate` and `settled` receive.
 *
 * @example
 * ```ts
 * export default defineConformance<GreetingObject>({
 *   operator: "src/operator.ts",
 *   fixtures: (namespace) => [
 *     {
 *       apiVersion: Greeting.apiVersion,
 *       kind: Greeting.kind,
 *       metadata: { name: "hello", namespace },
 *       spec: { message: "hi" },
 *     },
 *   ],
 *   mutate: (obj, round) => ({ ...obj, spec: { ...obj.spec, message: `changed ${round}` } }),
 * });
 * ```
 */
export function defineConformance<T extends KubeObject = KubeObject>(
  spec: ConformanceSpec<T>,
): ConformanceSpec {
  if (typeof spec?.operator !== "string" && !(spec?.operator instanceof URL)) {
    throw new ConformanceError("the conformance spec needs `operator`: the path of the operator module");
  }
  if (typeof spec.fixtures !== "function") {
    throw new ConformanceError(
      "the conformance spec needs `fixtures(namespace)`: the objects to create in a test namespace",
    );
  }
  if (spec.crashes !== undefined && !(Number.isInteger(spec.crashes) && spec.crashes >= 1)) {
    throw new ConformanceError(`crashes must be a whole number >= 1, not ${spec.crashes}`);
  }
  for (const [name, value] of Object.entries(spec.timings ?? {})) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new ConformanceError(`timings.${name} must be a positive number of milliseconds, not ${value}`);
    }
  }
  return spec;
}
