import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UndeclaredKindsError } from "../../../src/testing/index.ts";

describe("UndeclaredKindsError", () => {
  it("names the operator, the kinds and the declarations that fix it", () => {
    const err = new UndeclaredKindsError("backup", ["ConfigMap (v1)", "Job (batch/v1)"]);
    assert.equal(err.code, "KL_UNDECLARED_KINDS");
    assert.deepEqual(err.kinds, ["ConfigMap (v1)", "Job (batch/v1)"]);
    assert.match(
      err.message,
      /^the operator backup used ConfigMap \(v1\), Job \(batch\/v1\) without declaring it/,
    );
    assert.match(err.message, /\.owns\(Kind\).*\.watches\(Kind, map\).*permissions in defineOperator/);
  });
});
