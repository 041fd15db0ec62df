/**
 * @module api
 *
 * The shapes every other part of kubeloop speaks: Kubernetes object metadata, the generic
 * {@link KubeObject}, {@link ResourceType} descriptors that name a kind (API version, kind,
 * plural resource, scope, subresources) and carry its TypeScript type, and the built-in kinds.
 *
 * Every group/version the apiserver serves has a generated module, `kubeloop/api/<group>/<version>`
 * (`kubeloop/api/apps/v1`, `kubeloop/api/core/v1`, `kubeloop/api/meta/v1`), with full types from
 * its OpenAPI schema (`DeploymentObject`, `PodSpec`, ...) and a descriptor per kind
 * (`Deployment`), whose name is also the object type (`Deployment` is `DeploymentObject` as a
 * type); this module re-exports each kind's preferred version, and the nested types
 * written daily: `Container`, `PodSpec`, `PodTemplateSpec`, `ObjectReference`, `LabelSelector`
 * and `PolicyRule`. Custom kinds get their descriptors from `defineKind` in `kubeloop/schema`, or
 * from `kubeloop import` for a CRD.
 *
 * This folder holds types and constants only; it does not talk to a cluster. Every descriptor
 * lives in one small generated module (`descriptors.ts`) the others re-export, so importing kinds
 * loads it and never the modules their types are declared in: types cost nothing at run time.
 *
 * @example
 * ```ts
 * import { CronJob } from "kubeloop/api";
 *
 * const nightly: CronJob = {
 *   apiVersion: "batch/v1",
 *   kind: "CronJob",
 *   metadata: { name: "nightly", namespace: "default" },
 *   spec: {
 *     schedule: "0 3 * * *",
 *     jobTemplate: { spec: { template: { spec: { containers: [{ name: "run" }] } } } },
 *   },
 * };
 * await client.create(CronJob, nightly);
 * ```
 */

/*
 * Besides the shapes of meta.ts and each kind's preferred version: the nested types operator
 * authors write daily. Every other one is in its group/version's module (`kubeloop/api/core/v1`).
 */
export type { Container, ObjectReference, PodSpec, PodTemplateSpec } from "./core/v1.ts";
export type { LabelSelector } from "./meta/v1.ts";
export * from "./meta.ts";
export * from "./preferred.ts";
export type { PolicyRule } from "./rbac.authorization.k8s.io/v1.ts";
