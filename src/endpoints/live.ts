/**
 * The live page: what the manager is doing, for a person, at `/debug/kubeloop` on the health
 * port, and the JSON it polls at `/debug/kubeloop/state.json` (a documented API). Nothing here
 * keeps books of its own: counts, queue depths, latencies, divergence and drift repairs are read
 * from the manager's Prometheus registry (as a scrape reads them), the last reconciles from each
 * controller's ring, and informer and leadership state from their owners, when a request comes.
 *
 * Both answer only requests from loopback (127.0.0.1, ::1), whatever address the health server
 * listens on: in a cluster the health port is open to every pod for the kubelet's probes, and the
 * page names the operator's objects and errors. Reached through `kubectl port-forward`, a request
 * arrives from loopback inside the pod, after the apiserver authenticated and authorized it.
 * Coming from loopback is not enough: a page of another site can reach 127.0.0.1 through a
 * browser by DNS rebinding (its own name resolving to 127.0.0.1), and a sidecar proxy forwards
 * requests from elsewhere from 127.0.0.1. Such a request names another host, so the page also
 * wants its `Host` to name loopback (`127.0.0.1`, `localhost` or `[::1]`, any port, since
 * `kubectl port-forward` may listen on another port than the pod's) and an `Origin`, when a
 * browser sends one, to be the page's own. The probes beside it answer any `Host`: the kubelet
 * sends the pod's IP.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import type { KubeObject } from "../api/index.ts";
import type { Informer, InformerState } from "../cache/index.ts";
import type { Clock } from "../clock/index.ts";
import type { HostedController, ReconcileRecord, ReconcileResult } from "../controller/index.ts";
import type { LeaderElector } from "../election/index.ts";
import { CLUSTER_LABEL, METRICS, type MetricDefinition } from "../metrics/index.ts";
import type { QueueReason } from "../queue/index.ts";
import type { ShardCoordinator } from "../shards/index.ts";
import { errorText } from "./health.ts";
import { livePageHtml, livePageScript } from "./internal/live-page.ts";
import type { Check } from "./server.ts";

/** Where the page is served; its JSON is at `${LIVE_PATH}/state.json`. */
export const LIVE_PATH = "/debug/kubeloop";

/** How the replica decides what it reconciles, and what it holds now. */
export interface LiveLeadership {
  /** `single`: no election, it reconciles everything; `leader-election`: one Lease; `sharding`: a Lease per shard. */
  readonly mode: "single" | "leader-election" | "sharding";
  /** True while it leads (with sharding: while it holds shard 0, where leader-only runnables run). */
  readonly leading: boolean;
  /** Its candidate identity, with leader election or sharding. */
  readonly identity?: string;
  /** The holder of the Lease as last observed, with leader election (`""` while nobody holds it). */
  readonly leader?: string;
  /** With sharding: the shards held now, in index order, of how many. */
  readonly shards?: { readonly held: readonly number[]; readonly total: number };
}

/**
 * The leadership of a replica that campaigns with `elector`, or holds shards through
 * `coordinator` (`held` of them now), or neither.
 */
export function leadershipOf(
  elector: Pick<LeaderElector, "identity" | "leader" | "isLeader"> | undefined,
  coordinator: Pick<ShardCoordinator, "identity" | "shards"> | undefined,
  held: readonly number[],
): LiveLeadership {
  if (coordinator) {
    const { identity, shards: total } = coordinator;
    return { mode: "sharding", leading: held.includes(0), identity, shards: { held, total } };
  }
  if (!elector) return { mode: "single", leading: true };
  const { identity, leader } = elector;
  return { mode: "leader-election", leading: elector.isLeader(), identity, leader };
}

/** What the live page reads of the manager. */
export interface LiveSource {
  readonly name: string;
  readonly registry: Registry;
  readonly clock: Clock;
  ready(): boolean;
  controllers(): readonly HostedController[];
  informers(): Informer<KubeObject>[];
  leadership(): LiveLeadership;
  /** The clusters of a fleet this manager shows (`new Fleet({ manager })`). */
  clusters?(): Promise<readonly LiveCluster[]>;
}

/**
 * A fleet a manager shows on its endpoints (`manager.showFleet`): its readiness on `/readyz`, its
 * clusters on the live page.
 */
export interface ShownFleet {
  /** The `fleet` check of `/readyz`. */
  readonly readiness: Check;
  /** Its clusters, for the live page. */
  readonly liveClusters: () => Promise<readonly LiveCluster[]>;
}

/** One reconcile of {@link LiveController.recent}. */
export interface LiveReconcile {
  readonly key: string;
  /** What queued it, as the queue collapsed them: `owned:ConfigMap:update` ×1, `resync`, `retry`... */
  readonly triggers: readonly QueueReason[];
  readonly priority: number;
  /** Clock times in epoch milliseconds. */
  readonly queuedAt: number;
  readonly startedAt: number;
  readonly seconds: number;
  readonly result: ReconcileResult;
  /** The error's message, for `result: "error"`. */
  readonly error?: string;
}

