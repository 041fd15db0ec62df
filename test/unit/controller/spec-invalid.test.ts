/**
 * A spec failing its kind's refinements, which the CRD cannot carry and the apiserver so admits,
 * is caught before the reconciler: not reconciled, not retried, its summary condition says why.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { ConfigMap, type ConfigMapObject, type ResourceType } from "../../../src/api/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { type Condition, defineConditionSet } from "../../../src/status/index.ts";
import { FakeStatusClient } from "../status/update-status-support.ts";
import { cm, flush, harness, unfenced } from "./support.ts";

const SiteConditions = defineConditionSet({ summary: "Ready", dependents: { ServiceReady: "normal-true" } });

const Site = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Site",
  scope: "Namespaced",
  spec: z.object({ url: z.string().refine((url) => url.startsWith("https://"), "must start with https://") }),
  conditions: SiteConditions,
});

/** The harness's ConfigMaps, with the Site kind's spec check and condition set. */
const Refined = {
  ...ConfigMap,
  conditions: SiteConditions,
  refinements: Site.refinements,
  parseSpec: Site.parseSpec,
} as unknown as ResourceType<ConfigMapObject>;

function site(url: string, generation = 1, deleting = false): ConfigMapObject {
  const base = cm("a", String(generation));
  const metadata = {
    ...base.metadata,
    generation,
    ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
  };
  return { ...base, metadata, spec: { url } } as ConfigMapObject;
}

describe("Controller: a spec failing its kind's refinements", () => {
  it("is not reconciled nor retried, and stalls the summary with reason SpecInvalid", async (t) => {
    const status = new FakeStatusClient();
    const h = harness(t, () => undefined, {}, { primary: Refined, client: unfenced(status) });
    h.store.writer.apply(site("http://example.com"));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await h.advance(2_000_000); // past the longest backoff
    assert.equal(h.reconciles.length, 0, "the reconciler never saw it");
    assert.ok(h.calls.includes("failed terminal"));
    const [event, ...others] = h.events.callsOf("create");
    assert.equal(others.length, 0);
    assert.equal(event?.body.reason, "SpecInvalid");
    assert.match(
      event?.body.note ?? "",
      /^ns\/a was not reconciled: Site spec is invalid:\n {2}\.spec\.url: must start with https:\/\//,
    );
    const sent = status.sentStatus("patch") as { conditions: Condition[] };
    const condition = (type: string) => sent.conditions.find((c) => c.type === type);
    assert.equal(condition("Ready")?.status, "False");
    assert.equal(condition("Ready")?.reason, "SpecInvalid");
    assert.match(condition("Ready")?.message ?? "", /\.spec\.url: must start with https:\/\//);
    assert.equal(condition("Stalled")?.status, "True");

    h.store.writer.apply(site("https://example.com", 2));
    h.source.enqueue("ns/a", "watch:ConfigMap:update");
    await flush();
    assert.equal(h.reconciles.length, 1, "a fixed spec is reconciled");
  });

  it("still reconciles an object being deleted, so that its finalizers run", async (t) => {
    const h = harness(t, () => undefined, {}, { primary: Refined });
    h.store.writer.apply(site("http://example.com", 1, true));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:update");
    await flush();
    assert.equal(h.reconciles.length, 1);
  });
});
