/**
 * The manager's probes. `/readyz` fails until every informer has synced, naming each one that has
 * not (kind, scope, state, last error). `/healthz` fails on what only a restart of the process
 * can cure: an informer that died and cannot restart, a controller whose workers died. A failing
 * check throws, and the probe shows its message.
 */
import type { KubeObject } from "../api/index.ts";
import type { Informer, InformerHealth } from "../cache/index.ts";
import type { HostedController } from "../controller/index.ts";
import type { Check } from "./server.ts";

/**
 * How long an informer may keep crashing (its loop dying and restarting with backoff, without
 * anything arriving from the apiserver) before `/healthz` gives it up: controller-runtime's
 * cache sync timeout, the time a starting manager gets too.
 */
export const informerCrashLoopLimitMs = 2 * 60_000;

/** What the checks read of the manager. */
export interface HealthSource {
  /** Every informer the manager runs: its shared cache's, and each held shard's. */
  informers(): Informer<KubeObject>[];
  controllers(): readonly HostedController[];
  /** True while the manager runs its informers (an informer stopped then has died). */
  cachesRunning(): boolean;
}

/** `/readyz`: every informer has synced. */
export function informersSynced(source: HealthSource): Check {
  return () => {
    const pending = withHealth(source).filter(({ health }) => !health.synced);
    return pending.length === 0 || fail(`not synced: ${pending.map(describe).join("; ")}`);
  };
}

/** `/healthz`: no informer has died for good (stopped while running, or crash-looping past the limit). */
export function informersAlive(source: HealthSource): Check {
  return () => {
    const dead = withHealth(source).filter(({ health }) => isDead(health, source.cachesRunning()));
    return dead.length === 0 || fail(`died and cannot restart: ${dead.map(describe).join("; ")}`);
  };
}

/** `/healthz`: no controller lost a worker. */
export function controllersAlive(source: HealthSource): Check {
  return () => {
    const broken = source.controllers().filter((c) => c.health().deadWorkers > 0);
    const detail = broken.map((c) => {
      const { deadWorkers, lastError } = c.health();
      return `${c.name} (${deadWorkers} dead: ${errorText(lastError)})`;
    });
    return broken.length === 0 || fail(`workers died: ${detail.join("; ")}`);
  };
}

function isDead(health: InformerHealth, running: boolean): boolean {
  if (health.state === "stopped") return running;
  return health.state === "failing" && health.restarts > 0 && health.failingForMs >= informerCrashLoopLimitMs;
}

interface InformerWithHealth {
  informer: Informer<KubeObject>;
  health: InformerHealth;
}

function withHealth(source: HealthSource): InformerWithHealth[] {
  return source.informers().map((informer) => ({ informer, health: informer.health() }));
}

/** E.g. `e2e.kubeloop.dev/v1/Widget in namespace "team-a" (failing: 403 Forbidden ...)`. */
function describe({ informer, health }: InformerWithHealth): string {
  const { namespace, labelSelector, fieldSelector } = informer.scope;
  const scope = [
    namespace ? `in namespace "${namespace}"` : "cluster-wide",
    labelSelector && `labels ${labelSelector}`,
    fieldSelector && `fields ${fieldSelector}`,
  ].filter(Boolean);
  const last = health.lastError === undefined ? "" : `: ${errorText(health.lastError)}`;
  return `${health.kind} ${scope.join(", ")} (${health.state}${last})`;
}

/** An error's message, or the thrown value as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function fail(message: string): never {
  throw new Error(message);
}
