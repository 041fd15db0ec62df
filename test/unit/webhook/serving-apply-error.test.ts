/** A failed apply of a webhook configuration names the fix of its own cause, not always RBAC's. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ForbiddenError, UnreachableError } from "../../../src/client/index.ts";
import { WebhookConfigurationError } from "../../../src/manager/index.ts";
import { webhookApplyError } from "../../../src/webhook/serving.ts";

const configuration = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: "widgets" },
};

describe("webhookApplyError", () => {
  it("is the client's own error for an apiserver that cannot be reached, not a permissions hint", () => {
    const unreachable = new UnreachableError(
      "https://127.0.0.1:6443",
      Object.assign(new Error("connect"), { code: "ECONNREFUSED" }),
    );
    const err = webhookApplyError(configuration, unreachable);
    assert.equal(err, unreachable);
    assert.match(
      (err as Error).message,
      /cannot reach the API server at https:\/\/127\.0\.0\.1:6443 \(ECONNREFUSED\)/,
    );
  });

  it("names the permission to grant when the apiserver refused the patch", () => {
    const status = { kind: "Status", code: 403, reason: "Forbidden", message: "cannot patch" };
    const err = webhookApplyError(configuration, new ForbiddenError(status, { method: "PATCH", path: "/x" }));
    assert.ok(err instanceof WebhookConfigurationError);
    assert.match(
      err.message,
      /cannot apply the webhook CA to the ValidatingWebhookConfiguration widgets .*--webhook-certs self/,
    );
  });
});
