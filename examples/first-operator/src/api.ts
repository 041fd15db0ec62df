/** The first-operator guide's Backup kind (docs/first-operator.md). */
// #region first-operator-api
import { defineConditionSet, defineKind, type ObjectOf, z } from "kubeloop";

/** Backup's conditions: both roll up into the summary `Ready`. */
export const BackupConditions = defineConditionSet({
  summary: "Ready",
  dependents: { SettingsFound: "normal-true", Scheduled: "normal-true" },
});

export const Backup = defineKind({
  group: "backup.example.com",
  version: "v1alpha1",
  kind: "Backup",
  scope: "Namespaced",
  spec: z.object({
    schedule: z.string().min(9).describe("When to back up, in cron syntax, e.g. `0 3 * * *`."),
    source: z.string().min(1).describe("What to back up, e.g. postgres://db:5432/app."),
    settings: z.string().min(1).describe("The ConfigMap (same namespace) whose `destination` says where to."),
  }),
  status: z.object({
    destination: z.string().optional().describe("Where this Backup's backups are written."),
    lastScheduleTime: z.string().optional(),
  }),
  conditions: BackupConditions,
  printerColumns: [{ name: "Schedule", type: "string", jsonPath: ".spec.schedule" }],
});

export type BackupObject = ObjectOf<typeof Backup>;
// #endregion
