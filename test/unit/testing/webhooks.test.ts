/**
 * What `startOperator` serves an operator's webhooks through: configurations named for each call,
 * admitting only the namespaces `testNamespace` creates in this process (labelled with its test
 * session), deleted when it stops, whether or not both kinds exist.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { eventually, TEST_SESSION_LABEL, testNamespace, testSession } from "../../../src/testing/index.ts";
import { deleteWebhookConfigurations, testWebhookServing } from "../../../src/testing/webhooks.ts";
import { Verdict, validating } from "../../../src/webhook/index.ts";
import { fakeConnection } from "../client/support.ts";
import { pathOf, stubUndici } from "../client/undici-stub.ts";
import { fakeManager } from "../manager/support.ts";

const noEmpty = validating(ConfigMap, (cm) => (cm.data ? undefined : Verdict.deny("data is required")));

/** Starts a fake manager serving `noEmpty` as startOperator does; stopped when the test ends. */
async function servedForTest(t: TestContext) {
  const webhookServer = testWebhookServing("widgets");
  const { manager } = await fakeManager({ webhooks: [noEmpty], webhookServer });
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  t.after(() => {
    stop.abort();
    return running;
  });
  return webhookServer;
}

describe("startOperator's webhooks", () => {
  it("are configured per call, on a free port, admitting only this process's test namespaces", async (t) => {
    const sent = stubUndici(t, (req) => ({ status: 200, body: JSON.parse(req.body ?? "{}") }));
    const { configurationName, port } = await servedForTest(t);
    assert.equal(port, 0);
    assert.match(configurationName, /^widgets-test-[0-9a-f]{8}$/);
    assert.notEqual(testWebhookServing("widgets").configurationName, configurationName);

    const [applied] = await eventually(() => sent.length === 1 && sent, { what: "one apply" });
    assert.equal(
      pathOf(applied as (typeof sent)[number]),
      `/prefix/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${configurationName}`,
    );
    const entry = JSON.parse(applied?.body ?? "{}").webhooks[0];
    assert.deepEqual(entry.namespaceSelector.matchExpressions.at(-1), {
      key: TEST_SESSION_LABEL,
      operator: "In",
      values: [testSession],
    });
  });

  it("admit the namespaces testNamespace creates: it labels them with the session", async (t) => {
    const sent = stubUndici(t, (req) => ({ status: 201, body: JSON.parse(req.body ?? "{}") }));
    const client = new Client(fakeConnection());
    const cleanups: (() => unknown)[] = [];
    const name = await testNamespace(client, {
      name: "A Greeting: is Ready!",
      after: (fn) => cleanups.push(fn),
    });
    assert.match(name, /^a-greeting-is-ready-[0-9a-f]{6}$/);
    const created = JSON.parse(sent[0]?.body ?? "{}");
    assert.deepEqual(created.metadata, { name, labels: { [TEST_SESSION_LABEL]: testSession } });
    assert.match(testSession, /^[0-9a-f]{8}$/);
    await Promise.all(cleanups.map((fn) => fn()));
    assert.equal(sent[1]?.method, "DELETE");
    assert.equal(pathOf(sent[1] as (typeof sent)[number]), `/prefix/api/v1/namespaces/${name}`);
  });

  it("are deleted by name, both kinds, either of which may be missing", async (t) => {
    const notFound = { kind: "Status", code: 404, reason: "NotFound", message: "gone" };
    const sent = stubUndici(t, (req) =>
      req.path.includes("mutating") ? { status: 404, body: notFound } : { status: 200, body: {} },
    );
    await deleteWebhookConfigurations(new Client(fakeConnection()), "widgets-test-0123abcd");
    assert.deepEqual(
      sent.map((req) => `${req.method} ${pathOf(req)}`),
      [
        "DELETE /prefix/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/widgets-test-0123abcd",
        "DELETE /prefix/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/widgets-test-0123abcd",
      ],
    );
  });

  it("fail stop when a configuration cannot be deleted for another reason", async (t) => {
    const forbidden = { kind: "Status", code: 403, reason: "Forbidden", message: "no" };
    stubUndici(t, () => ({ status: 403, body: forbidden }));
    await assert.rejects(
      deleteWebhookConfigurations(new Client(fakeConnection()), "widgets-test-0123abcd"),
      /no/,
    );
  });
});
