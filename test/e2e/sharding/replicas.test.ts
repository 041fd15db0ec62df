/**
 * Three replicas of a sharded operator, each a process of its own, share 1,000 Widgets over 16
 * virtual shards (a Lease each), sharded by uid on the apiserver: every widget is reconciled,
 * each replica receives about its share of the watch events, a replica killed with SIGKILL has
 * its widgets reconciled by the others within the Lease duration + 5 s, a fourth replica takes
 * its share from the others, and no widget is ever reconciled by two replicas at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Client } from "../../../src/client/index.ts";
import {
  assertNoKeyTogether,
  type OperatorProcess,
  reconcileIntervals,
  startOperatorProcess,
} from "../fixtures/process.ts";
import { convergedWidgets, installWidgetCrd, Widget, widget } from "../fixtures/widgets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";

const script = join(fileURLToPath(import.meta.url), "../fixtures/replica.ts");
const shards = 16;
const leaseDurationMs = 8_000;
const widgets = 1_000;
const now = () => performance.timeOrigin + performance.now();

function startReplica(t: TestContext, namespace: string, identity: string): OperatorProcess {
  return startOperatorProcess(t, script, identity, {
    OPERATOR_NAMESPACE: namespace,
    OPERATOR_IDENTITY: identity,
    OPERATOR_SHARDS: String(shards),
    OPERATOR_LEASE_MS: String(leaseDurationMs),
  });
}

/** The shards `replica` holds, as its events tell. */
function held(replica: OperatorProcess): Set<number> {
  const shardsHeld = new Set<number>();
  for (const e of replica.events) {
    if (e.event === "shard-acquired") shardsHeld.add(e.shard as number);
    if (e.event === "shard-released" || e.event === "shard-lost") shardsHeld.delete(e.shard as number);
  }
  return shardsHeld;
}

/** True when `replicas` hold every shard between them, each its fair share (⌊S/R⌋ or ⌈S/R⌉). */
function balanced(replicas: readonly OperatorProcess[]): boolean {
  const counts = replicas.map((r) => held(r).size);
  const all = new Set(replicas.flatMap((r) => [...held(r)]));
  const fair = shards / replicas.length;
  return all.size === shards && counts.every((n) => n >= Math.floor(fair) && n <= Math.ceil(fair));
}

/** The sum of the samples of `name` for Widget in `replica`'s /metrics. */
async function widgetMetric(replica: OperatorProcess, name: string): Promise<number> {
  const port = replica.all("started")[0]?.port;
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) && line.includes('kind="Widget"'))
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}

/** Runs `write` for every name, 50 at a time. */
async function forEach(names: readonly string[], write: (name: string) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map(write));
}

async function converged(
  client: Client,
  ns: string,
  names: readonly string[],
  message: (n: string) => string,
) {
  await eventually(
    async () => {
      const configMaps = await convergedWidgets(client, ns);
      return names.every((n) => configMaps.get(n) === message(n));
    },
    { what: `${names.length} widgets converged`, timeoutMs: 120_000, intervalMs: 1_000 },
  );
}

/** The keys `replica` reconciled. */
const reconciled = (replica: OperatorProcess) => new Set(replica.all("reconcile-start").map((e) => e.key));

test("three sharded replicas share 1,000 widgets, survive a SIGKILL within the Lease duration + 5 s, rebalance onto a fourth, and never reconcile a widget twice at once", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const replicas = ["r1", "r2", "r3"].map((identity) => startReplica(t, ns, identity));
  await eventually(() => balanced(replicas), {
    what: "three replicas sharing the shards",
    timeoutMs: 90_000,
  });

  const names = Array.from({ length: widgets }, (_, i) => `w${i}`);
  await forEach(names, (n) => client.create(Widget, widget(ns, n, `hello ${n}`)));
  await converged(client, ns, names, (n) => `hello ${n}`);
  const events = await Promise.all(replicas.map((r) => widgetMetric(r, "kubeloop_watch_events_total")));
  for (const [i, replica] of replicas.entries()) {
    const share = reconciled(replica).size / widgets;
    assert.ok(share > 0.15 && share < 0.55, `${replica.identity} reconciled ${share} of the widgets`);
    // Sharded on the server: a replica receives about its share of the events, not all of them.
    assert.ok(
      (events[i] as number) < 0.6 * widgets,
      `${replica.identity} received ${events[i]} widget events`,
    );
  }

  const [victim, ...survivors] = replicas as [OperatorProcess, ...OperatorProcess[]];
  const victimKeys = reconciled(victim);
  const killedAt = now();
  victim.kill("SIGKILL");
  await victim.exited;
  await eventually(
    () =>
      [...victimKeys].every((key) =>
        survivors.some((s) => s.all("reconcile-start").some((e) => e.key === key)),
      ),
    { what: "the survivors to reconcile the killed replica's widgets", timeoutMs: 60_000 },
  );
  const takenOver = [...victimKeys].map((key) =>
    Math.min(
      ...survivors.flatMap((s) =>
        s
          .all("reconcile-start")
          .filter((e) => e.key === key && e.at > killedAt)
          .map((e) => e.at),
      ),
    ),
  );
  const takeoverMs = Math.max(...takenOver) - killedAt;
  assert.ok(
    takeoverMs <= leaseDurationMs + 5_000,
    `the killed replica's widgets were reconciled again after ${takeoverMs} ms`,
  );

  const fourth = startReplica(t, ns, "r4");
  const live = [...survivors, fourth];
  await eventually(() => balanced(live), {
    what: "the shards rebalanced onto a fourth replica",
    timeoutMs: 90_000,
  });
  await forEach(names, (n) =>
    client.patch(Widget, n, { spec: { message: `again ${n}` } }, { type: "merge", namespace: ns }),
  );
  await converged(client, ns, names, (n) => `again ${n}`);
  assert.ok(reconciled(fourth).size > 0.1 * widgets, "the fourth replica reconciles its share");

  assertNoKeyTogether([reconcileIntervals(victim, killedAt), ...live.map((r) => reconcileIntervals(r))]);
  t.diagnostic(
    `takeover after SIGKILL: ${Math.round(takeoverMs)} ms; widget events per replica: ${events.join(", ")}`,
  );
});
