/**
 * Progress lines every Node contender prints on stdout for the runner, which timestamps them as
 * they arrive: `BENCH ready` once caches are synced (or watches open), `BENCH first-reconcile` when
 * the first reconcile starts, `BENCH all-reconciled` when `BENCH_EXPECT` distinct Widgets have been
 * reconciled successfully, and `BENCH unchanged-reconciled` when every one of them but the first
 * `BENCH_STREAMED` (those the starvation scenario's stream changes: `w-00000`, `w-00001`, …) has
 * been. The Go contender prints the same lines.
 */

const expected = Number(process.env.BENCH_EXPECT ?? 0);
const streamed = Number(process.env.BENCH_STREAMED ?? 0);
const done = new Set<string>();
const unchanged = new Set<string>();

/** Whether `key` (`bench/w-00042`) is a Widget the starvation stream changes: its index is below `streamed`. */
const isStreamed = (key: string) => Number(key.slice(key.lastIndexOf("-") + 1)) < streamed;
let started = false;

/** Prints `BENCH ready`. */
export function ready(): void {
  process.stdout.write("BENCH ready\n");
}

/** Call when a reconcile starts. */
export function reconcileStarted(): void {
  if (started) return;
  started = true;
  process.stdout.write("BENCH first-reconcile\n");
}

/** Call when a reconcile of `key` succeeded. */
export function reconcileDone(key: string): void {
  if (expected <= 0 || done.size >= expected) return;
  done.add(key);
  if (done.size === expected) process.stdout.write("BENCH all-reconciled\n");
  if (isStreamed(key) || unchanged.has(key)) return;
  unchanged.add(key);
  if (unchanged.size === expected - Math.min(streamed, expected))
    process.stdout.write("BENCH unchanged-reconciled\n");
}

/**
 * Workers, resync period and client settings every contender uses (the runner sets them):
 * `clientDefaults` when the framework's own default client settings apply (`--defaults`), else
 * the client-side rate limit is off.
 */
export const settings = {
  workers: Number(process.env.BENCH_WORKERS ?? 4),
  resyncSeconds: Number(process.env.BENCH_RESYNC_SECONDS ?? 30),
  clientDefaults: process.env.BENCH_CLIENT_SETTINGS === "defaults",
  /** kubeloop's `readYourOwnWrites`: off for the `kubeloop-own-writes-off` variant (BENCH_READ_OWN_WRITES=off). */
  readOwnWrites: process.env.BENCH_READ_OWN_WRITES !== "off",
};
