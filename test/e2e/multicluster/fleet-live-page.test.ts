/**
 * A fleet shown by its host manager, end to end on the run's cluster (engaged under two names,
 * `east` and `west`, beside `gone`, whose apiserver does not answer; the host runs a controller of
 * its own of the same name as theirs): the host's `/metrics` has
 * each engaged cluster's reconciles labelled with its cluster, its `/readyz` the fleet's check,
 * and its live page, in a headless browser, a section per cluster: the engaged ones with their
 * controllers and the reconcile of a ConfigMap the test creates, `gone` saying why it is not
 * engaged. A screenshot is written under `.scratch/live-page/`.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { ConfigMap } from "../../../src/api/index.ts";
import { untilAborted } from "../../../src/clock/index.ts";
import { controller } from "../../../src/controller/index.ts";
import { LIVE_PATH } from "../../../src/endpoints/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { type ClusterProvider, Fleet, inCluster } from "../../../src/multicluster/index.ts";
import { consoleErrors, openBrowser, shown } from "../fixtures/browser.ts";
import { eventually, testClient, testLogger, testNamespace } from "../support.ts";

const outputDir = join(dirname(fileURLToPath(import.meta.url)), "../../../.scratch/live-page");

test("a host manager's metrics, /readyz and live page show each cluster of its fleet", async (t) => {
  const hub = await testClient();
  const namespace = await testNamespace(t);
  const local = { host: "127.0.0.1", port: 0 };
  const host = await Manager.create({
    name: "fleet-live",
    client: hub,
    logger: testLogger(),
    leaderElection: false,
    metrics: { ...local, secure: false },
    health: local,
    livePage: true,
  });
  // Scoped to the test's namespace: the live page keeps a controller's last 50 reconciles, and the
  // run cluster's other ConfigMaps would push the probe's out of them.
  const scope = { namespace };
  controller(host)
    .for(ConfigMap, { scope })
    .reconcile(async () => undefined);
  const provider: ClusterProvider = {
    name: "run-cluster",
    run: async (sink, signal) => {
      for (const name of ["east", "west"]) sink.engage(name, hub.connection);
      sink.engage("gone", { ...hub.connection, server: "https://127.0.0.1:1" });
      sink.ready();
      await untilAborted(signal);
    },
  };
  const fleet = new Fleet({
    name: "fleet-live",
    manager: host,
    providers: [provider],
    setup: (manager, cluster) =>
      controller(manager)
        .for(ConfigMap, { scope })
        .reconcile(inCluster(cluster, async () => undefined)),
    // Probes faster than the default (every 5 s, 3 failures) only to keep the file short: a stopped
    // apiserver is disengaged here in ~1 s rather than ~15 s. bench/fleet-outage.ts runs the defaults.
    probe: { intervalMs: 200, failureThreshold: 1, timeoutMs: 1000 },
    gracefulShutdownMs: 1000,
    logger: testLogger(),
  });
  const stop = new AbortController();
  const running = Promise.all([host.start(stop.signal), fleet.start(stop.signal)]);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await hub.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "probe", namespace },
  });
  await eventually(
    () =>
      fleet
        .clusters()
        .map((c) => `${c.name}:${c.engaged && c.synced}:${c.reason}`)
        .join() === "east:true:discovered,gone:false:unreachable,west:true:discovered",
    { what: "east and west engaged and synced, gone unreachable" },
  );

  const get = async (port: number | undefined, path: string) =>
    (await request(`http://127.0.0.1:${port}${path}`)).body.text();
  const reconciled = (cluster: string) =>
    new RegExp(
      `^controller_runtime_reconcile_total\\{controller="configmap",result="success",cluster="${cluster}"\\} [1-9]`,
      "m",
    );
  await eventually(
    async () => {
      const metrics = await get(host.ports.metrics, "/metrics");
      return reconciled("east").test(metrics) && reconciled("west").test(metrics);
    },
    { what: "east's and west's reconciles on the host's /metrics" },
  );
  assert.match(await get(host.ports.health, "/readyz?verbose"), /^\[\+\]fleet ok$/m);

  const page = await (await openBrowser(t)).newPage();
  const errors = consoleErrors(page);
  await page.goto(`http://127.0.0.1:${host.ports.health}${LIVE_PATH}`);
  for (const cluster of ["east", "west"]) {
    const row = `[data-cluster="${cluster}"] [data-controller="configmap"] tr[data-key="${namespace}/probe"]`;
    await shown(page, row, `${cluster}'s reconcile of ${namespace}/probe`);
  }
  await shown(page, `[data-cluster="gone"] h2:has-text("not engaged: unreachable")`, "gone, not engaged");
  mkdirSync(outputDir, { recursive: true });
  const screenshot = join(outputDir, "fleet.png");
  await page.screenshot({ path: screenshot, fullPage: true });
  t.diagnostic(`screenshot: ${screenshot}`);
  assert.deepEqual(errors, [], "the page logged no console errors");
});
