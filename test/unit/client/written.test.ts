/** A written view tells what each accepted write left on the server; dry runs, reads and failures tell nothing. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { Client, type Written } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { fakeConnection } from "./support.ts";
import { stubUndici } from "./undici-stub.ts";

const cm = (resourceVersion?: string): ConfigMapObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "a", namespace: "ns", resourceVersion },
});

describe("Client.written", () => {
  it("tells each accepted write with the object the server returned, and a delete by name", async (t) => {
    stubUndici(t, (request) => {
      if (request.method === "DELETE") return { status: 200, body: { kind: "Status", status: "Success" } };
      if (request.path.includes("dryRun")) return { status: 200, body: cm("99") };
      if (request.path.endsWith("/missing")) return { status: 404, body: { kind: "Status", code: 404 } };
      return { status: 200, body: cm(request.method === "GET" ? "4" : "5") };
    });
    const told: string[] = [];
    const client = new Client(fakeConnection(), { clock: new FakeClock() }).written((type, w: Written) =>
      told.push(
        `${type.kind} ${w.namespace}/${w.name} ${w.deleted ? "deleted" : w.object?.metadata.resourceVersion}`,
      ),
    );
    await client.get(ConfigMap, "a", { namespace: "ns" });
    await client.create(ConfigMap, cm(), { dryRun: true });
    await assert.rejects(client.get(ConfigMap, "missing", { namespace: "ns" }));
    await client.fenced(new AbortController().signal).status.update(ConfigMap, cm("4"));
    await client.delete(ConfigMap, "a", { namespace: "ns" });
    assert.deepEqual(told, ["ConfigMap ns/a 5", "ConfigMap ns/a deleted"]);
  });
});
