/** The `kubeloop/testing` module doc's example: one end-to-end test of the first operator. */
// #region testing
import { test } from "node:test";
import { eventually, startOperator, testNamespace } from "kubeloop/testing";
import { Backup } from "../src/api.ts";
import operator from "../src/operator.ts";

test("a Backup reports its conditions", async (t) => {
  const running = await startOperator(operator); // its CRDs installed, its caches synced
  t.after(() => running.stop()); // rejects when it used a kind it does not declare
  const namespace = await testNamespace(running.client, t); // deleted when the test ends
  await running.client.create(Backup, {
    apiVersion: Backup.apiVersion,
    kind: Backup.kind,
    metadata: { name: "nightly", namespace },
    spec: { schedule: "0 3 * * *", source: "postgres://db:5432/app", settings: "backup-settings" },
  });
  const conditions = async () =>
    (await running.client.get(Backup, "nightly", { namespace })).status?.conditions;
  await eventually(conditions, { what: "the Backup's conditions" });
});
// #endregion
