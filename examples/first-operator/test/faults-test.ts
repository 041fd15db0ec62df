/** The fault-proxy test of docs/testing.md (test/faults.test.ts in the first operator). */
// #region testing-proxy
import { test } from "node:test";
import { ConfigMap, isTrue } from "kubeloop";
import { eventually, startOperator, TEST_KUBECONFIG_ENV, testNamespace } from "kubeloop/testing";
import { startProxy, upstreamFromKubeconfig } from "kubeloop/testing/proxy";
import { Backup } from "../src/api.ts";
import operator from "../src/operator.ts";

test("a Backup becomes Ready through failed CronJob creations", async (t) => {
  const upstream = upstreamFromKubeconfig(process.env[TEST_KUBECONFIG_ENV] ?? "");
  const proxy = await startProxy({ upstream });
  const running = await startOperator(operator, { kubeconfig: proxy.kubeconfig() });
  t.after(async () => {
    await running.stop();
    await proxy.stop();
  });
  const namespace = await testNamespace(running.client, t);
  proxy.inject({ verb: "create", resource: "cronjobs", times: 2 }, { status: 500 });
  await running.client.create(Backup, {
    apiVersion: Backup.apiVersion,
    kind: Backup.kind,
    metadata: { name: "nightly", namespace },
    spec: { schedule: "0 3 * * *", source: "postgres://db:5432/app", settings: "backup-settings" },
  });
  await running.client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "backup-settings", namespace },
    data: { destination: "s3://backups" },
  });
  await eventually(
    async () =>
      isTrue((await running.client.get(Backup, "nightly", { namespace })).status?.conditions ?? [], "Ready"),
    { what: "the Backup to be Ready despite two failed CronJob creations" },
  );
});
// #endregion
