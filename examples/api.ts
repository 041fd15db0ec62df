// #region api
import { CronJob } from "kubeloop/api";

const nightly: CronJob = {
  apiVersion: "batch/v1",
  kind: "CronJob",
  metadata: { name: "nightly", namespace: "default" },
  spec: {
    schedule: "0 3 * * *",
    jobTemplate: { spec: { template: { spec: { containers: [{ name: "run" }] } } } },
  },
};
await client.create(CronJob, nightly);
// #endregion

declare const client: import("kubeloop").Client;
