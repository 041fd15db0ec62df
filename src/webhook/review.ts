/**
 * The wire types of webhooks: `AdmissionReview` (admission.k8s.io/v1, and v1beta1, whose shape is
 * the same) and `ConversionReview` (apiextensions.k8s.io/v1). Requests are checked with zod, so a
 * malformed body is refused with the field at fault; the types of what passed come from the
 * same schemas. Responses are plain interfaces.
 */
import { z } from "zod";
import type { KubeObject } from "../api/index.ts";
import { BadWebhookRequestError } from "./errors.ts";

/** The AdmissionReview versions a webhook server answers; the response echoes the request's. */
export const admissionReviewVersions = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;

/** The ConversionReview version a webhook server answers. */
export const conversionReviewVersion = "apiextensions.k8s.io/v1";

const object = z.looseObject({ apiVersion: z.string().min(1), kind: z.string().min(1) });
const groupVersion = { group: z.string(), version: z.string() };

const userInfo = z.looseObject({
  username: z.string().optional(),
  uid: z.string().optional(),
  groups: z.array(z.string()).optional(),
  extra: z.record(z.string(), z.array(z.string())).optional(),
});

const admissionRequest = z.looseObject({
  uid: z.string().min(1),
  kind: z.looseObject({ ...groupVersion, kind: z.string() }),
  resource: z.looseObject({ ...groupVersion, resource: z.string() }),
  subResource: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
  userInfo,
  object: object.nullish(),
  oldObject: object.nullish(),
  dryRun: z.boolean().optional(),
  options: z.unknown().optional(),
});

const admissionReview = z.object({
  apiVersion: z.enum(admissionReviewVersions),
  kind: z.literal("AdmissionReview"),
  request: admissionRequest,
});

const conversionReview = z.object({
  apiVersion: z.literal(conversionReviewVersion),
  kind: z.literal("ConversionReview"),
  request: z.looseObject({
    uid: z.string().min(1),
    desiredAPIVersion: z.string().min(1),
    objects: z.array(object),
  }),
});

/** Who made an admitted request, as the apiserver authenticated them. */
export type UserInfo = z.output<typeof userInfo>;

/** The operation being admitted. */
export type Operation = z.output<typeof admissionRequest>["operation"];

/** The `request` of an AdmissionReview: what is being done, to which object, by whom. */
export type AdmissionRequest = z.output<typeof admissionRequest>;

/** An AdmissionReview as the apiserver sends it. */
export type AdmissionReview = z.output<typeof admissionReview>;

/** A ConversionReview as the apiserver sends it. */
export type ConversionReview = z.output<typeof conversionReview>;

/** One field at fault in a denied request (metav1.StatusCause). */
export interface StatusCause {
  /** Machine-readable cause, e.g. `FieldValueInvalid`. */
  type?: string;
  message?: string;
  /** The field's path, e.g. `spec.rules[0].host`. */
  field?: string;
}

/** The `status` of an answer that refuses (metav1.Status). */
export interface Status {
  status: "Success" | "Failure";
  code?: number;
  /** CamelCase, e.g. `Forbidden`, `Invalid`, `InternalError`. */
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
}

/** The `response` of an AdmissionReview. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Status;
  /** Base64 of an RFC 6902 JSON patch (mutating webhooks). */
  patch?: string;
  patchType?: "JSONPatch";
  /** Shown to the client that sent the request (`kubectl` prints them). */
  warnings?: string[];
}

/** The `response` of a ConversionReview. */
export interface ConversionResponse {
  uid: string;
  convertedObjects: KubeObject[];
  result: Status;
}

function parse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`);
  throw new BadWebhookRequestError(400, `the body is not ${what}: ${issues.join("; ")}`);
}

/** Checks a body is an AdmissionReview with a request; throws {@link BadWebhookRequestError} (400) with the fields at fault. */
export function parseAdmissionReview(body: unknown): AdmissionReview {
  return parse(admissionReview, body, `an AdmissionReview (${admissionReviewVersions.join(" or ")})`);
}

/** Checks a body is a ConversionReview with a request; throws {@link BadWebhookRequestError} (400) with the fields at fault. */
export function parseConversionReview(body: unknown): ConversionReview {
  return parse(conversionReview, body, `a ConversionReview (${conversionReviewVersion})`);
}
