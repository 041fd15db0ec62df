/**
 * The controller builder: sugar that reads as a sentence over {@link Controller} and
 * {@link informerSource}. Each method says which lower-level call it stands for.
 */
import type { KubeObject, ResourceType } from "../api/index.ts";
import type { InformerCache, InformerScope } from "../cache/index.ts";
import { Controller, type ControllerDeps, type ControllerOptions } from "./controller.ts";
import type { Predicate } from "./predicate.ts";
import type { Reconciler } from "./reconciler.ts";
import { informerSource, type MapFn, mapToOwner, type Source, self } from "./source.ts";

/** Where controllers run: the manager implements it. */
export interface ControllerHost {
  /** The shared informers. */
  readonly cache: InformerCache;
  /** Dependencies for a controller of this name (client, logger, recorder, metrics). */
  controllerDeps(name: string): ControllerDeps;
  /** Adds a built controller; it starts with the host. */
  register(controller: Controller<KubeObject>): void;
}

/** The kinds a controller reads and writes, for RBAC generation. */
export interface ControllerDeclaration {
  primary: ResourceType;
  owns: ResourceType[];
  watches: ResourceType[];
}

interface SourceSpec {
  type: ResourceType;
  map: MapFn;
  predicates: Predicate[];
  label: string;
  scope?: InformerScope;
}

/** Options of a watched kind. */
export interface WatchOptions<T extends KubeObject> {
  /** Filters events; all must pass. */
  predicates?: Predicate<T>[];
  /** Informer scope instead of the cache's default for the kind. */
  scope?: InformerScope;
}

/**
 * Builds a controller: `controller(manager).for(Widget).owns(ConfigMap).reconcile(fn)`.
 *
 * @example
 * ```ts
 * controller(manager)
 *   .for(Widget, { predicates: [generationChanged] })
 *   .owns(ConfigMap)
 *   .watches(Secret, (secret) => widgetsUsing(secret))
 *   .withOptions({ concurrency: 4 })
 *   .reconcile(async (ctx) => { ... });
 * ```
 */
export class ControllerBuilder<T extends KubeObject> {
  readonly #host: ControllerHost;
  #name: string | undefined;
  #primary: SourceSpec | undefined;
  readonly #sources: SourceSpec[] = [];
  #options: ControllerOptions = {};

  constructor(host: ControllerHost, name?: string) {
    this.#host = host;
    this.#name = name;
  }

  /** Names the controller (default: the primary kind in lower case). */
  named(name: string): this {
    this.#name = name;
    return this;
  }

  /**
   * The kind this controller reconciles. Equivalent to `watches(type, self)`, and it also makes
   * `ctx.object` and resync use that kind.
   */
  for<P extends KubeObject>(type: ResourceType<P>, opts: WatchOptions<P> = {}): ControllerBuilder<P> {
    const next = this as unknown as ControllerBuilder<P>;
    next.#primary = {
      type,
      map: self,
      predicates: (opts.predicates ?? []) as Predicate[],
      label: "watch",
      scope: opts.scope,
    };
    return next;
  }

  /**
   * A kind this controller creates and controls. Equivalent to
   * `watches(type, mapToOwner(primary))`: a change of an object whose controller reference
   * points at a primary object queues that primary object.
   */
  owns<C extends KubeObject>(type: ResourceType<C>, opts: WatchOptions<C> = {}): this {
    const primary = this.#requirePrimary("owns");
    this.#host.cache.informer(type, opts.scope).retainWriters();
    this.#sources.push({
      type,
      map: mapToOwner(primary.type),
      predicates: (opts.predicates ?? []) as Predicate[],
      label: "owned",
      scope: opts.scope,
    });
    return this;
  }

  /** Any other kind: `map` turns a changed object into the keys of primary objects to reconcile. */
  watches<W extends KubeObject>(type: ResourceType<W>, map: MapFn<W>, opts: WatchOptions<W> = {}): this {
    this.#sources.push({
      type,
      map: map as MapFn,
      predicates: (opts.predicates ?? []) as Predicate[],
      label: "mapped",
      scope: opts.scope,
    });
    return this;
  }

  /** Tuning: concurrency, resync period, rate limiter, error policy, shutdown grace. */
  withOptions(options: ControllerOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /** Finishes the controller with its reconciler and registers it with the host. */
  reconcile(reconciler: Reconciler<T>): Controller<T> & { readonly declaration: ControllerDeclaration } {
    const primary = this.#requirePrimary("reconcile");
    const name = this.#name ?? primary.type.kind.toLowerCase();
    const cache = this.#host.cache;
    const primaryInformer = cache.informer(primary.type as ResourceType<T>, primary.scope);
    const sources: Source[] = [primary, ...this.#sources].map((spec) =>
      informerSource(cache.informer(spec.type, spec.scope), spec.map, spec.predicates, spec.label),
    );
    const controller = new Controller<T>(
      name,
      primaryInformer,
      sources,
      reconciler,
      this.#host.controllerDeps(name),
      this.#options,
    );
    const declaration: ControllerDeclaration = {
      primary: primary.type,
      owns: this.#sources.filter((s) => s.label === "owned").map((s) => s.type),
      watches: this.#sources.filter((s) => s.label === "mapped").map((s) => s.type),
    };
    const built = Object.assign(controller, { declaration });
    this.#host.register(built as unknown as Controller<KubeObject>);
    return built;
  }

  #requirePrimary(method: string): SourceSpec {
    if (!this.#primary) throw new TypeError(`controller builder: call .for(kind) before .${method}()`);
    return this.#primary;
  }
}

/** Starts building a controller hosted by `host` (a manager). */
export function controller(host: ControllerHost, name?: string): ControllerBuilder<KubeObject> {
  return new ControllerBuilder(host, name);
}
