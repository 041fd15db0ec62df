/** The first-operator guide's conformance spec (docs/first-operator.md: test/conformance.ts). */
// #region first-operator-conformance
import type { ConfigMapObject, KubeObject } from "kubeloop";
import { defineConformance } from "kubeloop/testing/conformance";
import { Backup, type BackupObject } from "../src/api.ts";

function settings(namespace: string): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "backup-settings", namespace },
    data: { destination: "s3://backups" },
  };
}

function backup(namespace: string, schedule: string): BackupObject {
  return {
    apiVersion: Backup.apiVersion,
    kind: Backup.kind,
    metadata: { name: "nightly", namespace },
    spec: { schedule, source: "postgres://db:5432/app", settings: "backup-settings" },
  };
}

// The type argument types the Backups `mutate` (and `settled`) receive.
export default defineConformance<BackupObject>({
  operator: "src/operator.ts",
  // Inputs first, then the primary objects.
  fixtures: (namespace): KubeObject[] => [settings(namespace), backup(namespace, "0 3 * * *")],
  // A spec change that changes an output: the CronJob's schedule must follow it.
  mutate: (obj, round) => ({ ...obj, spec: { ...obj.spec, schedule: `${round} 3 * * *` } }),
});
// #endregion
