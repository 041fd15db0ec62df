/** The unit test of docs/testing.md (test/desired.test.ts in the first operator). */
// #region testing-unit
import assert from "node:assert/strict";
import { test } from "node:test";
import type { BackupObject } from "../src/api.ts";
import { desiredCronJob, desiredEnv } from "../src/desired.ts";

const backup: BackupObject = {
  apiVersion: "backup.example.com/v1alpha1",
  kind: "Backup",
  metadata: { name: "nightly", namespace: "db", uid: "0b5e" },
  spec: { schedule: "0 3 * * *", source: "postgres://db:5432/app", settings: "backup-settings" },
};

test("the CronJob runs on the Backup's schedule, one run at a time", () => {
  const cronJob = desiredCronJob(backup);
  assert.equal(cronJob.spec?.schedule, "0 3 * * *");
  assert.equal(cronJob.spec?.concurrencyPolicy, "Forbid");
});

test("each Backup writes under a prefix of its own", () => {
  assert.equal(desiredEnv(backup, "s3://backups").data?.PREFIX, "db/nightly/0b5e");
});
// #endregion
