/**
 * The AdmissionReview v1 requests bench/webhooks.ts sends, as the apiserver sends them for
 * `kubectl apply` of a ConfigMap (the object with kubectl's last-applied annotation and managed
 * fields, the user, the create or update options), and the check of every answer: a server that
 * answers wrongly cannot win. Bodies are made once as templates around the uid, so the load
 * generator spends no time building JSON.
 */
import type { ConfigMapObject } from "../../src/api/index.ts";

/** One request body, but for its uid, and the answer it must get. */
export interface ReviewTemplate {
  readonly before: string;
  readonly after: string;
  readonly operation: "CREATE" | "UPDATE";
  /** Whether the check admits it. */
  readonly allowed: boolean;
}

/** The field a denial must blame. */
export const deniedField = "data.port";

const uidMark = "@@uid@@";
const goodPorts = ["8080", "443", "65535", "1", "9443"];
const badPorts = ["80a", "0", "70000", "-1", "08080"];

function configMap(name: string, port: string, resourceVersion: string): ConfigMapObject {
  const labels = { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "bench" };
  const data = { port, "app.properties": `server.port=${port}\nlog.level=info\nfeature.flags=a,b,c\n` };
  const applied = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { labels, name, namespace: "bench" },
    data,
  };
  const fieldsV1 = {
    "f:data": { ".": {}, "f:app.properties": {}, "f:port": {} },
    "f:metadata": {
      "f:annotations": { ".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {} },
      "f:labels": { ".": {}, "f:app.kubernetes.io/name": {}, "f:app.kubernetes.io/part-of": {} },
    },
  };
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace: "bench",
      uid: "6f1c2d0e-5b7a-4c1e-9d3f-2a8b7c6d5e4f",
      resourceVersion,
      creationTimestamp: "2026-11-26T10:00:00Z",
      labels,
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": `${JSON.stringify(applied)}\n` },
      managedFields: [
        {
          manager: "kubectl-client-side-apply",
          operation: "Update",
          apiVersion: "v1",
          time: "2026-11-26T10:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1,
        },
      ],
    },
    data,
  };
}

function review(i: number, operation: ReviewTemplate["operation"], port: string): object {
  const name = `app-${i}`;
  const gvk = { group: "", version: "v1", kind: "ConfigMap" };
  const gvr = { group: "", version: "v1", resource: "configmaps" };
  const options = { apiVersion: "meta.k8s.io/v1", fieldManager: "kubectl-client-side-apply" };
  const update = operation === "UPDATE";
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: uidMark,
      kind: gvk,
      resource: gvr,
      requestKind: gvk,
      requestResource: gvr,
      name,
      namespace: "bench",
      operation,
      userInfo: { username: "kubernetes-admin", groups: ["kubeadm:cluster-admins", "system:authenticated"] },
      object: configMap(name, port, update ? "2042" : ""),
      oldObject: update ? configMap(name, "8080", "2041") : null,
      dryRun: false,
      options: { ...options, kind: update ? "UpdateOptions" : "CreateOptions", fieldValidation: "Strict" },
    },
  };
}

/**
 * `count` request templates: CREATE and UPDATE in turn, every fourth one denied (its `data.port`
 * invalid in one of five ways), the others admitted.
 */
export function reviewTemplates(count = 64): ReviewTemplate[] {
  return Array.from({ length: count }, (_, i) => {
    const operation = i % 2 === 0 ? "CREATE" : "UPDATE";
    const allowed = i % 4 !== 3;
    const ports = allowed ? goodPorts : badPorts;
    const port = ports[i % ports.length] as string;
    const [before, after] = JSON.stringify(review(i, operation, port)).split(uidMark) as [string, string];
    return { before, after, operation, allowed };
  });
}

/** The body of `template` with `uid`. */
export function bodyOf(template: ReviewTemplate, uid: string): string {
  return template.before + uid + template.after;
}

interface Answer {
  kind?: string;
  response?: {
    uid?: string;
    allowed?: boolean;
    status?: { code?: number; details?: { causes?: { field?: string }[] } };
  };
}

/**
 * What is wrong with an answer (undefined when it is right): HTTP 200, an AdmissionReview whose
 * response echoes `uid` and has `allowed` as expected, and a denial that is a 422 blaming
 * {@link deniedField}.
 */
export function wrongAnswer(status: number, text: string, uid: string, allowed: boolean): string | undefined {
  if (status !== 200) return `HTTP ${status}: ${text.slice(0, 200)}`;
  let answer: Answer;
  try {
    answer = JSON.parse(text) as Answer;
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  const r = answer.response;
  if (answer.kind !== "AdmissionReview" || !r) return `no AdmissionReview response: ${text.slice(0, 200)}`;
  if (r.uid !== uid) return `uid ${r.uid} answered for ${uid}`;
  if (r.allowed !== allowed) return `allowed ${r.allowed}, expected ${allowed} (${uid})`;
  if (allowed) return undefined;
  const field = r.status?.details?.causes?.[0]?.field;
  if (r.status?.code !== 422 || field !== deniedField) {
    return `denial without a 422 blaming ${deniedField}: ${JSON.stringify(r.status)}`;
  }
  return undefined;
}
