/** A representative kind used across the schema tests. */
import { z } from "zod";
import { defineKind, immutable, listMap, preserveUnknown, withRules } from "../../../src/schema/index.ts";

/** The condition set the Widget controller writes (structural stand-in for `src/status`). */
export const widgetConditions = { summary: "Ready", types: ["Ready", "Reconciling", "Stalled"] } as const;

const port = z.object({
  name: z.string().max(15).describe("Port name, unique in the list."),
  port: z.int().min(1).max(65535),
  targetPort: z.union([z.int(), z.string()]).optional().describe("Number or name of the target port."),
});

const window = withRules(
  z.object({ notBefore: z.iso.datetime().optional(), notAfter: z.iso.datetime().optional() }),
  {
    rule: "!has(self.notBefore) || !has(self.notAfter) || self.notBefore < self.notAfter",
    message: "notBefore must precede notAfter",
    fieldPath: ".notBefore",
  },
);

/** Spec of the Widget kind: one field per schema feature the CRD generator handles. */
export const widgetSpec = z.object({
  image: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[a-z0-9./:@-]+$/)
    .describe("Container image to run."),
  replicas: z.int().min(0).max(10).default(1),
  mode: z.enum(["Active", "Standby"]),
  owner: immutable(z.string().min(1), "owner is immutable"),
  paused: z.boolean().optional(),
  resources: z.object({ cpu: z.string(), memory: z.string().optional() }).optional(),
  ports: listMap(z.array(port).max(8), "name").optional(),
  labels: z.record(z.string(), z.string()).optional(),
  values: preserveUnknown().optional().describe("Free-form values passed to the workload."),
  window: window.optional(),
  tags: z.array(z.string().max(63)).max(16).optional(),
  tier: z.literal("standard").default("standard"),
  ratio: z.number().min(0).max(1).optional(),
});

/** Status of the Widget kind (conditions and observedGeneration are added by kubeloop). */
export const widgetStatus = z.object({
  readyReplicas: z.int().min(0).optional(),
  endpoint: z.string().optional(),
});

/** The representative kind. */
export const Widget = defineKind({
  group: "example.kubeloop.dev",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: widgetSpec,
  status: widgetStatus,
  conditions: widgetConditions,
  printerColumns: [
    { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
    { name: "Mode", type: "string", jsonPath: ".spec.mode", priority: 1 },
  ],
  shortNames: ["wdg"],
  categories: ["kubeloop"],
  validations: [
    {
      rule: "self.mode != 'Standby' || self.replicas == 0",
      message: "standby widgets run no replicas",
      fieldPath: ".replicas",
    },
  ],
  description: "Widget is a representative kubeloop kind.",
});
