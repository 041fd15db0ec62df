/** ensureChild and a child the apiserver refuses as invalid: InvalidChildError, naming the child and the fields. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { ForbiddenError, InvalidError } from "../../../src/client/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import { controllerReference, ensureChild, InvalidChildError } from "../../../src/ownership/index.ts";
import { apiError, childContext, configMap, widget } from "./support.ts";

const OWNER = widget();
const desired = (): ConfigMapObject => configMap("w-config", { "bad key!": "x" });
const invalid = () =>
  apiError(InvalidError, 422, "Invalid", [
    {
      field: "data[bad key!]",
      reason: "FieldValueInvalid",
      message: 'Invalid value: "bad key!": a valid config key',
    },
    { field: "metadata.labels", message: "Invalid value: too long" },
  ]);

/** Asserts `err` is the InvalidChildError of `w-config`, keeping the apiserver's answer as its cause. */
function isInvalidChild(err: unknown): boolean {
  assert.ok(err instanceof InvalidChildError);
  assert.ok(hasCode(err, "KL_INVALID_CHILD"));
  assert.equal(err.child, "ConfigMap ns/w-config");
  assert.ok(err.cause instanceof InvalidError);
  assert.match(
    err.message,
    /^ConfigMap ns\/w-config was refused as invalid: data\[bad key!\]: Invalid value: "bad key!": a valid config key; metadata\.labels: Invalid value: too long\. /,
  );
  return true;
}

describe("ensureChild: a child the apiserver refuses as invalid", () => {
  it("throws InvalidChildError from a create, naming the child and each field at fault", async () => {
    const { ctx } = childContext({ createError: invalid() });
    await assert.rejects(ensureChild(ctx, OWNER, ConfigMap, desired()), isInvalidChild);
  });

  it("throws InvalidChildError from an apply of an existing child", async () => {
    const cached = configMap("w-config", {}, { uid: "uid-c", ownerReferences: [controllerReference(OWNER)] });
    const { ctx, applies } = childContext({ stored: [cached], applyError: invalid() });
    await assert.rejects(ensureChild(ctx, OWNER, ConfigMap, desired()), isInvalidChild);
    assert.equal(applies.length, 1);
  });

  it("falls back to the apiserver's message when it names no field", async () => {
    const { ctx } = childContext({ createError: apiError(InvalidError, 400, "BadRequest") });
    await assert.rejects(
      ensureChild(ctx, OWNER, ConfigMap, desired()),
      /w-config was refused as invalid: BadRequest\./,
    );
  });

  it("lets other failures through as they are", async () => {
    const forbidden = apiError(ForbiddenError, 403, "Forbidden");
    const { ctx } = childContext({ createError: forbidden });
    await assert.rejects(ensureChild(ctx, OWNER, ConfigMap, desired()), (err) => err === forbidden);
  });
});
