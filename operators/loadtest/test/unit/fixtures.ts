/** LoadTests and Jobs for the LoadTest operator's unit tests. */
import type { JobObject } from "kubeloop";
import type { JobCondition } from "kubeloop/api/batch/v1";
import { LoadTest, type LoadTestObject } from "../../api.ts";
import { desiredJob } from "../../job.ts";

/** When the Job started in these tests. */
export const START = "2026-03-01T10:00:00Z";
/** When the LoadTest was created. */
export const CREATED = "2026-03-01T09:59:50Z";
/** When the last worker finished. */
export const END = "2026-03-01T10:01:35Z";
/** Milliseconds of an RFC 3339 time. */
export const ms = (time: string) => Date.parse(time);

/** A LoadTest as the apiserver would store it (spec defaults applied), generation 1, no status. */
export function loadTest(
  spec: Record<string, unknown> = {},
  status?: LoadTestObject["status"],
): LoadTestObject {
  return {
    apiVersion: LoadTest.apiVersion,
    kind: LoadTest.kind,
    metadata: {
      name: "checkout",
      namespace: "perf",
      uid: "uid-checkout",
      generation: 1,
      creationTimestamp: CREATED,
    },
    spec: LoadTest.parseSpec({ count: 4, testScript: { config: { configMap: "script" } }, ...spec }),
    ...(status ? { status } : {}),
  };
}

/** A Job condition of `type`, True unless told otherwise. */
export function condition(type: string, at = END, status: JobCondition["status"] = "True"): JobCondition {
  return { type, status, reason: `${type}Reason`, message: `${type} message`, lastTransitionTime: at };
}

/** The LoadTest's Job with the given status. */
export function job(status: JobObject["status"], count = 4): JobObject {
  return { ...desiredJob(loadTest({ count })), status };
}
