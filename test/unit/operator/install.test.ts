/**
 * installCrds: applies each kind's CRD server-side, then waits for Established, or says why not;
 * installOperator then applies the operator's other manifests, as discovery serves their kinds.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, KindNotFoundError } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  applyManifests,
  CrdNotEstablishedError,
  defineOperator,
  installCrds,
  installOperator,
  waitEstablished,
} from "../../../src/operator/index.ts";
import { fakeConnection } from "../client/support.ts";
import { pathOf, queryOf, type SentRequest, stubUndici } from "../client/undici-stub.ts";
import { Widget } from "../schema/fixtures.ts";

const crdPath = "/prefix/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.kubeloop.dev";

/** A CRD as the server answers it, with `conditions` in its status. */
function crd(conditions: { type: string; status: string; message?: string }[]) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.kubeloop.dev" },
    spec: {},
    status: { conditions },
  };
}

describe("installCrds", () => {
  it("server-side applies the CRD, polls until it is Established, and returns it", async (t) => {
    let gets = 0;
    const sent = stubUndici(t, (request: SentRequest) => {
      if (request.method === "PATCH") return { status: 200, body: crd([]) };
      gets++;
      return { status: 200, body: crd([{ type: "Established", status: gets < 2 ? "False" : "True" }]) };
    });
    const clock = new FakeClock();
    const installing = installCrds(new Client(fakeConnection(), { clock }), [Widget], { clock });
    for (let i = 0; i < 100 && gets < 1; i++) await new Promise((resolve) => setImmediate(resolve));
    clock.advance(250);
    const [installed, ...more] = await installing;
    assert.equal(more.length, 0);
    assert.equal(installed?.metadata.name, "widgets.example.kubeloop.dev");
    const apply = sent[0] as SentRequest;
    assert.equal(pathOf(apply), crdPath);
    assert.equal(apply.headers["content-type"], "application/apply-patch+yaml");
    assert.equal(queryOf(apply).force, "true");
    assert.equal(gets, 2);
  });

  it("rejects with CrdNotEstablishedError naming the CRD's conditions after timeoutMs", async (t) => {
    stubUndici(t, (request: SentRequest) => ({
      status: 200,
      body: crd(
        request.method === "PATCH"
          ? []
          : [{ type: "NamesAccepted", status: "False", message: '"widgets" is already in use' }],
      ),
    }));
    const clock = new FakeClock();
    const client = new Client(fakeConnection(), { clock });
    await assert.rejects(installCrds(client, [Widget], { clock, timeoutMs: 0 }), (err: unknown) => {
      assert.ok(err instanceof CrdNotEstablishedError);
      assert.equal(err.code, "KL_CRD_NOT_ESTABLISHED");
      assert.match(err.message, /widgets\.example\.kubeloop\.dev was applied but not Established within 0 s/);
      assert.match(err.message, /NamesAccepted=False \("widgets" is already in use\)/);
      return true;
    });
  });
});

describe("waitEstablished", () => {
  it("waits through a CRD whose status the apiserver has not written yet, where kubectl wait fails", async (t) => {
    let gets = 0;
    stubUndici(t, () => {
      gets++;
      const { status: _, ...fresh } = crd([]);
      return { status: 200, body: gets < 2 ? fresh : crd([{ type: "Established", status: "True" }]) };
    });
    const clock = new FakeClock();
    const waiting = waitEstablished(
      new Client(fakeConnection(), { clock }),
      ["widgets.example.kubeloop.dev"],
      {
        clock,
      },
    );
    for (let i = 0; i < 100 && gets < 1; i++) await new Promise((resolve) => setImmediate(resolve));
    clock.advance(250);
    const [established] = await waiting;
    assert.equal(established?.metadata.name, "widgets.example.kubeloop.dev");
    assert.equal(gets, 2);
  });
});

/** A ValidatingAdmissionPolicy, as an operator's `manifests` may ship one. */
const policy = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "widgets-policy" },
  spec: { validations: [{ expression: "true" }] },
};

/** An apiserver serving aggregated discovery of the admission kinds, an Established CRD, and echoing applies. */
function admissionServer(request: SentRequest) {
  const path = pathOf(request);
  if (path === "/prefix/api") return { status: 200, body: { kind: "APIGroupDiscoveryList", items: [] } };
  if (path === "/prefix/apis") {
    const resources = [
      { resource: "validatingadmissionpolicies", scope: "Cluster", responseKind: { kind: policy.kind } },
    ];
    const admission = {
      metadata: { name: "admissionregistration.k8s.io" },
      versions: [{ version: "v1", resources }],
    };
    return { status: 200, body: { kind: "APIGroupDiscoveryList", items: [admission] } };
  }
  if (request.method === "PATCH" && path !== crdPath)
    return { status: 200, body: JSON.parse(request.body ?? "{}") };
  return { status: 200, body: crd([{ type: "Established", status: "True" }]) };
}

describe("installOperator", () => {
  it("applies the operator's manifests after its CRDs, server-side with the client's field manager", async (t) => {
    const sent = stubUndici(t, admissionServer);
    const operator = defineOperator({
      name: "widgets",
      kinds: [Widget],
      setup: () => {},
      manifests: () => [policy],
    });
    const client = new Client(fakeConnection(), { fieldManager: "kubeloop" });
    const { crds, manifests } = await installOperator(client, operator);
    assert.deepEqual(
      crds.map((c) => c.metadata.name),
      ["widgets.example.kubeloop.dev"],
    );
    assert.deepEqual(manifests, [policy]);
    const applies = sent.filter((r) => r.method === "PATCH");
    assert.deepEqual(applies.map(pathOf), [
      crdPath,
      "/prefix/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/widgets-policy",
    ]);
    const applied = applies[1] as SentRequest;
    assert.equal(applied.headers["content-type"], "application/apply-patch+yaml");
    assert.deepEqual(queryOf(applied), { fieldManager: "kubeloop", force: "true" });
  });

  it("installs only the CRDs of an operator without manifests", async (t) => {
    const sent = stubUndici(t, admissionServer);
    const operator = defineOperator({ name: "widgets", kinds: [Widget], setup: () => {} });
    const { manifests } = await installOperator(new Client(fakeConnection()), operator);
    assert.deepEqual(manifests, []);
    assert.deepEqual(sent.filter((r) => r.method === "PATCH").map(pathOf), [crdPath]);
  });
});

describe("applyManifests", () => {
  it("rejects with KindNotFoundError for a kind the apiserver does not serve", async (t) => {
    stubUndici(t, admissionServer);
    const unserved = { ...policy, apiVersion: "admissionregistration.k8s.io/v2" };
    await assert.rejects(applyManifests(new Client(fakeConnection()), [unserved]), KindNotFoundError);
  });
});