/** One controller (with sharding, its instances of every held shard together). */
export interface LiveController {
  readonly name: string;
  /** `apiVersion/kind` it reconciles. */
  readonly kind: string;
  /** Keys queued and not yet handed out, by priority (`"0"` normal, `"-100"` low): `workqueue_depth`. */
  readonly depth: Readonly<Record<string, number>>;
  /** Reconciles running now: `controller_runtime_active_workers`. */
  readonly active: number;
  /** Workers whose loop died (`/healthz` fails). */
  readonly deadWorkers: number;
  /** Reconciles so far by result (`controller_runtime_reconcile_total`) and their summed seconds; a rate is a difference of two polls. */
  readonly reconciles: { readonly byResult: Readonly<Record<string, number>>; readonly seconds: number };
  /** The last reconciles, newest first. */
  readonly recent: readonly LiveReconcile[];
}

/** One informer: a kind in one scope. */
export interface LiveInformer {
  /** `apiVersion/kind`. */
  readonly kind: string;
  /** The namespace it watches; absent for every namespace. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly state: InformerState;
  readonly synced: boolean;
  /** Objects in its store. */
  readonly objects: number;
  readonly restarts: number;
  readonly lastError?: string;
  /** What periodic relists of this kind (every informer of it) found the watch had missed: `kubeloop_cache_divergence_total`. */
  readonly divergence: Readonly<Record<string, number>>;
}

/** Owned objects of one kind repaired after one culprit changed or deleted them: `kubeloop_drift_repairs_total`. */
export interface LiveDrift {
  readonly kind: string;
  /** The field manager that changed them (`unknown` for a deletion with no earlier foreign writer). */
  readonly culprit: string;
  readonly repairs: number;
}

/** What one manager runs: the page shows it for the manager and for each engaged cluster of its fleet. */
export interface LiveManagerState {
  /** True once the caches synced. */
  readonly ready: boolean;
  readonly controllers: readonly LiveController[];
  readonly informers: readonly LiveInformer[];
  readonly drift: readonly LiveDrift[];
}

/** The JSON of `/debug/kubeloop/state.json`. */
export interface LiveState extends LiveManagerState {
  readonly name: string;
  /** Clock time of the answer, epoch milliseconds. */
  readonly time: number;
  readonly leadership: LiveLeadership;
  /** With a fleet shown (`new Fleet({ manager })`): its clusters, sorted by name. */
  readonly clusters?: readonly LiveCluster[];
}

/** One cluster of a fleet, as `fleet.clusters()` tells it, and while engaged what its own manager runs. */
export interface LiveCluster {
  readonly name: string;
  /** Whether it is engaged: client, cache and controllers running. */
  readonly engaged: boolean;
  /** Why it was last engaged or disengaged (`discovered`, `unreachable`, ...). */
  readonly reason: string;
  /** Whether its caches have synced and its controllers run. */
  readonly synced: boolean;
  /** Informers its cache runs (0 once disengaged: they were stopped and dropped). */
  readonly informers: number;
  /** While engaged: its manager's controllers, informers and drift repairs. */
  readonly manager?: LiveManagerState;
}

/** Samples of a metric by its label values. */
type Samples = { labels: Partial<Record<string, string | number>>; value: number; metricName?: string }[];

/** The manager's state now, as {@link LiveState}. */
export async function liveState(source: LiveSource): Promise<LiveState> {
  const read = (metric: MetricDefinition) => samples(source.registry, metric.name);
  const [totals, time, depth, active, divergence, drift] = await Promise.all([
    read(METRICS.reconcileTotal),
    read(METRICS.reconcileTime),
    read(METRICS.queueDepth),
    read(METRICS.activeWorkers),
    read(METRICS.cacheDivergence),
    read(METRICS.driftRepairs),
  ]);
  const byController = (name: string, from: Samples) => from.filter((s) => s.labels.controller === name);
  const controllers = groupByName(source.controllers()).map((instances) => {
    const name = instances[0]?.name ?? "";
    return {
      name,
      kind: kindOf(instances[0]?.primary),
      depth: tally(byController(name, depth), "priority"),
      active: sum(byController(name, active)),
      deadWorkers: instances.reduce((n, c) => n + c.health().deadWorkers, 0),
      reconciles: {
        byResult: tally(byController(name, totals), "result"),
        seconds: sum(byController(name, time).filter((s) => s.metricName?.endsWith("_sum"))),
      },
      recent: newest(instances.map((c) => c.recentReconciles())).map(liveReconcile),
    };
  });
  return {
    name: source.name,
    time: source.clock.now(),
    ready: source.ready(),
    leadership: source.leadership(),
    controllers,
    informers: source.informers().map((informer) => liveInformer(informer, divergence)),
    drift: drift
      .filter((s) => s.value > 0)
      .map((s) => ({ kind: String(s.labels.kind), culprit: String(s.labels.manager), repairs: s.value })),
    ...(source.clusters ? { clusters: await source.clusters() } : {}),
  };
}

