/**
 * Where a built controller goes: the builder hands a {@link ControllerSpec} to a
 * {@link ControllerHost}. The manager runs it ({@link buildController}); `kubeloop generate`
 * passes a host that only records declarations.
 */
import type { KubeObject } from "../api/index.ts";
import { InformerCache } from "../cache/index.ts";
import type { WatchClient } from "../watch/index.ts";
import { Controller, type ControllerDeps } from "./controller.ts";
import type { ControllerDeclaration } from "./declaration.ts";
import type { ControllerOptions } from "./options.ts";
import type { Reconciler } from "./reconciler.ts";

/** A declared controller with its reconciler and tuning: everything a host needs to run it. */
export interface ControllerSpec<T extends KubeObject> {
  /** What it reconciles, owns and watches. */
  readonly declaration: ControllerDeclaration<T>;
  /** The reconcile function. */
  readonly reconciler: Reconciler<T>;
  /** Tuning given with `withOptions`. */
  readonly options: ControllerOptions;
}

/**
 * What `controller(host)` builds on, and what an operator's `setup` receives: the manager, or
 * the recording host `kubeloop generate` uses to learn what an operator watches.
 *
 * @example
 * ```ts
 * export function setupWidgets(host: ControllerHost): void {
 *   host.cache.informer(Widget).addIndexer("by-secret", (w) => [w.spec.secretName]);
 *   controller(host).for(Widget).owns(ConfigMap).reconcile(reconcileWidget);
 * }
 * ```
 */
export interface ControllerHost {
  /** The shared informers: setup code adds indexes to them, map functions read them. */
  readonly cache: InformerCache;
  /** Takes a finished controller, to run it when the host starts (or only to record it). */
  addController<T extends KubeObject>(spec: ControllerSpec<T>): void;
}

/** What a host keeps of a controller it built: its name and kind, its queue, its loop, its health and its last reconciles. */
export type HostedController = Pick<
  Controller<KubeObject>,
  "name" | "primary" | "queue" | "enqueue" | "enqueueAll" | "run" | "abort" | "health" | "recentReconciles"
>;

/**
 * The {@link Controller} a spec describes, on the shared informers of `deps.cache`: a source per
 * declared kind, the primary kind's informer for `ctx.object` and resync. Informers of owned kinds
 * keep their objects' writers, so drift can be attributed; `ctx.owned` tells `ensureChild` their scopes.
 */
export function buildController<T extends KubeObject>(
  spec: ControllerSpec<T>,
  deps: ControllerDeps,
): Controller<T> {
  const { name, primary, owns, watches } = spec.declaration;
  const cache = deps.cache;
  for (const owned of owns) cache.informer(owned.type, owned.scope).retainWriters();
  const sources = [primary, ...owns, ...watches].map((kind) => kind.source(cache));
  const primaryInformer = cache.informer(primary.type, primary.scope);
  return new Controller(name, primaryInformer, sources, spec.reconciler, deps, spec.options, owns);
}

/** What the cache of a recording host would list and watch with: nothing, it never starts. */
const neverStarted: WatchClient = {
  listPage: () => Promise.reject(new Error("a recording host's cache never lists")),
  watchStream: () => Promise.reject(new Error("a recording host's cache never watches")),
};

/** A host that runs nothing: it keeps the declarations a `setup` hands it. */
class RecordingHost implements ControllerHost {
  readonly cache: InformerCache;
  readonly declarations: ControllerDeclaration[] = [];

  constructor(namespace: string | undefined) {
    this.cache = new InformerCache(neverStarted, { namespace });
  }

  addController<T extends KubeObject>(spec: ControllerSpec<T>): void {
    this.declarations.push(spec.declaration as ControllerDeclaration);
  }
}

/**
 * The controllers `setup` declares, learned by running it on a host that starts nothing (the
 * cache of `namespace`, never listed): how `kubeloop generate` derives RBAC, and how a sharded
 * manager learns which kinds its controllers reconcile before it runs them per shard.
 */
export async function recordDeclarations(
  setup: (host: ControllerHost) => void | Promise<void>,
  namespace?: string,
): Promise<ControllerDeclaration[]> {
  const host = new RecordingHost(namespace);
  await setup(host);
  return host.declarations;
}
