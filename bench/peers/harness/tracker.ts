/**
 * Convergence as seen from outside: lists and watches the benchmark namespace's Widgets and
 * ConfigMaps over the runner's own connection, keeps the latest of each, and knows at every event
 * which Widgets are not yet done (converged — status Ready and ConfigMapReady for the current
 * generation, `status.observedGeneration = metadata.generation`, the ConfigMap holding
 * `spec.message` with a controller reference to the Widget — and meeting the wait's goal). The set
 * is kept incrementally, so an event costs the same with 5,000 Widgets as with 5. A watch that
 * ends is resumed from the last resourceVersion (a fresh LIST after 410). A wait ends when the set
 * is empty and a fresh LIST of both kinds confirms it.
 */
import { configMapName, converged, type WidgetLike } from "../shared/widget.ts";
import { configMapsPath, type Kube, widgetsPath } from "./kube.ts";

interface ConfigMapLike {
  metadata: {
    name?: string;
    resourceVersion?: string;
    ownerReferences?: { uid: string; controller?: boolean }[];
  };
  data?: Record<string, string>;
}
interface List<T> {
  metadata: { resourceVersion: string };
  items: T[];
}
interface Named {
  metadata: { name?: string; resourceVersion?: string };
}

type Goal = (w: WidgetLike) => boolean;

export class Tracker {
  readonly #kube: Kube;
  readonly widgets = new Map<string, WidgetLike>();
  readonly configMaps = new Map<string, ConfigMapLike>();
  /** Widgets not converged or not meeting the current goal. */
  readonly #unmet = new Set<string>();
  #goal: Goal = () => true;
  readonly #stops = new AbortController();
  #onChange: (() => void)[] = [];
  /** Called with the ConfigMap name and the time when a ConfigMap appears (ADDED). */
  onConfigMapAdded: ((name: string, at: number) => void) | undefined;
  /** Called with the Widget's name and the time when an existing Widget is seen converged. */
  onWidgetConverged: ((name: string, at: number) => void) | undefined;

  private constructor(kube: Kube) {
    this.#kube = kube;
  }

