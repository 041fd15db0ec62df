/** What a manager is created with: {@link ManagerOptions}, and its leader election's. */
import type { Logger } from "pino";
import type { CacheBudgets, InformerCacheOptions } from "../cache/index.ts";
import type { Client, ClientOptions, LoadConfigOptions } from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import type { ControllerOptions, PermissionRequest } from "../controller/index.ts";
import type { ElectionTimings } from "../election/index.ts";
import type { Listen, MetricsOptions } from "../endpoints/index.ts";
import type { ShardingOptions } from "../shards/index.ts";
import type { Webhook, WebhookServingOptions } from "../webhook/index.ts";

/** Leader election settings (client-go semantics; controller-runtime's 15/10/2 s defaults). */
export interface LeaderElectionOptions extends Partial<ElectionTimings> {
  /** Lease name, a DNS-1123 subdomain. Default: the manager's name, made a valid Lease name (`leaseName`). */
  name?: string;
  /** Lease namespace. Default: the client's default namespace (the pod's). */
  namespace?: string;
  /** Candidate identity. Default: `$POD_NAME_$POD_UID` when set, else host name and a random suffix. */
  identity?: string;
  /** Give the Lease up on shutdown, once the controllers drained, so a successor takes over at once. Default true. */
  releaseOnCancel?: boolean;
}

