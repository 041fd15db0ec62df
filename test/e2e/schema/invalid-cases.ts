/**
 * The invalid-Gadget table: each row is one write the apiserver must reject, with the field and
 * message fragment it reports (taken from what kube-apiserver v1.36 answers for the generated CRD).
 */
import type { Client } from "../../../src/client/index.ts";
import { Gadget, type GadgetObject } from "./kinds.ts";

/** A spec as written on the wire, where any field may be wrong. */
export type LooseSpec = Record<string, unknown>;

/** One rejected write. */
export interface InvalidCase {
  readonly name: string;
  /** `field` of the InvalidError cause the apiserver reports. */
  readonly field: string;
  /** `reason` of that cause. */
  readonly reason: string;
  /** A fragment of its message. */
  readonly fragment: string;
  readonly write: (target: Target) => Promise<unknown>;
}

/** Where the rows write: a namespace with an existing valid Gadget for updates and status writes. */
export interface Target {
  readonly client: Client;
  readonly namespace: string;
  /** Name of the existing valid Gadget. */
  readonly existing: string;
  /** A fresh name for a create. */
  readonly freshName: string;
}

/** A valid spec with the required fields only. */
export function minimalSpec(): LooseSpec {
  return { name: "gizmo", tier: "silver", owner: "team-a", network: { port: 8080 } };
}

/** Creates a Gadget whose spec is the minimal one changed by `change`. */
function create(change: (spec: LooseSpec) => void): (target: Target) => Promise<unknown> {
  return ({ client, namespace, freshName }) => {
    const spec = minimalSpec();
    change(spec);
    return client.create(Gadget, gadgetBody(namespace, freshName, spec));
  };
}

/** Merge-patches the existing Gadget's spec. */
function updateSpec(spec: LooseSpec): (target: Target) => Promise<unknown> {
  return ({ client, namespace, existing }) =>
    client.patch(Gadget, existing, { spec }, { type: "merge", namespace });
}

/** Merge-patches the existing Gadget's status through the status subresource. */
function patchStatus(status: Record<string, unknown>): (target: Target) => Promise<unknown> {
  return ({ client, namespace, existing }) =>
    client.status.patch(Gadget, existing, { status }, { type: "merge", namespace });
}

/** A Ready condition with every required field, changed by `fields`. */
function ready(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "Ready",
    status: "True",
    reason: "AllGood",
    message: "",
    lastTransitionTime: "2026-01-01T00:00:00Z",
    ...fields,
  };
}

/** A Gadget object with a spec that may be invalid. */
export function gadgetBody(namespace: string, name: string, spec: LooseSpec | undefined): GadgetObject {
  return {
    apiVersion: Gadget.apiVersion,
    kind: Gadget.kind,
    metadata: { name, namespace },
    ...(spec === undefined ? {} : { spec }),
  } as GadgetObject;
}

const typeInvalid = "FieldValueTypeInvalid";
const invalid = "FieldValueInvalid";
const required = "FieldValueRequired";
const tooLong = "FieldValueTooLong";
const notSupported = "FieldValueNotSupported";

