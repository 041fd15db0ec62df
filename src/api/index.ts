/**
 * @module api
 *
 * The shapes every other part of kubeloop speaks: Kubernetes object metadata, the generic
 * {@link KubeObject}, and {@link ResourceType} descriptors that name a kind (API version, kind,
 * plural resource, scope) and carry its TypeScript type. Descriptors for the built-in kinds the
 * framework and its operators use live in `builtins.ts`; custom kinds get theirs from
 * `defineKind` in `kubeloop/schema`.
 *
 * This folder holds types and constants only; it does not talk to a cluster.
 *
 * @example
 * ```ts
 * import { ConfigMap, type ConfigMapObject } from "kubeloop";
 *
 * const cm: ConfigMapObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: {} };
 * await client.create(ConfigMap, cm);
 * ```
 */
export * from "./builtins.ts";
export * from "./meta.ts";
