/**
 * A Lease call of leader election or sharding that fails is counted in
 * `kubeloop_lease_errors_total{phase,code}` and logged; one the apiserver refused for a reason
 * retrying cannot cure (a 422 for an invalid Lease, a 403) is logged as an error with its cause,
 * so that a replica refused its membership Lease every retry period does not go unnoticed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  ServerError,
  type StatusDetails,
  UnreachableError,
} from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { ManagerMetrics } from "../../../src/manager/index.ts";
import { reportLeaseError } from "../../../src/manager/lease-errors.ts";

type ApiErrorClass = new (status: StatusDetails, request: { method: string; path: string }) => Error;

function refusal(Class: ApiErrorClass, code: number, message: string): Error {
  return new Class({ code, reason: "Test", message }, { method: "POST", path: "/leases" });
}

/** A logger keeping each line it writes, parsed. */
function captured() {
  const lines: { level: number; msg: string; err?: { message?: string } }[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("reportLeaseError", () => {
  it("logs a refusal retrying cannot cure as an error with its cause, and counts every failure by phase and code", async () => {
    const { logger, lines } = captured();
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    const invalid = refusal(InvalidError, 422, 'Lease "w-member-host_1" is invalid: metadata.name');
    reportLeaseError(logger, metrics, invalid, "acquire", "sharding");
    reportLeaseError(logger, metrics, invalid, "acquire", "sharding");
    reportLeaseError(logger, metrics, refusal(ForbiddenError, 403, "cannot list leases"), "list", "sharding");
    reportLeaseError(logger, metrics, refusal(ServerError, 503, "unavailable"), "renew", "leader election");
    reportLeaseError(logger, metrics, refusal(ConflictError, 409, "conflict"), "renew", "leader election");
    reportLeaseError(
      logger,
      metrics,
      new UnreachableError("https://x", new Error("ECONNREFUSED")),
      "renew",
      "sharding",
    );

    assert.deepEqual(
      lines.map((l) => l.level),
      [50, 50, 50, 40, 40, 40],
      "errors for the 422s and the 403, warnings for what a retry may cure",
    );
    assert.match(lines[0]?.err?.message ?? "", /is invalid: metadata\.name/, "the cause is logged");
    assert.match(
      lines[0]?.msg ?? "",
      /^sharding: the apiserver refused a Lease call \(acquire\); retrying cannot help/,
    );
    const { values } = await (metrics.registry.getSingleMetric("kubeloop_lease_errors_total")?.get() ?? {
      values: [],
    });
    assert.deepEqual(
      values.map((v) => `${v.labels.phase} ${v.labels.code}=${v.value}`),
      ["acquire 422=2", "list 403=1", "renew 503=1", "renew 409=1", "renew unreachable=1"],
    );
  });
  it("names the fixes of a Lease namespace that does not exist: create it, POD_NAMESPACE, --leader-elect=false", () => {
    const { logger, lines } = captured();
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    const missing = new NotFoundError(
      {
        code: 404,
        reason: "NotFound",
        message: 'namespaces "backup" not found',
        details: { name: "backup", kind: "namespaces" },
      },
      { method: "POST", path: "/apis/coordination.k8s.io/v1/namespaces/backup/leases" },
    );
    reportLeaseError(logger, metrics, missing, "acquire", "leader election");
    const [line, ...more] = lines;
    assert.equal(more.length, 0);
    assert.equal(line?.level, 50);
    assert.match(line?.msg ?? "", /^leader election: the namespace backup of its Lease does not exist/);
    for (const fix of [
      "kubectl create namespace backup",
      "POD_NAMESPACE",
      "--leader-elect=false",
      "kubeloop run",
    ]) {
      assert.ok(line?.msg.includes(fix), fix);
    }
  });
});