/** Options of {@link Manager.create}. */
export interface ManagerOptions {
  /** The operator's name: field manager of its writes, reporting controller of its events, default Lease name. */
  name: string;
  /** A ready client; default: one loaded from `config` (in-cluster or kubeconfig). */
  client?: Client;
  config?: LoadConfigOptions;
  /** Client tuning (qps, burst, timeouts) when the manager creates the client. */
  clientOptions?: ClientOptions;
  /** Watch and cache only this namespace (a namespace-scoped operator). */
  namespace?: string;
  /**
   * What the operator uses beyond its controllers' `for()`, `owns()` and `watches()`: its
   * `permissions`, as `defineOperator` declares them (`runOperator` passes them). A reconcile's
   * client call or cached read of a kind declared in neither is warned about, once per kind.
   */
  permissions?: readonly Pick<PermissionRequest, "type">[];
  /**
   * Cache tuning: per-kind scopes, transforms, watch timing, periodic relist (per cache and per
   * kind), how long the start waits for the caches to sync (`syncTimeoutMs`, default 2 minutes as
   * controller-runtime's `CacheSyncTimeout`: raise it for kinds of hundreds of thousands of
   * objects), refusing cached reads that would start an informer (`failOnMissingInformer`), and
   * per-kind heap `budgets` in bytes (keyed by `apiVersion/kind`, e.g. `{ "v1/Pod": 512 * 2 ** 20 }`):
   * a kind whose caches' estimated heap (`kubeloop_cache_bytes`) goes over its budget is warned
   * about once, and `kubeloop_cache_budget_exceeded{kind}` is 1 until it is back under 90 % of it.
   */
  cache?: Pick<
    InformerCacheOptions,
    "byKind" | "informer" | "relistByKind" | "failOnMissingInformer" | "syncTimeoutMs"
  > & {
    budgets?: CacheBudgets;
  };
  /**
   * `/metrics` endpoint; `false` disables it. Default, as kubebuilder's scaffold: in a cluster
   * (`KUBERNETES_SERVICE_HOST` set) HTTPS on 0.0.0.0:8443 for authenticated and authorized
   * callers only; outside, plain HTTP on 127.0.0.1:8080. See {@link MetricsOptions}. With
   * `false`, the registry (`manager.metrics.registry`) has the manager's metrics but not the
   * process's (`process_*`, `nodejs_*`), whose GC observer would keep the manager alive for good.
   */
  metrics?: MetricsOptions | false;
  /**
   * `/healthz` and `/readyz`, always plain HTTP (the kubelet probes them); `false` disables them.
   * Default port 8081, on 0.0.0.0 in a cluster and 127.0.0.1 outside.
   */
  health?: Listen | false;
  /**
   * The live page at `/debug/kubeloop` on the health port (its JSON at
   * `/debug/kubeloop/state.json`), answering loopback clients only: controllers with their queues
   * and last reconciles, informers, leadership, drift repairs. Default: on outside a cluster, off
   * in one (turn it on with `--live-page` and reach it through `kubectl port-forward`).
   */
  livePage?: boolean;
  /**
   * Leader election; off unless given. Caches start and sync before leadership is won, so a
   * follower that takes over reconciles at once; controllers run only while leading. On
   * shutdown the controllers stop taking keys and their in-flight reconciles drain
   * (`gracefulShutdownMs`) while the Lease is still renewed; once they ended, the reconciles'
   * and leader-only runnables' writes are refused and the Lease is released, so a successor
   * starts after them. When leadership is lost — no renewal within the renew deadline of the
   * last successful one, while draining too, or another holder — writes through
   * {@link Manager.client} are refused from that moment (`WriteFencedError`), every in-flight
   * reconcile's `ctx.signal` aborts, and `start` rejects with `LeadershipLostError`.
   */
  leaderElection?: LeaderElectionOptions | false;
  /**
   * Sharding of the controllers across replicas; off unless given, and not together with
   * `leaderElection`. Each replica holds a fair share of virtual shards (a Lease each), watches
   * only their objects (but for the kinds {@link ShardingOptions.key} caches whole, so that no
   * controller misses an object it declares), and runs the controllers once per held shard: give them with
   * {@link Manager.setup}, which it runs per shard on that shard's cache. A shard given up
   * (rebalance, shutdown) keeps its Lease renewed while its reconciles drain
   * (`gracefulShutdownMs`), then its writes and events are refused, its watches stop, and its
   * Lease is released. One whose Lease could not be renewed within the renew deadline of the last
   * successful renewal (while draining too) has its writes and events refused and its reconciles
   * aborted at once. A replica's membership Lease is deleted when it stops, and owned by its pod
   * (`POD_NAME`, `POD_UID` in `POD_NAMESPACE`) for garbage collection if it dies. See
   * {@link ShardingOptions}.
   */
  sharding?: ShardingOptions | false;
  /**
   * Admission and conversion webhooks to serve (from `validating`, `defaulting`, `conversion` of
   * `kubeloop/webhook`): over HTTPS on every replica, leader or not, from before the caches sync.
   * Handlers get the manager's cache and a client that leadership does not fence. `/readyz` fails
   * while the server is not listening.
   */
  webhooks?: readonly Webhook[];
  /** How the webhooks are served: port, certificate, configurations. See {@link WebhookServingOptions}. */
  webhookServer?: WebhookServingOptions;
  /**
   * How long in-flight reconciles may run once shutdown begins; then their `ctx.signal` aborts
   * and the manager stops without waiting for them. The default of every controller's own
   * `gracefulShutdownMs`. Default 30 s.
   */
  gracefulShutdownMs?: number;
  /**
   * The default of every controller's own `reconciliationTimeoutMs`, as controller-runtime's
   * manager-wide `Controller.ReconciliationTimeout`: how long one reconcile may run before its
   * `ctx.signal` aborts and its client is fenced. Default none.
   */
  reconciliationTimeoutMs?: number;
  /**
   * The default of every controller's own `readYourOwnWrites` (see
   * {@link ControllerOptions.readYourOwnWrites}): the next reconcile of a key waits, bounded, until
   * the cache shows the writes its last reconcile made. Default true (see that option for the measured cost).
   */
  readYourOwnWrites?: boolean;
  /**
   * Logger. Default: pino named after the operator, at `$LOG_LEVEL` (default `info`), readable
   * lines when stdout is a terminal, JSON otherwise.
   */
  logger?: Logger;
  clock?: Clock;
}