/**
 * Answers a request under {@link LIVE_PATH}: the page, its JSON, or 404; 403 to a client that is
 * not on loopback, that addresses the server by a `Host` other than loopback's, or whose `Origin`
 * is another page's. Resolves false for a path that is not the page's.
 */
export async function serveLive(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  state: () => Promise<LiveState>,
): Promise<boolean> {
  if (path !== LIVE_PATH && !path.startsWith(`${LIVE_PATH}/`)) return false;
  const refused = refusal(req);
  if (refused) {
    res.writeHead(403, { "content-type": "text/plain" });
    res.end(`${LIVE_PATH} ${refused}`);
  } else if (path === LIVE_PATH) {
    res.writeHead(200, {
      ...noStore,
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": csp,
    });
    res.end(livePageHtml);
  } else if (path === `${LIVE_PATH}/state.json`) {
    const body = JSON.stringify(await state());
    res.writeHead(200, { ...noStore, "content-type": "application/json" }).end(body);
  } else {
    res.writeHead(404).end("not found");
  }
  return true;
}

const noStore = { "cache-control": "no-store" };

/** The page runs its one inline script and styles, fetches only its own origin, and loads nothing else. */
const csp = [
  "default-src 'none'",
  `script-src 'sha256-${createHash("sha256").update(livePageScript).digest("base64")}'`,
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "img-src data:",
].join("; ");

const loopback = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
/** A `Host` naming loopback, with a port or without (`localhost` in any case, as DNS names are). */
const loopbackHost = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/i;
const howToReach =
  "reach it through kubectl port-forward <pod> <health port>, then open http://127.0.0.1:<port>";

/** Why the page refuses `req` (the end of a sentence naming the page), or undefined when it serves it. */
function refusal(req: IncomingMessage): string | undefined {
  if (!loopback.has(req.socket.remoteAddress ?? "")) {
    return `answers loopback clients only: ${howToReach}${LIVE_PATH}`;
  }
  const host = req.headers.host ?? "";
  if (!loopbackHost.test(host)) {
    return `answers only when addressed as 127.0.0.1, localhost or [::1], not as "${host}" (a page of another site, or a proxy forwarding another host's requests): ${howToReach}${LIVE_PATH}`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${host.toLowerCase()}`) {
    return `does not answer a page of another origin (${origin})`;
  }
  return undefined;
}

/** The series of metric `name` that are the manager's own: a fleet's clusters' (labelled `cluster`) are their managers'. */
async function samples(registry: Registry, name: string): Promise<Samples> {
  const metric = registry.getSingleMetric(name);
  const values = metric ? ((await metric.get()).values as Samples) : [];
  return values.filter((s) => s.labels[CLUSTER_LABEL] === undefined);
}

/** The controllers by name, in first-seen order: a sharded manager runs one per held shard. */
function groupByName(controllers: readonly HostedController[]): HostedController[][] {
  const groups = new Map<string, HostedController[]>();
  for (const c of controllers) groups.set(c.name, [...(groups.get(c.name) ?? []), c]);
  return [...groups.values()];
}

/** The newest records of the instances of one controller, newest first, as many as one instance keeps. */
function newest(lists: ReconcileRecord[][]): ReconcileRecord[] {
  const end = (r: ReconcileRecord) => r.item.startedAt + r.seconds * 1000;
  const limit = Math.max(0, ...lists.map((list) => list.length));
  return lists
    .flat()
    .sort((a, b) => end(b) - end(a))
    .slice(0, limit);
}

function liveReconcile({ item, seconds, result, error }: ReconcileRecord): LiveReconcile {
  const { key, reasons, priority, queuedAt, startedAt } = item;
  return {
    key,
    triggers: reasons,
    priority,
    queuedAt,
    startedAt,
    seconds,
    result,
    ...(result === "error" ? { error: errorText(error) } : {}),
  };
}

function liveInformer(informer: Informer<KubeObject>, divergence: Samples): LiveInformer {
  const { namespace, labelSelector, fieldSelector } = informer.scope;
  const health = informer.health();
  const kind = informer.type.kind;
  return {
    kind: kindOf(informer.type),
    ...(namespace ? { namespace } : {}),
    ...(labelSelector ? { labelSelector } : {}),
    ...(fieldSelector ? { fieldSelector } : {}),
    state: health.state,
    synced: health.synced,
    objects: informer.store.size,
    restarts: health.restarts,
    ...(health.lastError === undefined ? {} : { lastError: errorText(health.lastError) }),
    divergence: tally(
      divergence.filter((s) => s.labels.kind === kind),
      "change",
    ),
  };
}

function kindOf(type: { apiVersion: string; kind: string } | undefined): string {
  return type ? `${type.apiVersion}/${type.kind}` : "";
}

/** The sum of `from`'s values per value of `label`, leaving out zeros. */
function tally(from: Samples, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of from) {
    const at = String(s.labels[label]);
    if (s.value !== 0) out[at] = (out[at] ?? 0) + s.value;
  }
  return out;
}

function sum(from: Samples): number {
  return from.reduce((n, s) => n + s.value, 0);
}
