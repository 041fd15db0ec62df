// #region events
import { Client } from "kubeloop";
import { EventRecorder } from "kubeloop/events";

const client = await Client.load();
const recorder = new EventRecorder(client, { reportingController: "example.com/backup-controller", logger });
// in a reconcile:
recorder.normal(backup, "Created", "Create", `created Job ${job.metadata.name}`, { related: job });
recorder.warning(backup, "BackupFailed", "Reconcile", "the bucket does not exist");
// at shutdown:
await recorder.close(AbortSignal.timeout(5000));
// #endregion

declare const logger: import("kubeloop/events").EventLogger;
declare const backup: import("kubeloop").KubeObject;
declare const job: import("kubeloop").JobObject;
