/**
 * Type-level tests of the generated built-in API: `tsc -p tsconfig.json` compiles this file, so a
 * `@ts-expect-error` that is not an error fails the build. At run time it only checks descriptors.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { HorizontalPodAutoscaler } from "../../../src/api/autoscaling/v1.ts";
import type { Container, ServiceSpec } from "../../../src/api/core/v1.ts";
import type { Job as JobFromApi, KubeObject } from "../../../src/api/index.ts";
import {
  CronJob,
  type CronJobObject,
  Deployment,
  type JobObject,
  Service,
} from "../../../src/api/preferred.ts";
import type { Client } from "../../../src/client/index.ts";
import { type ChildContext, ensureChild } from "../../../src/ownership/index.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_proof?: T) => {};

const cronJob: CronJobObject = {
  apiVersion: "batch/v1",
  kind: "CronJob",
  metadata: { name: "nightly", namespace: "default" },
  spec: {
    schedule: "0 3 * * *",
    concurrencyPolicy: "Forbid",
    jobTemplate: {
      spec: {
        template: { spec: { containers: [{ name: "run", image: "busybox" }], restartPolicy: "Never" } },
      },
    },
  },
};

test("a CronJob misspelled, a Service type out of its enum, a container without a name do not compile", () => {
  const misspelled: CronJobObject = {
    ...cronJob,
    // @ts-expect-error `schedul` is not a field of CronJobSpec.
    spec: { ...cronJob.spec, schedul: "0 3 * * *" },
  };
  // @ts-expect-error "LoadBalancers" is not a Service type.
  const wrongType: ServiceSpec = { type: "LoadBalancers" };
  // @ts-expect-error a container's name is required.
  const unnamed: Container = { image: "busybox" };
  assert.ok(misspelled && wrongType && unnamed);
});

test("reading a Job's status gives numbers; objects of generated kinds are KubeObjects", () => {
  const job = {} as JobObject;
  assertType<Equals<typeof job.status, import("../../../src/api/batch/v1.ts").JobStatus | undefined>>();
  const succeeded = job.status?.succeeded;
  assertType<Equals<typeof succeeded, number | undefined>>();
  const asKubeObject: KubeObject = cronJob;
  assert.equal(asKubeObject.kind, "CronJob");
});

test("a built-in kind's name is its object type too, as `import type { CronJob }` reads it", () => {
  assertType<Equals<CronJob, CronJobObject>>();
  assertType<Equals<JobFromApi, JobObject>>();
  assertType<Equals<import("../../../src/api/batch/v1.ts").CronJob, CronJobObject>>();
  assertType<
    Equals<import("../../../src/index.ts").ConfigMap, import("../../../src/index.ts").ConfigMapObject>
  >();
  const nightly: CronJob = cronJob;
  // @ts-expect-error the type named CronJob is the object, not the descriptor.
  const notADescriptor: CronJob = CronJob;
  assert.equal(CronJob.kind, nightly.kind, "the value named CronJob is still the descriptor");
  assert.ok(notADescriptor);
});

test("descriptors carry plural, scope and subresources from discovery", () => {
  assert.deepEqual(
    { ...Deployment },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      plural: "deployments",
      namespaced: true,
      subresources: ["scale", "status"],
    },
  );
  assert.equal(CronJob.plural, "cronjobs");
  assert.equal(Service.subresources?.includes("proxy"), true);
  assert.equal(HorizontalPodAutoscaler.apiVersion, "autoscaling/v1");
});

test("server-side apply and ensureChild take apply configurations: every field optional, names still checked", () => {
  const meta = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
  } as const;
  const writes = (client: Client, ctx: ChildContext, owner: KubeObject) => [
    client.apply(Deployment, { ...meta, spec: { replicas: 2 } }),
    // @ts-expect-error `replica` is not a field of DeploymentSpec.
    client.apply(Deployment, { ...meta, spec: { replica: 2 } }),
    ensureChild(ctx, owner, Deployment, {
      ...meta,
      spec: { template: { spec: { containers: [{ image: "nginx" }] } } },
    }),
    client.apply(Service, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      // @ts-expect-error a Service's type is one of its enum's values, in an apply configuration too.
      spec: { type: "Nodeport" },
    }),
  ];
  assert.equal(typeof writes, "function");
});
