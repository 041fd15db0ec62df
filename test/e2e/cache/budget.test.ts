/**
 * What a manager's cache costs, on the real apiserver: `kubeloop_cache_bytes{kind}` follows the
 * ConfigMaps its informer holds, and a kind given a budget (`cache.budgets`) is told once when its
 * caches go over it — a warning naming the fixes and `kubeloop_cache_budget_exceeded` 1 — and again
 * once they are back under 90 % of it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { pino } from "pino";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { controller } from "../../../src/controller/index.ts";
import { eventually, managerMetric, startManager, testClient, testNamespace } from "../support.ts";

const budget = 64 * 1024;
const count = 40;

function configMap(namespace: string, i: number): ConfigMapObject {
  // About 3 KB of data each: 40 of them hold about twice the budget.
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${i}`, namespace },
    data: { v: "x".repeat(3000 + i) },
  };
}

test("a kind's cache says what it holds, and crossing its budget is told once each way", async (t) => {
  const ns = await testNamespace(t);
  const admin = await testClient();
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const manager = await startManager(
    t,
    { name: "budget-e2e", namespace: ns, logger, cache: { budgets: { "v1/ConfigMap": budget } } },
    (m) => {
      controller(m)
        .for(ConfigMap)
        .reconcile(async () => {});
    },
  );
  const bytes = () => managerMetric(manager, "kubeloop_cache_bytes", { kind: "ConfigMap" });
  const exceeded = () => managerMetric(manager, "kubeloop_cache_budget_exceeded", { kind: "ConfigMap" });
  const told = (what: RegExp) => lines.filter((l) => what.test(l.msg));
  assert.equal(await exceeded(), 0, "a budgeted kind's gauge is 0 from the start");
  const before = await bytes();

  for (let i = 0; i < count; i++) await admin.create(ConfigMap, configMap(ns, i));
  await eventually(async () => (await exceeded()) === 1, { what: "kubeloop_cache_budget_exceeded 1" });
  const held = await bytes();
  assert.ok(held - before > count * 3000, `the estimate grew by more than the data: ${before} → ${held}`);
  assert.ok(held > budget, `over the budget: ${held}`);
  const over = told(/over its budget of 0\.1 MiB/);
  assert.equal(over.length, 1, "one warning for the crossing");
  assert.equal(over[0]?.level, 40);
  assert.match(over[0]?.msg ?? "", /cache\.budgets\["v1\/ConfigMap"\].*metadataOnly/);

  for (let i = 0; i < count; i++) await admin.delete(ConfigMap, `cm-${i}`, { namespace: ns });
  await eventually(async () => (await exceeded()) === 0, {
    what: "kubeloop_cache_budget_exceeded back to 0",
  });
  assert.ok((await bytes()) < budget * 0.9);
  assert.equal(told(/back under its budget/).length, 1, "one line once back under");
  assert.equal(told(/over its budget/).length, 1, "no second warning");
});
