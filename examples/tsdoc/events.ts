import type { Client, JobObject, KubeObject } from "kubeloop";
import { EventRecorder } from "kubeloop/events";

declare const client: Client;
declare const backup: KubeObject;
declare const job: JobObject;
declare const err: Error;

// #region EventRecorder
const recorder = new EventRecorder(client, { reportingController: "example.com/backup-controller" });
recorder.normal(backup, "Created", "Create", `created Job ${job.metadata.name}`, { related: job });
recorder.warning(backup, "BackupFailed", "Reconcile", err.message);
await recorder.close();
// #endregion
