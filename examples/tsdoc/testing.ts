import assert from "node:assert/strict";
import { after, test } from "node:test";
import { type Client, ConfigMap, type InputOf, type Manager, type Operator } from "kubeloop";
import type { Cluster } from "kubeloop/cluster";
import { Fleet, type FleetSetup, kubeconfigSecretProvider } from "kubeloop/multicluster";
import {
  CONVERSION_HOST_ENV,
  eventually,
  eventuallyWhile,
  exposition,
  queryProblems,
  serveConversions,
  startOperator,
  testFleet,
  testNamespace,
  whileServingConversions,
} from "kubeloop/testing";
import {
  type ConformanceSpec,
  formatReport,
  idempotent,
  openFleetSession,
  runCheck,
  runConformance,
} from "kubeloop/testing/conformance";
import { startProxy } from "kubeloop/testing/proxy";
// Not on a door: the PromQL reader is kubeloop's own tests' (src/testing/internal).
import { metricReferences } from "../../src/testing/internal/promql.ts";
import { Greeting } from "../readme-greeting.ts";

declare const client: Client;
declare const hub: Client;
declare const setup: FleetSetup;
declare const operator: Operator;
declare const spec: ConformanceSpec;
declare const kubeconfig: string;
declare const namespace: string;
declare const manager: Manager;
declare const signal: AbortSignal;
declare const cluster: Cluster;
declare function greeting(name: string, namespace: string): InputOf<typeof Greeting>;
declare function runTests(env: NodeJS.ProcessEnv): Promise<number>;

// #region runConformance
const report = await runConformance(spec, { checks: ["idempotent", "outputs-watched"] });
console.log(formatReport(report));
assert.ok(report.ok);
// #endregion

// #region openFleetSession
const fleet = await openFleetSession(spec, [
  { name: "member-0", kubeconfig: "member-0.kubeconfig" },
  { name: "member-1", kubeconfig: "member-1.kubeconfig" },
]);
for (const member of fleet.members) console.log((await runCheck(member, idempotent)).outcome);
await fleet.close();
// #endregion

// #region serveConversions
const host = await serveConversions(client, [operator]);
process.env[CONVERSION_HOST_ENV] = host.url;
// #endregion

// #region whileServingConversions
const code = await whileServingConversions(kubeconfig, [operator], (env) =>
  runTests({ ...process.env, ...env }),
);
// #endregion

// #region eventually
const data = await eventually(async () => (await client.get(ConfigMap, "hello", { namespace })).data, {
  what: "the ConfigMap hello",
});
// #endregion

// #region eventuallyWhile
await eventuallyWhile(manager.start(signal), "the operator stopped while starting", () => manager.ready);
// #endregion

// #region exposition
const exposed = exposition(await (await fetch("http://127.0.0.1:8080/metrics")).text());
exposed.get("workqueue_depth")?.labels; // Set { "name", "controller", "priority" }
// #endregion

// #region queryProblems
queryProblems('sum by (controller) (rate(workqueue_adds_total{job="widgets"}[5m]))', exposed, ["job"]);
// #endregion

// #region startOperator
const running = await startOperator(operator);
after(() => running.stop());
// #endregion

// #region testNamespace
test("a Greeting gets its ConfigMap", async (t) => {
  const namespace = await testNamespace(running.client, t);
  await running.client.create(Greeting, greeting("hello", namespace));
  await eventually(() => running.client.get(ConfigMap, "hello", { namespace }));
});
// #endregion

// #region testFleet
test("a member joining gets the ConfigMap", async (t) => {
  const fleet = await testFleet(hub, t, { members: 2 }); // stopped when the test ends
  const providers = [kubeconfigSecretProvider({ client: hub, namespace: fleet.namespace })];
  const stop = new AbortController();
  const running = new Fleet({ name: "settings", providers, setup }).start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await fleet.join("member-0", { env: "prod" }); // its kubeconfig Secret, labelled
  await eventually(() => fleet.member(0).client.get(ConfigMap, "settings", { namespace: "default" }));
});
// #endregion

// #region metricReferences
metricReferences('sum by (controller) (rate(controller_runtime_reconcile_total{job="widgets"}[5m]))');
// [{ metric: "controller_runtime_reconcile_total", labels: ["job", "controller"] }]
// #endregion

// #region startProxy
await using proxy = await startProxy({ cluster });
const rule = proxy.inject({ verb: "watch", resource: "configmaps" }, { dropEvents: "all" });
// ... run a controller with proxy.kubeconfig() ...
rule.remove();
// #endregion

console.log(code, data);
