/** ensureChild and a child the apiserver refuses as invalid: InvalidChildError, naming the child and the fields. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { ForbiddenError, InvalidError, ServerError } from "../../../src/client/index.ts";
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

  it("says the owner's name made the child's name invalid when it did, not to correct its spec", async () => {
    const owner = widget({ name: "my.site" });
    const nameRefused = apiError(InvalidError, 422, "Invalid", [
      {
        field: "metadata.name",
        reason: "FieldValueInvalid",
        message:
          "Invalid value: \"my.site-config\": a DNS-1035 label must consist of lower case alphanumeric characters or '-'",
      },
    ]);
    const { ctx } = childContext({ createError: nameRefused });
    const err = await ensureChild(ctx, owner, ConfigMap, configMap("my.site-config", {})).catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof InvalidChildError);
    assert.match(err.message, /metadata\.name: Invalid value: "my\.site-config": a DNS-1035 label/);
    assert.match(
      err.message,
      /Its name is made from the owner's name "my\.site", which is not valid in a ConfigMap's name: /,
    );
    assert.doesNotMatch(err.message, /Correct the owner's spec/);
  });

  it("falls back to the apiserver's message when it names no field", async () => {
    const { ctx } = childContext({ createError: apiError(InvalidError, 400, "BadRequest") });
    await assert.rejects(
      ensureChild(ctx, OWNER, ConfigMap, desired()),
      /w-config was refused as invalid: BadRequest\./,
    );
  });

  it("takes a 500 from server-side apply for a body that does not fit the schema as an invalid child", async () => {
    // What kube-apiserver 1.36 answers when an apply names a field the kind does not declare, or
    // gives a field the wrong type or a list two entries of one key: no reason, code 500.
    for (const message of [
      "failed to create typed patch object (ns/w-config; /v1, Kind=ConfigMap): .spec: field not declared in schema",
      "failed to create typed patch object (ns/w; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string",
    ]) {
      const status = { code: 500, reason: "HTTP500", message };
      const refused = new ServerError(status, {
        method: "PATCH",
        path: "/api/v1/namespaces/ns/configmaps/w-config",
      });
      const cached = configMap(
        "w-config",
        {},
        { uid: "uid-c", ownerReferences: [controllerReference(OWNER)] },
      );
      const { ctx } = childContext({ stored: [cached], applyError: refused });
      await assert.rejects(ensureChild(ctx, OWNER, ConfigMap, desired()), (err) => {
        assert.ok(err instanceof InvalidChildError);
        assert.equal(err.cause.statusCode, 500);
        assert.equal(
          err.message.startsWith(`ConfigMap ns/w-config was refused as invalid: ${message}. `),
          true,
        );
        return true;
      });
    }
  });

  it("lets other failures through as they are, a 500 of another cause among them", async () => {
    const failing = new ServerError(
      { code: 500, reason: "InternalError", message: "Internal error occurred: failed calling webhook" },
      { method: "PATCH", path: "/" },
    );
    const cached = configMap("w-config", {}, { uid: "uid-c", ownerReferences: [controllerReference(OWNER)] });
    const { ctx: applying } = childContext({ stored: [cached], applyError: failing });
    await assert.rejects(ensureChild(applying, OWNER, ConfigMap, desired()), (err) => err === failing);

    const forbidden = apiError(ForbiddenError, 403, "Forbidden");
    const { ctx } = childContext({ createError: forbidden });
    await assert.rejects(ensureChild(ctx, OWNER, ConfigMap, desired()), (err) => err === forbidden);
  });
});
