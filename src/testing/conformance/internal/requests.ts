/**
 * Reading the proxy's request log: which requests were the operator's reconcile writes, and how to
 * quote requests in a failure report.
 *
 * Every request through the proxy is the operator's: the kit itself talks to the apiserver
 * directly. Counting reconcile writes leaves out what is not a reconcile's doing: Lease renewals
 * (leader election), Events (history for people, written by the recorder), access reviews, and
 * the webhook server's applies of its configurations and CRD conversion stanzas with its CA (at
 * start and every minute).
 */
import { mutatingVerbs, type RequestRecord } from "../../proxy/index.ts";

/** Resources whose writes are not reconcile writes. */
export const notReconcileWrites: readonly string[] = Object.freeze([
  "leases",
  "events",
  "tokenreviews",
  "subjectaccessreviews",
  "selfsubjectaccessreviews",
  "selfsubjectrulesreviews",
  "localsubjectaccessreviews",
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "customresourcedefinitions",
]);

/** True for a mutating request that is not a Lease, an Event, an access review or a webhook server's apply. */
export function isReconcileWrite(record: RequestRecord): boolean {
  if (!mutatingVerbs.includes(record.verb)) return false;
  const resource = record.resource?.split("/")[0];
  return resource === undefined || !notReconcileWrites.includes(resource);
}

/** True for a request about `namespace`, or about a cluster-scoped resource. */
export function concerns(record: RequestRecord, namespace: string): boolean {
  return record.namespace === undefined || record.namespace === namespace;
}

/** True when the request was answered with a success status. */
export function succeeded(record: RequestRecord): boolean {
  return record.status !== undefined && record.status < 400;
}

/** True when the request created an object (POST, or a server-side apply that created it). */
export function created(record: RequestRecord): boolean {
  return (record.verb === "create" || record.verb === "patch") && record.status === 201;
}

/** One line describing a request: id, method, path, outcome, time, faults. */
export function describeRequest(record: RequestRecord): string {
  const outcome = record.status ?? (record.error ? `failed (${record.error})` : "no answer");
  const time = record.durationMs === undefined ? "in flight" : `${record.durationMs} ms`;
  const faults = record.faults.length ? ` [${record.faults.join(", ")}]` : "";
  return `#${record.id} ${record.method} ${record.path} → ${outcome} (${time})${faults}`;
}
