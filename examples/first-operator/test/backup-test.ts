/** The first-operator guide's end-to-end tests (docs/first-operator.md: test/backup.test.ts). */
// #region first-operator-test
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ConfigMap, isTrue, NotFoundError } from "kubeloop";
import { CronJob } from "kubeloop/api";
import { eventually, type RunningOperator, startOperator, testNamespace } from "kubeloop/testing";
import { Backup } from "../src/api.ts";
import { prefixOf } from "../src/desired.ts";
import operator from "../src/operator.ts";
import { store } from "../src/store.ts";

let running: RunningOperator;

before(async () => {
  running = await startOperator(operator);
});

after(() => running.stop());

function createSettings(namespace: string) {
  return running.client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "backup-settings", namespace },
    data: { destination: "s3://backups" },
  });
}

function createBackup(namespace: string) {
  return running.client.create(Backup, {
    apiVersion: Backup.apiVersion,
    kind: Backup.kind,
    metadata: { name: "nightly", namespace },
    spec: { schedule: "0 3 * * *", source: "postgres://db:5432/app", settings: "backup-settings" },
  });
}

/** The Backup once its condition `type` is True. */
function whenTrue(namespace: string, type: string) {
  return eventually(
    async () => {
      const backup = await running.client.get(Backup, "nightly", { namespace });
      return isTrue(backup.status?.conditions ?? [], type) && backup;
    },
    { what: `the Backup to be ${type}` },
  );
}

test("a Backup schedules a CronJob and becomes Ready", async (t) => {
  const namespace = await testNamespace(running.client, t);
  await createSettings(namespace);
  await createBackup(namespace);
  await whenTrue(namespace, "Ready");
  const cronJob = await running.client.get(CronJob, "nightly", { namespace });
  assert.equal(cronJob.spec?.schedule, "0 3 * * *");
});

test("a Backup waits for its settings ConfigMap", async (t) => {
  const namespace = await testNamespace(running.client, t);
  await createBackup(namespace);
  await eventually(
    async () => {
      const backup = await running.client.get(Backup, "nightly", { namespace });
      return backup.status?.conditions?.some((c) => c.type === "SettingsFound" && c.status === "False");
    },
    { what: "SettingsFound=False" },
  );
  await createSettings(namespace); // the ConfigMap watch wakes the Backup
  await whenTrue(namespace, "Ready");
});

test("deleting a Backup deletes its backups first", async (t) => {
  const namespace = await testNamespace(running.client, t);
  await createSettings(namespace);
  await createBackup(namespace);
  const backup = await whenTrue(namespace, "Ready");
  await running.client.delete(Backup, "nightly", { namespace });
  await eventually(
    () =>
      running.client.get(Backup, "nightly", { namespace }).then(
        () => false,
        (err) => err instanceof NotFoundError,
      ),
    { what: "the Backup to be gone" },
  );
  assert.ok(store.deleted.includes(`s3://backups/${prefixOf(backup)}`));
});
// #endregion
