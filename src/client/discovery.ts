/**
 * Maps `apiVersion` + `kind` to the resource's plural name and scope, from the apiserver's
 * aggregated discovery (`/api` and `/apis`, apidiscovery.k8s.io/v2: one request each for every
 * group). Answers are cached; an unknown kind triggers at most one refresh per `minRefreshMs`,
 * so a CRD installed after start is found, and a kind still unknown gives {@link KindNotFoundError}.
 */
import { type KubeObject, type ResourceType, resourceType } from "../api/index.ts";
import type { Clock } from "../clock/index.ts";
import { apiErrorFrom, KindNotFoundError } from "./errors.ts";
import type { Dispatch } from "./transport.ts";

interface DiscoveredResource {
  resource: string;
  scope: "Namespaced" | "Cluster";
  responseKind?: { group?: string; version?: string; kind: string };
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
    const key = `${apiVersion}/${kind}`;
    let found = this.#kinds.get(key);
    if (!found && this.#clock.monotonicMs() - this.#lastRefresh >= this.#minRefreshMs) {
      await this.refresh();
      found = this.#kinds.get(key);
    }
    if (!found) throw new KindNotFoundError(apiVersion, kind);
    return found as ResourceType<T>;
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
    for (const group of [...core, ...groups]) {
      const groupName = group.metadata?.name ?? "";
      for (const version of group.versions ?? []) {
        const apiVersion = groupName ? `${groupName}/${version.version}` : version.version;
        for (const r of version.resources ?? []) {
          if (!r.responseKind?.kind) continue;
          kinds.set(
            `${apiVersion}/${r.responseKind.kind}`,
            resourceType(apiVersion, r.responseKind.kind, r.resource, r.scope === "Namespaced"),
          );
        }
      }
    }
    this.#kinds = kinds;
    this.#lastRefresh = this.#clock.monotonicMs();
  }

  async #fetch(path: string): Promise<GroupDiscovery[]> {
    const res = await this.#dispatch({ method: "GET", path, verb: "get", headers: { accept } });
    const text = await res.body.text();
    if (res.status >= 400) throw apiErrorFrom(res.status, failureBody(text), { method: "GET", path });
    return (JSON.parse(text) as { items?: GroupDiscovery[] }).items ?? [];
  }
}

/** A failure's body: its Status when it is JSON, else the text (a proxy's error page). */
function failureBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
