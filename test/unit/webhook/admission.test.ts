/** `validating` and `defaulting`: paths, what a handler is given, and how its outcome is answered. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { ConfigMap, type KubeObject, Pod } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import {
  type AdmissionContext,
  type AdmissionWebhook,
  defaulting,
  Verdict,
  validating,
  WebhookDeclarationError,
} from "../../../src/webhook/index.ts";
import { parseAdmissionReview } from "../../../src/webhook/review.ts";
import { fakeConnection } from "../client/support.ts";
import { admissionReview } from "./support.ts";

const Widget = defineKind({
  group: "apps.example.com",
  version: "v1beta2",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({ replicas: z.int().optional(), tier: z.string().optional() }),
});

const widget = (replicas?: number) => ({
  apiVersion: "apps.example.com/v1beta2",
  kind: "Widget",
  metadata: { name: "w", namespace: "ns" },
  spec: replicas === undefined ? {} : { replicas },
});

function admit(webhook: AdmissionWebhook, review: ReturnType<typeof admissionReview>) {
  const { request } = parseAdmissionReview(review);
  const ctx: AdmissionContext = {
    operation: request.operation,
    dryRun: request.dryRun === true,
    userInfo: request.userInfo,
    request,
    client: new Client(fakeConnection()),
    cache: { reader: () => Promise.reject(new Error("unused")) },
    signal: new AbortController().signal,
  };
  return webhook.admit(request, ctx);
}

function decodedPatch(answer: { patch?: string }): unknown {
  return JSON.parse(Buffer.from(answer.patch ?? "", "base64").toString("utf8"));
}

describe("webhook paths", () => {
  it("are controller-runtime's: group with dashes, version, lower-case kind", () => {
    assert.equal(validating(Widget, () => {}).path, "/validate-apps-example-com-v1beta2-widget");
    assert.equal(defaulting(Widget, (w) => w).path, "/mutate-apps-example-com-v1beta2-widget");
    assert.equal(validating(Pod, () => {}).path, "/validate--v1-pod");
  });

  it("come with sideEffects None and the apiserver's 10 s timeout unless declared", () => {
    const webhook = validating(ConfigMap, () => {});
    assert.equal(webhook.sideEffects, "None");
    assert.equal(webhook.timeoutSeconds, 10);
    assert.equal(
      defaulting(ConfigMap, (c) => c, { timeoutSeconds: 30, sideEffects: "NoneOnDryRun" }).timeoutSeconds,
      30,
    );
  });

  it("refuse a timeout outside the apiserver's 1 to 30 seconds", () => {
    for (const timeoutSeconds of [0, 31, 2.5]) {
      assert.throws(
        () => validating(Widget, () => {}, { timeoutSeconds }),
        (err) =>
          err instanceof WebhookDeclarationError &&
          err.code === "KL_WEBHOOK_DECLARATION" &&
          /1 to 30/.test(err.message),
      );
    }
  });
});

describe("validating", () => {
  it("admits when the handler returns nothing, and passes the warnings of Verdict.allow", async () => {
    assert.deepEqual(
      await admit(
        validating(Widget, () => {}),
        admissionReview("CREATE", widget(1)),
      ),
      { allowed: true },
    );
    const warned = validating(Widget, () => Verdict.allow("spec.tier is deprecated"));
    assert.deepEqual(await admit(warned, admissionReview("CREATE", widget(1))), {
      allowed: true,
      warnings: ["spec.tier is deprecated"],
    });
  });

  it("denies with 403 Forbidden, or with 422 Invalid and the field causes", async () => {
    const forbidden = validating(Widget, () =>
      Verdict.deny("widgets are frozen", { warnings: ["see the runbook"] }),
    );
    assert.deepEqual(await admit(forbidden, admissionReview("CREATE", widget(1))), {
      allowed: false,
      status: { status: "Failure", code: 403, reason: "Forbidden", message: "widgets are frozen" },
      warnings: ["see the runbook"],
    });
    const invalid = validating(Widget, async (w) =>
      (w.spec.replicas ?? 0) > 5
        ? Verdict.deny("too many replicas", {
            causes: [{ field: "spec.replicas", message: "must be at most 5" }],
          })
        : undefined,
    );
    assert.deepEqual(await admit(invalid, admissionReview("CREATE", widget(9))), {
      allowed: false,
      status: {
        status: "Failure",
        code: 422,
        reason: "Invalid",
        message: "too many replicas",
        details: {
          name: "w",
          group: "apps.example.com",
          kind: "Widget",
          causes: [{ type: "FieldValueInvalid", field: "spec.replicas", message: "must be at most 5" }],
        },
      },
    });
  });

  it("gives the new and old object on UPDATE, the deleted object on DELETE, and the context", async () => {
    const seen: [KubeObject, KubeObject | undefined, string, string | undefined][] = [];
    const webhook = validating(Widget, (obj, old, ctx) => {
      seen.push([obj, old, ctx.operation, ctx.userInfo.username]);
    });
    await admit(webhook, admissionReview("UPDATE", widget(2), { oldObject: widget(1) }));
    await admit(webhook, admissionReview("DELETE", null, { oldObject: widget(3) }));
    assert.deepEqual(seen, [
      [widget(2), widget(1), "UPDATE", "alice"],
      [widget(3), undefined, "DELETE", "alice"],
    ]);
  });

  it("refuses a request without the object it needs as a bad request", async () => {
    await assert.rejects(
      admit(
        validating(Widget, () => {}),
        admissionReview("UPDATE", widget(1)),
      ),
      /has no oldObject/,
    );
  });
});

describe("defaulting", () => {
  it("answers the JSON patch from the object to the one the handler returns", async () => {
    const webhook = defaulting(Widget, (w) => {
      w.spec.replicas ??= 1;
      w.metadata.labels = { "example.com/tier": "standard" };
      return w;
    });
    const answer = await admit(webhook, admissionReview("CREATE", widget()));
    assert.equal(answer.allowed, true);
    assert.equal(answer.patchType, "JSONPatch");
    assert.deepEqual(decodedPatch(answer), [
      { op: "add", path: "/metadata/labels", value: { "example.com/tier": "standard" } },
      { op: "add", path: "/spec/replicas", value: 1 },
    ]);
  });

  it("answers no patch when nothing changed, and leaves DELETE and CONNECT alone", async () => {
    let calls = 0;
    const webhook = defaulting(Widget, async (w) => {
      calls++;
      return { ...w };
    });
    assert.deepEqual(await admit(webhook, admissionReview("UPDATE", widget(1), { oldObject: widget(1) })), {
      allowed: true,
    });
    assert.deepEqual(await admit(webhook, admissionReview("DELETE", null, { oldObject: widget(1) })), {
      allowed: true,
    });
    assert.equal(calls, 1);
  });

  it("hands the handler a copy: changing it in place still yields a patch", async () => {
    const webhook = defaulting(Widget, (w) => {
      w.spec.tier = "gold";
      return w;
    });
    const answer = await admit(webhook, admissionReview("CREATE", widget(1)));
    assert.deepEqual(decodedPatch(answer), [{ op: "add", path: "/spec/tier", value: "gold" }]);
  });
});
