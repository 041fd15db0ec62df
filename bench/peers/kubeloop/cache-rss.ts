/**
 * The kubeloop contender of bench/cache-rss.ts: one replica caching every Pod of the cluster, as a
 * kubeloop operator does when it watches Pods. A manager at its defaults (no `clientOptions`,
 * metrics and health endpoints off, no leader election) and one Pod informer from its shared cache
 * with the informer's default transform (managedFields stripped, repeated strings shared), run by
 * `runManager`. A runnable, started once the caches synced, reports the count and holds the
 * manager up (one with no controllers and no runnables stops once synced). With BENCH_NAMESPACE set it caches that namespace's Pods only (the runner's
 * empty-cache baseline). Once the cache has synced it prints `BENCH synced <count of cached Pods>`.
 *
 * The runner bundles it with `kubeloop build` and runs it with the generated Dockerfile's node
 * flags, as an operator is shipped; it imports kubeloop's public entry by path for the reason
 * bench/peers/kubeloop/operator.ts gives.
 */
import { Manager, Pod, runManager } from "../../../src/index.ts";

const namespace = process.env.BENCH_NAMESPACE;
const manager = await Manager.create({
  name: "cache-rss-kubeloop",
  metrics: false,
  health: false,
  // The runner's timeout (30 min) bounds the sync, as for the Go peer, which waits without one:
  // 200,000 Pods listed from a loaded 2-core apiserver took longer than the default 2 minutes.
  cache: { syncTimeoutMs: 30 * 60_000 },
  ...(namespace ? { namespace } : {}),
});
const pods = manager.cache.informer(Pod);
manager.add({
  name: "report-synced",
  start: ({ signal }) => {
    process.stdout.write(`BENCH synced ${pods.store.size}\n`);
    return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  },
});
await runManager(manager);
