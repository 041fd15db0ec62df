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
 * (`Deployment`); this module re-exports each kind's preferred version. Custom kinds get their
 * descriptors from `defineKind` in `kubeloop/schema`, or from `kubeloop import` for a CRD.
 *
 * This folder holds types and constants only; it does not talk to a cluster. Every descriptor
 * lives in one small generated module (`descriptors.ts`) the others re-export, so importing kinds
 * loads it and never the modules their types are declared in: types cost nothing at run time.
 *
 * @example
 * ```ts
 * import { CronJob, type CronJobObject } from "kubeloop/api";
 *
 * const nightly: CronJobObject = {
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
 * The partial types of the kinds kubeloop's own code and operators use, until those move to the
 * generated ones (issue 18); an explicit export takes precedence over the generated `export *`.
 */
export {
  type BuiltinCondition,
  ClusterRole,
  ClusterRoleBinding,
  ConfigMap,
  type ConfigMapObject,
  type Container,
  CustomResourceDefinition,
  type CustomResourceDefinitionObject,
  Deployment,
  type DeploymentObject,
  Event,
  type EventObject,
  Job,
  type JobObject,
  type LabelSelector,
  Lease,
  type LeaseObject,
  Namespace,
  type NamespaceObject,
  Node,
  type NodeObject,
  type ObjectReference,
  Pod,
  type PodObject,
  type PodSpec,
  type PodTemplateSpec,
  type PolicyRule,
  Role,
  RoleBinding,
  type RoleBindingObject,
  type RoleObject,
  Secret,
  type SecretObject,
  Service,
  ServiceAccount,
  type ServiceAccountObject,
  type ServiceObject,
  SubjectAccessReview,
  type SubjectAccessReviewObject,
  TokenReview,
  type TokenReviewObject,
  type UserInfo,
} from "./builtins.ts";
export * from "./meta.ts";
export * from "./preferred.ts";
