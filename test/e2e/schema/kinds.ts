/**
 * Kinds for the schema end-to-end tests (group `schema.e2e.kubeloop.dev`), defined with
 * `defineKind` only: `Gadget` uses every schema feature the CRD generator handles, `Sprocket` is
 * the primary kind of the small operator whose RBAC is derived from its controller.
 */
import { z } from "zod";
import { resourceType } from "../../../src/api/index.ts";
import {
  type AnyKind,
  defineKind,
  immutable,
  type KindObject,
  withRules,
} from "../../../src/schema/index.ts";
import { installKinds } from "../support.ts";

const group = "schema.e2e.kubeloop.dev";

/** A nested object with its own CEL rule (reported on the object itself: no fieldPath). */
const network = withRules(
  z.object({
    port: z.int().min(1).max(65535),
    protocol: z.enum(["TCP", "UDP"]).default("TCP"),
    host: z.string().max(63).optional(),
  }),
  { rule: "self.protocol != 'UDP' || self.port >= 1024", message: "UDP needs a port of 1024 or above" },
);

/** The Gadget spec: one field per schema feature. */
export const gadgetSpec = z.object({
  name: z
    .string()
    .min(3)
    .max(20)
    .regex(/^[a-z][a-z0-9-]*$/),
  replicas: z.int().min(1).max(5).default(1),
  tier: z.enum(["bronze", "silver", "gold"]),
  description: z.string().max(40).optional(),
  owner: immutable(z.string().min(1), "owner cannot be changed"),
  network,
  tags: z.array(z.string().max(10)).max(3).optional(),
  labels: z.record(z.string(), z.string().max(30)).optional(),
  targetPort: z.union([z.int(), z.string()]).optional(),
  startAt: z.iso.datetime().optional(),
});

const gadgetStatus = z.object({ endpoint: z.string().optional() });

/** The representative kind, served as `v1` (storage) and the deprecated `v1beta1`. */
export const Gadget = defineKind({
  group,
  version: "v1",
  kind: "Gadget",
  scope: "Namespaced",
  spec: gadgetSpec,
  status: gadgetStatus,
  conditions: { summary: "Ready", types: ["Ready"] },
  printerColumns: [
    { name: "Tier", type: "string", jsonPath: ".spec.tier" },
    { name: "Replicas", type: "integer", jsonPath: ".spec.replicas", priority: 1 },
  ],
  shortNames: ["gdg"],
  validations: [
    {
      rule: "self.tier != 'gold' || self.replicas >= 2",
      message: "gold gadgets need at least 2 replicas",
      fieldPath: ".replicas",
    },
  ],
  versions: [
    {
      name: "v1beta1",
      spec: gadgetSpec,
      status: gadgetStatus,
      deprecated: true,
      deprecationWarning: "schema.e2e.kubeloop.dev/v1beta1 Gadget is deprecated; use v1",
    },
  ],
});

export type GadgetObject = KindObject<typeof gadgetSpec, typeof gadgetStatus>;

/** The same kind through its deprecated version (objects convert by apiVersion only). */
export const GadgetV1beta1 = resourceType<GadgetObject>(`${group}/v1beta1`, "Gadget", "gadgets", true);

const sprocketSpec = z.object({ message: z.string().min(1).max(100) });
const sprocketStatus = z.object({ configMap: z.string().optional() });

/** The primary kind of the RBAC test operator: it owns a ConfigMap mirroring `spec.message`. */
export const Sprocket = defineKind({
  group,
  version: "v1",
  kind: "Sprocket",
  scope: "Namespaced",
  spec: sprocketSpec,
  status: sprocketStatus,
  conditions: { summary: "Ready", types: ["Ready"] },
});

export type SprocketObject = KindObject<typeof sprocketSpec, typeof sprocketStatus>;

/** Installs generated CRDs with server-side apply and waits until each is Established. */
export async function installCrds(kinds: readonly AnyKind[]): Promise<void> {
  await installKinds(kinds, { fieldManager: "schema-e2e" });
}
