/**
 * The Gizmo operator of the webhook end-to-end tests: a kind whose v1 (hub, storage) splits
 * v1alpha1's `address` into `hostname` and `port` and adds `tier`, with a validating webhook
 * (hostnames without underscores; an object named `writer` makes the handler try a write, which a
 * dry run or `sideEffects: None` must refuse), a defaulting one (`tier`) and the conversion. Its
 * handlers report what they saw through a callback; run as deployed, they print it (emit.ts).
 */
import { z } from "zod";
import { ConfigMap, type KubeObject, type LabelSelector, resourceType } from "../../../src/api/index.ts";
import { defineOperator, type Operator } from "../../../src/operator/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import {
  type AdmissionContext,
  conversion,
  defaulting,
  Verdict,
  validating,
} from "../../../src/webhook/index.ts";
import { emitter, operatorModuleOf } from "../fixtures/emit.ts";

/** The API group of the kinds. */
export const group = "webhooks.e2e.kubeloop.dev";

/** A kind whose v1 (hub, storage) splits v1alpha1's `address` into `hostname` and `port`, and adds `tier`. */
export function twoVersionKind(kind: string) {
  return defineKind({
    group,
    version: "v1",
    kind,
    scope: "Namespaced",
    spec: z.object({ hostname: z.string(), port: z.int(), tier: z.string().optional() }),
    versions: [{ name: "v1alpha1", spec: z.object({ address: z.string() }) }],
  });
}

export const Gizmo = twoVersionKind("Gizmo");

export interface GizmoV1 extends KubeObject {
  spec: { hostname: string; port: number; tier?: string };
}

export interface GizmoV1alpha1 extends KubeObject {
  spec: { address: string };
}

export const GizmoV1alpha1 = resourceType<GizmoV1alpha1>(`${group}/v1alpha1`, "Gizmo", "gizmos", true);

/** What a handler reports: `validated` (`name`, `dryRun`) and `write-refused` (`error`: its code). */
export type Report = (event: string, fields: Record<string, unknown>) => void;

/** Tries to write (a handler must not, on a dry run or with sideEffects None), reporting the refusal. */
async function tryToWrite(gizmo: GizmoV1, ctx: AdmissionContext, report: Report): Promise<void> {
  const metadata = { name: `${gizmo.metadata.name}-side-effect`, namespace: gizmo.metadata.namespace };
  await ctx.client
    .create(ConfigMap, { apiVersion: "v1", kind: "ConfigMap", metadata })
    .catch((err: { code?: string; name?: string }) =>
      report("write-refused", { error: err.code ?? err.name }),
    );
}

/** The three declarations for `kind`, sending only requests from the namespaces `namespaceSelector` selects (when given). */
export function gizmoWebhooks(
  report: Report,
  { kind = Gizmo, namespaceSelector = undefined as LabelSelector | undefined } = {},
) {
  const selecting = namespaceSelector ? { namespaceSelector } : {};
  const validation = validating(
    kind,
    async (gizmo, _old, ctx) => {
      report("validated", { name: gizmo.metadata.name ?? "", dryRun: ctx.dryRun });
      if (gizmo.metadata.name === "writer") await tryToWrite(gizmo as GizmoV1, ctx, report);
      if (gizmo.spec.hostname.includes("_")) {
        return Verdict.deny("the hostname is not a DNS name", {
          causes: [{ field: "spec.hostname", message: "must not contain underscores" }],
        });
      }
    },
    selecting,
  );
  const defaults = defaulting(
    kind,
    (gizmo) => {
      gizmo.spec.tier ??= "standard";
      return gizmo;
    },
    selecting,
  );
  const versions = conversion(kind, {
    spokes: {
      v1alpha1: {
        toHub: (old: GizmoV1alpha1): GizmoV1 => {
          const [hostname = "", port = "0"] = old.spec.address.split(":");
          return { ...old, spec: { hostname, port: Number(port) } };
        },
        fromHub: (hub: GizmoV1): GizmoV1alpha1 => ({
          ...hub,
          spec: { address: `${hub.spec.hostname}:${hub.spec.port}` },
        }),
        lacks: ["spec.tier"],
      },
    },
  });
  return [validation, defaults, versions];
}

/**
 * The Gizmo operator named `name` (no controllers: its webhooks are what it serves), watching
 * every namespace or only `watchNamespace`. In a replica its handlers print as `$POD_NAME`.
 */
export function gizmos(name: string, { watchNamespace }: { watchNamespace?: string } = {}): Operator {
  const emit = emitter(process.env.POD_NAME ?? name);
  return defineOperator({
    name,
    kinds: [Gizmo],
    webhooks: gizmoWebhooks((event, fields) => emit(event, fields)),
    ...(watchNamespace ? { watchNamespace } : {}),
    setup() {},
  });
}

/** The text of an operator module exporting {@link gizmos}`(name, options)`, for fixtures/deployed.ts. */
export function gizmosModule(name: string, options: { watchNamespace?: string } = {}): string {
  return operatorModuleOf(import.meta.url, "gizmos", name, options);
}

/** A Gizmo manifest in YAML, for kubectl. */
export function gizmoYaml(namespace: string, name: string, spec: string, version = "v1"): string {
  return [
    `apiVersion: ${group}/${version}`,
    "kind: Gizmo",
    `metadata: { name: ${name}, namespace: ${namespace} }`,
    `spec: ${spec}`,
  ].join("\n");
}