/** The rows. */
export const invalidCases: readonly InvalidCase[] = [
  {
    name: "wrong type: replicas is a string",
    field: "spec.replicas",
    reason: typeInvalid,
    fragment: "spec.replicas in body must be of type integer",
    write: create((s) => {
      s.replicas = "three";
    }),
  },
  {
    name: "missing required field: name",
    field: "spec.name",
    reason: required,
    fragment: "Required value",
    write: create((s) => {
      delete s.name;
    }),
  },
  {
    name: "missing spec",
    field: "spec",
    reason: required,
    fragment: "Required value",
    write: ({ client, namespace, freshName }) =>
      client.create(Gadget, gadgetBody(namespace, freshName, undefined)),
  },
  {
    name: "out of range: replicas above maximum",
    field: "spec.replicas",
    reason: invalid,
    fragment: "spec.replicas in body should be less than or equal to 5",
    write: create((s) => {
      s.replicas = 9;
    }),
  },
  {
    name: "out of range: replicas below minimum",
    field: "spec.replicas",
    reason: invalid,
    fragment: "spec.replicas in body should be greater than or equal to 1",
    write: create((s) => {
      s.replicas = 0;
    }),
  },
  {
    name: "too long: name over 20 characters",
    field: "spec.name",
    reason: tooLong,
    fragment: "may not be more than 20 bytes",
    write: create((s) => {
      s.name = "g".repeat(21);
    }),
  },
  {
    name: "too short: name under 3 characters",
    field: "spec.name",
    reason: invalid,
    fragment: "spec.name in body should be at least 3 chars long",
    write: create((s) => {
      s.name = "ab";
    }),
  },
  {
    name: "pattern mismatch: name with capitals",
    field: "spec.name",
    reason: invalid,
    fragment: "spec.name in body should match '^[a-z][a-z0-9-]*$'",
    write: create((s) => {
      s.name = "Gizmo";
    }),
  },
  {
    name: "bad enum: tier",
    field: "spec.tier",
    reason: notSupported,
    fragment: 'Unsupported value: "platinum": supported values: "bronze", "silver", "gold"',
    write: create((s) => {
      s.tier = "platinum";
    }),
  },
  {
    name: "too many items: four tags",
    field: "spec.tags",
    reason: "FieldValueTooMany",
    fragment: "must have at most 3 items",
    write: create((s) => {
      s.tags = ["a", "b", "c", "d"];
    }),
  },
  {
    name: "too long: an array item",
    field: "spec.tags[1]",
    reason: tooLong,
    fragment: "may not be more than 10 bytes",
    write: create((s) => {
      s.tags = ["ok", "much-too-long"];
    }),
  },
  {
    name: "wrong type: a map value",
    field: "spec.labels.env",
    reason: typeInvalid,
    fragment: "spec.labels.env in body must be of type string",
    write: create((s) => {
      s.labels = { env: 5 };
    }),
  },
  {
    name: "missing required nested field: network.port",
    field: "spec.network.port",
    reason: required,
    fragment: "Required value",
    write: create((s) => {
      s.network = { protocol: "TCP" };
    }),
  },
  {
    name: "out of range: nested network.port",
    field: "spec.network.port",
    reason: invalid,
    fragment: "spec.network.port in body should be less than or equal to 65535",
    write: create((s) => {
      s.network = { port: 70000 };
    }),
  },
  {
    name: "bad enum: nested network.protocol",
    field: "spec.network.protocol",
    reason: notSupported,
    fragment: 'Unsupported value: "SCTP": supported values: "TCP", "UDP"',
    write: create((s) => {
      s.network = { port: 8080, protocol: "SCTP" };
    }),
  },
  {
    name: "wrong type: int-or-string given a boolean",
    field: "spec.targetPort",
    reason: typeInvalid,
    fragment: "spec.targetPort in body must be of type integer,string",
    write: create((s) => {
      s.targetPort = true;
    }),
  },
  {
    name: "bad format: date-time",
    field: "spec.startAt",
    reason: typeInvalid,
    fragment: "spec.startAt in body must be of type date-time",
    write: create((s) => {
      s.startAt = "next tuesday";
    }),
  },
  {
    name: "CEL rule at the root of spec (reported at its fieldPath)",
    field: "spec.replicas",
    reason: invalid,
    fragment: "gold gadgets need at least 2 replicas",
    write: create((s) => {
      s.tier = "gold";
    }),
  },
  {
    name: "CEL rule at the root of spec, on update",
    field: "spec.replicas",
    reason: invalid,
    fragment: "gold gadgets need at least 2 replicas",
    write: updateSpec({ tier: "gold", replicas: 1 }),
  },
  {
    name: "CEL rule on a nested field",
    field: "spec.network",
    reason: invalid,
    fragment: "UDP needs a port of 1024 or above",
    write: create((s) => {
      s.network = { port: 53, protocol: "UDP" };
    }),
  },
  {
    name: "immutable field changed on update",
    field: "spec.owner",
    reason: invalid,
    fragment: "owner cannot be changed",
    write: updateSpec({ owner: "team-b" }),
  },
  {
    name: "status: condition with an unknown status",
    field: "status.conditions[0].status",
    reason: notSupported,
    fragment: 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
    write: patchStatus({ conditions: [ready({ status: "Maybe" })] }),
  },
  {
    name: "status: condition reason not CamelCase",
    field: "status.conditions[0].reason",
    reason: invalid,
    fragment: "conditions[0].reason in body should match",
    write: patchStatus({ conditions: [ready({ reason: "all good" })] }),
  },
  {
    name: "status: condition without lastTransitionTime",
    field: "status.conditions[0].lastTransitionTime",
    reason: required,
    fragment: "Required value",
    write: patchStatus({ conditions: [{ type: "Ready", status: "True", reason: "AllGood", message: "" }] }),
  },
  {
    name: "status: two conditions of one type (list map)",
    field: "status.conditions[1]",
    reason: "FieldValueDuplicate",
    fragment: 'Duplicate value: {"type":"Ready"}',
    write: patchStatus({ conditions: [ready(), ready({ status: "False" })] }),
  },
  {
    name: "status: observedGeneration of the wrong type",
    field: "status.observedGeneration",
    reason: typeInvalid,
    fragment: "observedGeneration in body must be of type integer",
    write: patchStatus({ observedGeneration: "latest" }),
  },
];
