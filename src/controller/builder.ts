/**
 * The controller builder: a sentence (`for` / `owns` / `watches` / `reconcile`) that declares a
 * controller and hands it to a {@link ControllerHost}. Each method says which source it stands for.
 */
import type { KubeObject, ResourceType } from "../api/index.ts";
import {
  type ControllerDeclaration,
  type WatchedKind,
  type WatchOptions,
  watchedKind,
} from "./declaration.ts";
import { ControllerBuilderError } from "./errors.ts";
import type { ControllerHost } from "./host.ts";
import type { ControllerOptions } from "./options.ts";
import type { Reconciler } from "./reconciler.ts";
import { type MapFn, mapToOwner, self } from "./source.ts";

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
 *   .reconcile(reconcileWidget);
 * ```
 */
export class ControllerBuilder<T extends KubeObject> {
  readonly #host: ControllerHost;
  readonly #primary: WatchedKind<T> | undefined;
  #name: string | undefined;
  #owns: WatchedKind[] = [];
  #watches: WatchedKind[] = [];
  #options: ControllerOptions = {};

  /** Use {@link controller} instead. */
  constructor(host: ControllerHost, name?: string, primary?: WatchedKind<T>) {
    this.#host = host;
    this.#name = name;
    this.#primary = primary;
  }

  /** Names the controller (default: the primary kind in lower case). */
  named(name: string): this {
    this.#name = name;
    return this;
  }

  /**
   * The kind this controller reconciles. Equivalent to `watches(type, self)`, and it also makes
   * `ctx.object` and resync use that kind. `opts` does not widen the kind: with a predicate written
   * for any object (`generationChanged`), `ctx.object` keeps the kind's type.
   */
  for<P extends KubeObject>(
    type: ResourceType<P>,
    opts: WatchOptions<NoInfer<P>> = {},
  ): ControllerBuilder<P> {
    const next = new ControllerBuilder<P>(this.#host, this.#name, watchedKind(type, self, opts, "watch"));
    next.#owns = [...this.#owns];
    next.#watches = [...this.#watches];
    next.#options = this.#options;
    return next;
  }

  /**
   * A kind this controller creates and controls. Equivalent to
   * `watches(type, mapToOwner(primary))`: a change of an object whose controller reference
   * points at a primary object queues that primary object.
   */
  owns<C extends KubeObject>(type: ResourceType<C>, opts: WatchOptions<NoInfer<C>> = {}): this {
    const primary = this.#requirePrimary("owns");
    this.#owns.push(watchedKind(type, mapToOwner(primary.type), opts, "owned"));
    return this;
  }

  /** Any other kind: `map` turns a changed object into the keys of primary objects to reconcile. */
  watches<W extends KubeObject>(
    type: ResourceType<W>,
    map: MapFn<W>,
    opts: WatchOptions<NoInfer<W>> = {},
  ): this {
    this.#watches.push(watchedKind(type, map, opts, "mapped"));
    return this;
  }

  /** Tuning: concurrency, resync period, rate limiter, error policy, shutdown grace. */
  withOptions(options: ControllerOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /** Finishes the controller with its reconciler, hands it to the host, and returns its declaration. */
  reconcile(reconciler: Reconciler<T>): ControllerDeclaration<T> {
    const primary = this.#requirePrimary("reconcile");
    const declaration: ControllerDeclaration<T> = Object.freeze({
      name: this.#name ?? primary.type.kind.toLowerCase(),
      primary,
      owns: [...this.#owns],
      watches: [...this.#watches],
    });
    this.#host.addController({ declaration, reconciler, options: this.#options });
    return declaration;
  }

  #requirePrimary(method: string): WatchedKind<T> {
    if (!this.#primary) throw new ControllerBuilderError(method);
    return this.#primary;
  }
}

/** Starts building a controller hosted by `host` (a manager, or the host `setup` is given). */
export function controller(host: ControllerHost, name?: string): ControllerBuilder<KubeObject> {
  return new ControllerBuilder(host, name);
}
