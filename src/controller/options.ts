/** How a controller is tuned: concurrency, resync, backoff, shutdown, timeouts, priorities. */
import type { RateLimiter } from "../queue/index.ts";
import type { Action } from "./action.ts";
import type { ReconcileTimeoutError } from "./errors.ts";
import type { Request } from "./reconciler.ts";

/** Tuning of a controller. */
export interface ControllerOptions {
  /** Reconciles running at once (different keys). Default 1. */
  concurrency?: number;
  /** Every primary object is re-queued this often, with ±10 % jitter. Default 10 h. `0` disables. */
  resyncPeriodMs?: number;
  /**
   * Per-key failure backoff. Default: 5 ms doubling to 1000 s, with an overall 10 qps / 100 burst
   * bucket. A delay it answers that is not a finite number >= 0 (or a throw) is counted and
   * replaced by the default per-key backoff. Failures that only say the apiserver was away
   * (unreachable, 502/503, timeouts) bypass it: they back off 5 ms doubling to 1 s, jittered up to 2 s.
   */
  rateLimiter?: RateLimiter;
  /**
   * How long in-flight reconciles may run after shutdown begins; then their `ctx.signal` aborts
   * (and their `ctx.client` is fenced) and the controller stops without waiting for them.
   * Default: the manager's, else 30 s.
   */
  gracefulShutdownMs?: number;
  /**
   * How long one reconcile may run, in milliseconds, as controller-runtime's
   * `ReconciliationTimeout` (v0.22): past it, its `ctx.signal` aborts with a
   * {@link ReconcileTimeoutError}, `controller_runtime_reconcile_timeouts_total` counts it, a
   * Warning event (reason `ReconcileTimeout`) tells it on the object, and the key is retried with
   * backoff like any failure. Default: the manager's, else none, as in controller-runtime (a
   * reconcile may take as long as it takes; set one when a reconciler calls services that can hang).
   *
   * Go's worker waits for `Reconcile` to return, however late; a promise cannot be stopped, and a
   * reconcile deaf to its signal would hold its worker and its key forever. So the controller stops
   * waiting at the timeout: the worker and the key are free at once, and the retry may start while
   * the abandoned reconcile still runs. So that no two reconciles of a key write at once, the
   * abandoned one's `ctx.client` is fenced: nothing it sends after its timeout goes out (it gets a
   * `WriteFencedError`). Writes through any other client, and events through `ctx.recorder`, are
   * not fenced. `0` or absent: no timeout.
   */
  reconciliationTimeoutMs?: number;
  /**
   * When a key whose reconciles keep failing shows it on its object (a kind with a condition
   * set; routine failures, a 409 conflict or an apiserver away, are not counted): after `failures`
   * failures in a row, or at the first failure once they have lasted `ms`, whichever comes first.
   * The summary turns False (Unknown for a `Succeeded` summary) with reason `ReconcileFailed`, and
   * `Reconciling=True` (reason `ProgressingWithRetry`, as Flux marks a failure it retries; kstatus
   * reads `InProgress`), both saying `failing since <first failure>; last error: <message>`. It is
   * written once, and again only when that changes (a new last error), at most once every 30 s
   * (each write's watch event brings the key back past its backoff); the reconciler's next status
   * write after a success rolls the summary up again. A child the apiserver refused (a quota, an
   * admission check: `childRefusal` of `kubeloop/status`) is shown from its first failure, with
   * the refusal's reason (`QuotaExceeded`, `AdmissionDenied`, `ChildRefused`) and the apiserver's
   * message: no retry soon changes that answer. `false`: never shown.
   *
   * Default `{ failures: 10, ms: 30_000 }`: ten failures in a row take ~2.5 s under the default
   * backoff (5 ms doubling), so a blip that a few retries fix (a cache catching up, a webhook
   * restarting) never shows, and a failure that lasts shows within seconds (Flux shows every
   * failure at once); `ms` bounds slow retries (an `errorPolicy`'s requeue, a custom rate limiter).
   * A reconciler that writes its status and then throws overwrites what is shown each time: write
   * the status last.
   */
  showFailingAfter?: ShowFailingAfter | false;
  /**
   * Maps a reconcile error to the next step: an {@link Action} to requeue at a chosen time, or
   * `undefined` for the default per-key backoff. A policy that throws is counted and logged, and
   * the default backoff applies.
   */
  errorPolicy?: (error: unknown, request: Request) => Action | undefined;
  /**
   * Whether keys have priorities, as with controller-runtime's priority queue (its default since
   * v0.23). Default true: keys from informers' initial lists (of every watched kind, but for
   * objects whose status shows they await their controller: a generation and no status, or an
   * `observedGeneration` behind it), from updates that change nothing (same resourceVersion, as
   * a relist re-delivers them) and from the periodic resync are queued at {@link LOW_PRIORITY},
   * everything else at {@link NORMAL_PRIORITY}, so a real change made while a restarted operator
   * walks through its unchanged objects is reconciled first. Requeues and retries keep the
   * priority the key had. Low-priority keys never starve: while they wait they get a third of the
   * workers' time (normal keys the rest), and past `starvationBoundMs` they go out in order
   * of readiness (the shares and the bound are stated on {@link WorkQueue}). `false` queues everything at
   * normal priority, in order of readiness.
   */
  priorityQueue?: boolean;
  /**
   * How long a queued key may be passed over by higher-priority keys, in milliseconds: once it
   * has waited this long it is reconciled next, in order of readiness. Default 10 000 (10 s).
   */
  starvationBoundMs?: number;
  /**
   * Read your own writes, as controller-runtime v0.25's experimental
   * `ReadYourOwnWriteConsistencyEnabled`: the resourceVersion of every write a reconcile makes
   * through `ctx.client` (create, update, patch, apply, status writes, delete; `ensureChild`'s
   * too) is kept per object, and before the key's next reconcile the controller waits until the
   * informers show each written object at that version or newer (a deleted one gone), for at
   * most 5 s (then it reconciles anyway; both outcomes are counted in
   * `kubeloop_read_own_writes_waits_total`). So `ctx.object` and cached reads of the objects it
   * wrote are never older than its own last writes: it does not create a child twice, nor act on
   * the status it just replaced. Writes of other keys' reconciles are not waited for.
   * Default true. Measured (bench/results/read-own-writes.md, N = 5,000 converge, on a loaded machine): no measurable converge-throughput cost (median 82 s on, 130 s off), operator CPU +7.5 % by medians, within run-to-run spread; hence on by default.
   */
  readYourOwnWrites?: boolean;
}

/** How soon a key whose reconciles keep failing shows it on its object; see {@link ControllerOptions.showFailingAfter}. */
export interface ShowFailingAfter {
  /** After this many failures in a row. Default 10. */
  failures?: number;
  /** Once the failures in a row have lasted this long, in milliseconds (seen at a failure). Default 30 000. */
  ms?: number;
}