  static async start(kube: Kube): Promise<Tracker> {
    const t = new Tracker(kube);
    await t.#follow(widgetsPath, t.widgets, (type, obj) => t.#widgetEvent(type, obj as WidgetLike));
    await t.#follow(configMapsPath, t.configMaps, (type, obj) =>
      t.#configMapEvent(type, obj as ConfigMapLike),
    );
    return t;
  }

  stop(): void {
    this.#stops.abort();
  }

  /**
   * Resolves with the time (performance.now()) at which `count` Widgets existed, all converged and
   * meeting `goal`, confirmed by a fresh LIST; rejects after `timeoutMs`.
   */
  async waitConverged(count: number, goal: Goal, timeoutMs: number): Promise<number> {
    this.#goal = goal;
    for (const name of this.widgets.keys()) this.#recheck(name);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const at = await this.#until(() => this.widgets.size === count && this.#unmet.size === 0, deadline);
      if (at === undefined) {
        throw new Error(
          `not converged after ${(timeoutMs / 1000).toFixed(0)} s: ${this.widgets.size} Widgets, ${this.#unmet.size} not converged`,
        );
      }
      if (await this.#confirmed(count, goal)) return at;
    }
  }

  #until(check: () => boolean, deadline: number): Promise<number | undefined> {
    if (check()) return Promise.resolve(performance.now());
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(undefined), Math.max(0, deadline - performance.now()));
      const listener = () => {
        if (check()) finish(performance.now());
      };
      const finish = (at: number | undefined) => {
        clearTimeout(timer);
        this.#onChange = this.#onChange.filter((l) => l !== listener);
        resolve(at);
      };
      this.#onChange.push(listener);
    });
  }

  async #confirmed(count: number, goal: Goal): Promise<boolean> {
    const [ws, cms] = await Promise.all([
      this.#kube.call<List<WidgetLike>>("GET", widgetsPath),
      this.#kube.call<List<ConfigMapLike>>("GET", configMapsPath),
    ]);
    const byName = new Map(cms.items.map((cm) => [cm.metadata.name, cm]));
    return (
      ws.items.length === count &&
      ws.items.every(
        (w) => goal(w) && converged(w, byName.get(configMapName(w.metadata.name ?? "")) as never),
      )
    );
  }

  #recheck(widgetName: string): void {
    const w = this.widgets.get(widgetName);
    const done =
      !w || (this.#goal(w) && converged(w, this.configMaps.get(configMapName(widgetName)) as never));
    if (done) this.#unmet.delete(widgetName);
    else this.#unmet.add(widgetName);
    if (done && w) this.onWidgetConverged?.(widgetName, performance.now());
  }

  #widgetEvent(type: string, w: WidgetLike): void {
    const name = w.metadata.name ?? "";
    if (type === "DELETED") this.widgets.delete(name);
    else this.widgets.set(name, w);
    this.#recheck(name);
  }

  #configMapEvent(type: string, cm: ConfigMapLike): void {
    const name = cm.metadata.name ?? "";
    if (type === "DELETED") this.configMaps.delete(name);
    else this.configMaps.set(name, cm);
    if (type === "ADDED") this.onConfigMapAdded?.(name, performance.now());
    if (name.endsWith("-config")) this.#recheck(name.slice(0, -"-config".length));
  }

  /** LIST into `store` (objects gone since are reported DELETED), then watch; resumes until stopped. */
  async #follow(path: string, store: Map<string, unknown>, handle: (type: string, obj: unknown) => void) {
    const list = async () => {
      const l = await this.#kube.call<List<Named>>("GET", path);
      const seen = new Set(l.items.map((o) => o.metadata.name ?? ""));
      for (const [name, obj] of store) if (!seen.has(name)) handle("DELETED", obj);
      for (const o of l.items) handle(store.has(o.metadata.name ?? "") ? "MODIFIED" : "ADDED", o);
      return l.metadata.resourceVersion;
    };
    let rv = await list();
    let body = await this.#open(path, rv);
    void (async () => {
      let expired = false;
      while (!this.#stops.signal.aborted) {
        try {
          let buffered = "";
          for await (const chunk of body) {
            buffered += chunk.toString();
            let nl = buffered.indexOf("\n");
            while (nl >= 0) {
              const line = buffered.slice(0, nl);
              buffered = buffered.slice(nl + 1);
              nl = buffered.indexOf("\n");
              if (!line) continue;
              const event = JSON.parse(line) as { type: string; object: Named };
              if (event.type === "ERROR") expired = true;
              else {
                rv = event.object.metadata.resourceVersion ?? rv;
                if (event.type !== "BOOKMARK") handle(event.type, event.object);
              }
            }
            for (const listener of [...this.#onChange]) listener();
          }
        } catch (err) {
          if (this.#stops.signal.aborted) return;
          console.error(`tracker: watch ${path} failed: ${(err as Error).message}`);
        }
        if (this.#stops.signal.aborted) return;
        console.error(`tracker: watch ${path} ended${expired ? " (expired)" : ""}; resuming`);
        try {
          if (expired) rv = await list();
          expired = false;
          body = await this.#open(path, rv);
        } catch (err) {
          console.error(`tracker: cannot resume watch ${path}: ${(err as Error).message}`);
          expired = true;
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })();
  }

  async #open(path: string, rv: string) {
    const res = await this.#kube.pool.request({
      method: "GET",
      path: `${path}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=7200`,
      headers: { accept: "application/json" },
      bodyTimeout: 0,
      signal: this.#stops.signal,
    });
    if (res.statusCode !== 200) throw new Error(`watch ${path}: ${res.statusCode}`);
    return res.body;
  }
}
