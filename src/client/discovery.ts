/**
 * Maps `apiVersion` + `kind` to the resource's plural name and scope, from the apiserver's
 * aggregated discovery (`/api` and `/apis`, apidiscovery.k8s.io/v2: one request each for every
 * group). Answers are cached; an unknown kind triggers at most one refresh per `minRefreshMs`,
 * so a CRD installed after start is found, and a kind still unknown gives {@link KindNotFoundError},
 * naming the versions the server does serve of the kind's group.
 */
import { groupOf, type KubeObject, type ResourceType, resourceType } from "../api/index.ts";
import type { Clock } from "../clock/index.ts";
import { apiErrorFrom, KindNotFoundError } from "./errors.ts";
import type { Dispatch } from "./transport.ts";

interface DiscoveredResource {
  resource: string;
  scope: "Namespaced" | "Cluster";
  responseKind?: { group?: string; version?: string; kind: string };
  singularResource?: string;
  shortNames?: string[];
  verbs?: string[];
}

/** A resource the apiserver serves, with the names `kubectl` accepts for it. */
export interface ServedResource {
  /** The kind, its plural and scope in this version. */
  readonly type: ResourceType;
  /** API group (`""` for the core group). */
  readonly group: string;
  /** The version, e.g. `v1`. */
  readonly version: string;
  /** Lower-case singular name, e.g. `deployment`. */
  readonly singular: string;
  /** Short names, e.g. `deploy`. */
  readonly shortNames: readonly string[];
  /** Verbs the resource supports, e.g. `list`, `watch`. */
  readonly verbs: readonly string[];
}

interface GroupDiscovery {
  metadata?: { name?: string };
  versions?: { version: string; resources?: DiscoveredResource[] }[];
}

const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;q=0.9";

/** A cached view of which resources the apiserver serves. */
export class Discovery {
  readonly #dispatch: Dispatch;
  readonly #clock: Clock;
  readonly #minRefreshMs: number;
  #kinds = new Map<string, ResourceType>();
  #served: ServedResource[] = [];
  /** The served versions of each group (`""` is the core group), as `group/version`. */
  #groupVersions = new Map<string, string[]>();
  #lastRefresh = Number.NEGATIVE_INFINITY;
  #refreshing: Promise<void> | undefined;

  constructor(dispatch: Dispatch, clock: Clock, minRefreshMs = 2000) {
    this.#dispatch = dispatch;
    this.#clock = clock;
    this.#minRefreshMs = minRefreshMs;
  }

  /** The {@link ResourceType} serving `kind` in `apiVersion`. */
  async resolve<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
  ): Promise<ResourceType<T>> {
    const found = await this.#lookUp(apiVersion, kind);
    if (!found) throw this.#notFound(apiVersion, kind);
    return found as ResourceType<T>;
  }

  /**
   * Explains a 404 for the collection of `kind` in `apiVersion`: undefined when discovery serves
   * the kind after all, else a {@link KindNotFoundError} naming what the server serves of its group
   * (with `cause`, the 404). Refreshes at most once per `minRefreshMs`, as {@link Discovery.resolve}.
   */
  async notServed(apiVersion: string, kind: string, cause?: unknown): Promise<KindNotFoundError | undefined> {
    return (await this.#lookUp(apiVersion, kind)) ? undefined : this.#notFound(apiVersion, kind, cause);
  }

  /** The cached kind, after a refresh when it is unknown and the last refresh is old enough. */
  async #lookUp(apiVersion: string, kind: string): Promise<ResourceType | undefined> {
    const key = `${apiVersion}/${kind}`;
    if (!this.#kinds.has(key) && this.#clock.monotonicMs() - this.#lastRefresh >= this.#minRefreshMs)
      await this.refresh();
    return this.#kinds.get(key);
  }

  #notFound(apiVersion: string, kind: string, cause?: unknown): KindNotFoundError {
    const groupVersions = this.#groupVersions.get(groupOf(apiVersion)) ?? [];
    const kindVersions = groupVersions.filter((gv) => this.#kinds.has(`${gv}/${kind}`));
    return new KindNotFoundError(apiVersion, kind, { groupVersions, kindVersions }, { cause });
  }

  /**
   * Every resource the server serves (subresources aside), in discovery's order: groups by
   * priority, the core group first, and each group's preferred version first, as `kubectl` ranks
   * them. Loads discovery when it never was.
   */
  async resources(): Promise<readonly ServedResource[]> {
    if (this.#lastRefresh === Number.NEGATIVE_INFINITY) await this.refresh();
    return this.#served;
  }

  /** Reloads discovery now (concurrent callers share one load). */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#load().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #load(): Promise<void> {
    const [core, groups] = await Promise.all([this.#fetch("/api"), this.#fetch("/apis")]);
    const kinds = new Map<string, ResourceType>();
    const groupVersions = new Map<string, string[]>();
    const served: ServedResource[] = [];
    for (const group of [...core, ...groups]) {
      const groupName = group.metadata?.name ?? "";
      for (const version of group.versions ?? []) {
        const apiVersion = groupName ? `${groupName}/${version.version}` : version.version;
        groupVersions.set(groupName, [...(groupVersions.get(groupName) ?? []), apiVersion]);
        for (const r of version.resources ?? []) {
          if (!r.responseKind?.kind) continue;
          const type = resourceType(apiVersion, r.responseKind.kind, r.resource, r.scope === "Namespaced");
          kinds.set(`${apiVersion}/${r.responseKind.kind}`, type);
          served.push(servedResource(type, groupName, version.version, r));
        }
      }
    }
    this.#kinds = kinds;
    this.#groupVersions = groupVersions;
    this.#served = served;
    this.#lastRefresh = this.#clock.monotonicMs();
  }

  async #fetch(path: string): Promise<GroupDiscovery[]> {
    const res = await this.#dispatch({ method: "GET", path, verb: "get", headers: { accept } });
    const text = await res.body.text();
    if (res.status >= 400) throw apiErrorFrom(res.status, failureBody(text), { method: "GET", path });
    return (JSON.parse(text) as { items?: GroupDiscovery[] }).items ?? [];
  }
}

function servedResource(
  type: ResourceType,
  group: string,
  version: string,
  r: DiscoveredResource,
): ServedResource {
  const singular = r.singularResource || type.kind.toLowerCase();
  return { type, group, version, singular, shortNames: r.shortNames ?? [], verbs: r.verbs ?? [] };
}

/** A failure's body: its Status when it is JSON, else the text (a proxy's error page). */
function failureBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
