/** The first-operator guide's desired-state builders (docs/first-operator.md). */
// #region first-operator-desired
import type { ConfigMapObject } from "kubeloop";
import { CronJob, type CronJobObject } from "kubeloop/api";
import type { BackupObject } from "./api.ts";

/** Where this Backup's backups go under the destination: unique to this object, even after re-creation. */
export function prefixOf(backup: BackupObject): string {
  return `${backup.metadata.namespace}/${backup.metadata.name}/${backup.metadata.uid}`;
}

/** The ConfigMap the backup Job reads its environment from. */
export function desiredEnv(backup: BackupObject, destination: string): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${backup.metadata.name}-backup-env`, namespace: backup.metadata.namespace },
    data: { SOURCE: backup.spec.source, DESTINATION: destination, PREFIX: prefixOf(backup) },
  };
}

/** The CronJob that runs the backup on the Backup's schedule. */
export function desiredCronJob(backup: BackupObject): CronJobObject {
  return {
    apiVersion: CronJob.apiVersion,
    kind: CronJob.kind,
    metadata: { name: backup.metadata.name, namespace: backup.metadata.namespace },
    spec: {
      schedule: backup.spec.schedule,
      concurrencyPolicy: "Forbid",
      jobTemplate: {
        spec: {
          backoffLimit: 2,
          template: {
            spec: {
              restartPolicy: "Never",
              containers: [
                {
                  name: "backup",
                  image: "ghcr.io/example/backup:1.0",
                  envFrom: [{ configMapRef: { name: `${backup.metadata.name}-backup-env` } }],
                },
              ],
            },
          },
        },
      },
    },
  };
}
// #endregion
