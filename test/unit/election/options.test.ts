import assert from "node:assert/strict";
import { hostname } from "node:os";
import { describe, it } from "node:test";
import {
  defaultElectionTimings,
  InvalidElectionConfigError,
  LeaderElector,
  type LeaderElectorOptions,
} from "../../../src/election/index.ts";
import { FakeLeaseStore } from "./support.ts";

const base: LeaderElectorOptions = { client: new FakeLeaseStore(), name: "lock" };

describe("LeaderElector options", () => {
  it("defaults to controller-runtime's timings and a host-name identity with a random suffix", () => {
    const one = new LeaderElector(base);
    const two = new LeaderElector(base);
    assert.deepEqual(one.timings, { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    assert.deepEqual(one.timings, defaultElectionTimings);
    assert.ok(one.identity.startsWith(`${hostname()}_`), one.identity);
    assert.ok(one.identity.length > hostname().length + 8);
    assert.notEqual(one.identity, two.identity);
    assert.equal(one.isLeader(), false);
  });

  it("accepts timings that keep client-go's order", () => {
    const e = new LeaderElector({
      ...base,
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 2_000,
    });
    assert.deepEqual(e.timings, { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 2_000 });
  });

  const invalid: [string, Partial<LeaderElectorOptions>, string][] = [
    ["leaseDuration equal to renewDeadline", { leaseDurationMs: 10_000 }, "leaseDurationMs"],
    ["leaseDuration below renewDeadline", { leaseDurationMs: 5_000 }, "leaseDurationMs"],
    ["renewDeadline equal to 1.2 × retryPeriod", { renewDeadlineMs: 2_400 }, "renewDeadlineMs"],
    ["renewDeadline below retryPeriod", { retryPeriodMs: 11_000 }, "renewDeadlineMs"],
    ["a zero retryPeriod", { retryPeriodMs: 0 }, "retryPeriodMs"],
    ["a negative renewDeadline", { renewDeadlineMs: -1 }, "renewDeadlineMs"],
    ["a non-finite leaseDuration", { leaseDurationMs: Number.POSITIVE_INFINITY }, "leaseDurationMs"],
    ["a leaseDuration of fractional seconds", { leaseDurationMs: 15_500 }, "leaseDurationMs"],
    ["an empty name", { name: "" }, "name"],
    ["a name the apiserver refuses for a Lease", { name: "widgets-member-host_1f2e" }, "name"],
    ["a name of 254 characters", { name: "a".repeat(254) }, "name"],
    ["an empty identity", { identity: "" }, "identity"],
  ];
  for (const [what, options, option] of invalid) {
    it(`rejects ${what}`, () => {
      assert.throws(
        () => new LeaderElector({ ...base, ...options }),
        (err: unknown) =>
          err instanceof InvalidElectionConfigError &&
          err.code === "KL_ELECTION_INVALID_CONFIG" &&
          err.option === option &&
          err.message.includes(option),
      );
    });
  }
});
