import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LeaseObject } from "../../../src/api/index.ts";
import { microTime, readLeaseRecord } from "../../../src/election/index.ts";

describe("Lease record helpers", () => {
  it("formats MicroTime with six fractional digits in UTC", () => {
    assert.equal(microTime(Date.UTC(2030, 0, 2, 3, 4, 5, 67)), "2030-01-02T03:04:05.067000Z");
  });

  it("reads a Lease without a spec as an empty, unheld record", () => {
    const lease: LeaseObject = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "x" },
    };
    assert.deepEqual(readLeaseRecord(lease), {
      holderIdentity: "",
      leaseDurationSeconds: 0,
      acquireTime: "",
      renewTime: "",
      leaseTransitions: 0,
    });
  });

  it("reads absent fields as empty", () => {
    const spec = { leaseDurationSeconds: 15, leaseTransitions: 2 };
    const record = readLeaseRecord({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {},
      spec,
    });
    assert.equal(record.holderIdentity, "");
    assert.equal(record.renewTime, "");
    assert.equal(record.leaseTransitions, 2);
  });
});
