/**
 * A reconcile that ensures a child the apiserver refuses with 422 (a CronJob whose schedule is not
 * a cron expression): the failure reaches the parent as a Warning event and its Ready condition,
 * is not retried, and recovers once the spec is fixed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { Event, type KubeObject, type ObjectOf, resourceType } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { controller, type Reconciler } from "../../../src/controller/index.ts";
import { ensureChild } from "../../../src/ownership/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { defineConditionSet, findCondition, writeStatus } from "../../../src/status/index.ts";
import {
  eventually,
  installKinds,
  managerMetric,
  startManager,
  testClient,
  testNamespace,
} from "../support.ts";

interface CronJobObject extends KubeObject {
  spec: {
    schedule: string;
    suspend: boolean;
    jobTemplate: {
      spec: { template: { spec: { restartPolicy: string; containers: { name: string; image: string }[] } } };
    };
  };
}

const CronJob = resourceType<CronJobObject>("batch/v1", "CronJob", "cronjobs", true);

const CrontabConditions = defineConditionSet({
  summary: "Ready",
  dependents: { CronJobReady: "normal-true" },
});

/** A schedule kept in a (suspended) CronJob; the schedule is checked by the apiserver only. */
const Crontab = defineKind({
  group: "e2e.kubeloop.dev",
  version: "v1",
  kind: "Crontab",
  scope: "Namespaced",
  spec: z.object({ schedule: z.string() }),
  conditions: CrontabConditions,
});

type CrontabObject = ObjectOf<typeof Crontab>;

function desiredCronJob(tab: CrontabObject): CronJobObject {
  const container = { name: "run", image: "busybox" };
  return {
    apiVersion: CronJob.apiVersion,
    kind: CronJob.kind,
    metadata: { name: `${tab.metadata.name}-job`, namespace: tab.metadata.namespace },
    spec: {
      schedule: tab.spec.schedule,
      suspend: true,
      jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", containers: [container] } } } },
    },
  };
}

const reconcileCrontab: Reconciler<CrontabObject> = async (ctx) => {
  const tab = ctx.object;
  if (!tab) return;
  await ensureChild(ctx, tab, CronJob, desiredCronJob(tab));
  await writeStatus(ctx, Crontab, tab, CrontabConditions, (draft) => {
    draft.set("CronJobReady", { status: "True", reason: "Scheduled", message: tab.spec.schedule });
    return {};
  });
};

async function installCrontabCrd(): Promise<void> {
  await installKinds([Crontab]);
}

/** The Warning events about crontab `name` with reason `reason`. */
async function warnings(client: Client, namespace: string, name: string, reason: string) {
  const { items } = await client.list(Event, { namespace });
  return items.filter((e) => e.type === "Warning" && e.reason === reason && e.regarding?.name === name);
}

test("a child refused with 422 shows on its parent, is not retried, and recovers when the spec is fixed", async (t) => {
  await installCrontabCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const manager = await startManager(t, { name: "crontabs-e2e", namespace: ns }, (m) => {
    controller(m).for(Crontab).owns(CronJob).reconcile(reconcileCrontab);
  });
  const tab = {
    apiVersion: Crontab.apiVersion,
    kind: Crontab.kind,
    metadata: { name: "nightly", namespace: ns },
  };
  await client.create(Crontab, { ...tab, spec: { schedule: "every night" } });

  const stalled = await eventually(
    async () => {
      const live = await client.get(Crontab, "nightly", { namespace: ns });
      const ready = findCondition(live.status?.conditions ?? [], "Ready");
      return ready?.reason === "InvalidChild" ? live : undefined;
    },
    { what: "Ready=False (InvalidChild) on the crontab", timeoutMs: 60_000 },
  );
  const conditions = stalled.status?.conditions ?? [];
  assert.equal(findCondition(conditions, "Ready")?.status, "False");
  assert.match(
    findCondition(conditions, "Ready")?.message ?? "",
    new RegExp(
      `^CronJob ${ns}/nightly-job was refused as invalid: spec\\.schedule: Invalid value: "every night"`,
    ),
  );
  assert.equal(findCondition(conditions, "Stalled")?.status, "True");
  const [event] = await eventually(
    () => warnings(client, ns, "nightly", "InvalidChild").then((w) => w.length > 0 && w),
    {
      what: "a Warning event InvalidChild on the crontab",
    },
  );
  assert.match(event?.note ?? "", /spec\.schedule/);
  const [hosted] = manager.controllers;
  assert.equal(hosted?.queue.retries(`${ns}/nightly`), 0, "no backoff retry is pending");
  assert.ok((await managerMetric(manager, "controller_runtime_terminal_reconcile_errors_total")) >= 1);

  await client.patch(
    Crontab,
    "nightly",
    { spec: { schedule: "0 3 * * *" } },
    { type: "merge", namespace: ns },
  );
  const fixed = await eventually(
    async () => {
      const live = await client.get(Crontab, "nightly", { namespace: ns });
      const ready = findCondition(live.status?.conditions ?? [], "Ready");
      return ready?.status === "True" && live.status?.observedGeneration === 2 ? live : undefined;
    },
    { what: "Ready=True once the schedule is fixed", timeoutMs: 60_000 },
  );
  assert.equal(findCondition(fixed.status?.conditions ?? [], "Stalled"), undefined);
  const cronJob = await client.get(CronJob, "nightly-job", { namespace: ns });
  assert.equal(cronJob.spec.schedule, "0 3 * * *");
});
