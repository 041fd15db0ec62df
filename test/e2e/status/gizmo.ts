/**
 * The status tests' kind: a `Gizmo` (group e2e.kubeloop.dev) defined with `defineKind`, whose
 * controller owns one ConfigMap holding the spec and reports `ConfigMapReady` and `Degraded`,
 * rolled up into `Ready`. Its CRD is generated from the kind and installed with `installKinds`.
 */
import { z } from "zod";
import type { ObjectOf } from "../../../src/api/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { defineConditionSet } from "../../../src/status/index.ts";
import { installKinds } from "../support.ts";

/** The conditions the Gizmo controller owns. */
export const GizmoConditions = defineConditionSet({
  summary: "Ready",
  dependents: { ConfigMapReady: "normal-true", Degraded: "normal-false" },
});

/** The Gizmo kind. */
export const Gizmo = defineKind({
  group: "e2e.kubeloop.dev",
  version: "v1",
  kind: "Gizmo",
  scope: "Namespaced",
  spec: z.object({ replicas: z.int().min(0).max(5), message: z.string() }),
  status: z.object({
    replicas: z.int().optional().describe("Replicas recorded in the ConfigMap."),
    configMap: z.string().optional().describe("Name of the owned ConfigMap, once it exists."),
  }),
  conditions: GizmoConditions,
  printerColumns: [{ name: "Replicas", type: "integer", jsonPath: ".status.replicas" }],
});

/** A Gizmo object. */
export type GizmoObject = ObjectOf<typeof Gizmo>;

/** A Gizmo's spec. */
export type GizmoSpec = GizmoObject["spec"];

/** Installs the generated Gizmo CRD (server-side apply, idempotent) and waits until it is served. */
export async function installGizmoCrd(): Promise<void> {
  await installKinds([Gizmo]);
}

/**
 * How kubectl names gizmo `name` unambiguously: other tests of the run serve a kind Gizmo in other
 * groups at the same time, and a bare `gizmo/…` may resolve to theirs.
 */
export function gizmoResource(name: string): string {
  return `${Gizmo.plural}.${Gizmo.group}/${name}`;
}

/** A Gizmo manifest. */
export function gizmo(namespace: string, name: string, spec: GizmoSpec): GizmoObject {
  return { apiVersion: Gizmo.apiVersion, kind: Gizmo.kind, metadata: { name, namespace }, spec };
}

/** The name of the ConfigMap a Gizmo owns. */
export function configMapName(name: string): string {
  return `${name}-config`;
}
