/** What the kit refuses before it starts anything: malformed specs, unknown checks, missing spec files. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ConformanceError,
  checkNames,
  defineConformance,
  loadConformanceSpec,
  selectChecks,
} from "../../../src/testing/conformance/index.ts";

test("defineConformance refuses a spec without operator or fixtures, or with bad numbers, with one clear message", () => {
  const refuses = (spec: unknown, message: RegExp) =>
    assert.throws(
      () => defineConformance(spec as Parameters<typeof defineConformance>[0]),
      (err: unknown) =>
        err instanceof ConformanceError && err.code === "KL_CONFORMANCE" && message.test(err.message),
    );
  refuses({ fixtures: () => [] }, /needs `operator`/);
  refuses({ operator: "src/operator.ts" }, /needs `fixtures\(namespace\)`/);
  refuses(
    { operator: "src/operator.ts", fixtures: () => [], crashes: 0 },
    /crashes must be a whole number >= 1/,
  );
  refuses(
    { operator: "x.ts", fixtures: () => [], timings: { repairMs: -1 } },
    /timings\.repairMs must be a positive/,
  );
  const ok = defineConformance({ operator: "src/operator.ts", fixtures: () => [] });
  assert.equal(ok.operator, "src/operator.ts");
});

test("checks are selected by name in run order; an unknown name lists the real ones", () => {
  assert.deepEqual(
    selectChecks(["generation-honesty", "converge"]).map((c) => c.name),
    ["converge", "generation-honesty"],
  );
  assert.equal(selectChecks().length, 13);
  assert.equal(checkNames.length, 13);
  assert.throws(
    () => selectChecks(["converge", "nope"]),
    /unknown check nope; the checks are converge, idempotent,/,
  );
});

test("loadConformanceSpec names the missing file and how to write one", async () => {
  await assert.rejects(loadConformanceSpec("/nonexistent/test/conformance.ts"), (err: unknown) => {
    assert.ok(err instanceof ConformanceError);
    assert.match(
      err.message,
      /no conformance spec at \/nonexistent\/test\/conformance\.ts; write one that default-exports defineConformance/,
    );
    return true;
  });
});
