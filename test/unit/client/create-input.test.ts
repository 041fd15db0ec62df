/**
 * Creating objects of a kind from its input type (`InputOf`): fields with a `.default()` may be left
 * out, the object read back has them. Type-level as well: `tsc -p tsconfig.json` compiles this file,
 * so a `@ts-expect-error` that is not an error fails the build.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { ConfigMap, type ConfigMapObject, type InputOf, type ObjectOf } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { fakeConnection } from "./support.ts";
import { type SentRequest, stubUndici } from "./undici-stub.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_proof?: T) => {};

const Widget = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({
    owner: z.string(),
    replicas: z.int().min(0).default(1),
    mode: z.enum(["Active", "Standby"]).default("Active"),
  }),
  status: z.object({ readyReplicas: z.int().optional() }),
});
type Widget = ObjectOf<typeof Widget>;

/** A Widget written by a user: only the field without a default. */
const input: InputOf<typeof Widget> = {
  apiVersion: Widget.apiVersion,
  kind: Widget.kind,
  metadata: { name: "w", namespace: "team" },
  spec: { owner: "me" },
};

describe("InputOf", () => {
  it("leaves out a defined kind's defaults, keeps its other fields required and typed", () => {
    assertType<
      Equals<
        InputOf<typeof Widget>["spec"],
        { owner: string; replicas?: number; mode?: "Active" | "Standby" }
      >
    >();
    assertType<Equals<Widget["spec"], { owner: string; replicas: number; mode: "Active" | "Standby" }>>();
    // @ts-expect-error an object read back has its defaults: `replicas` is required in the object type.
    const stored: Widget = input;
    // @ts-expect-error `owner` has no default: it is required in the input too.
    const ownerless: InputOf<typeof Widget> = { ...input, spec: { replicas: 2 } };
    // @ts-expect-error `mode` is one of its enum's values in the input too.
    const wrongMode: InputOf<typeof Widget> = { ...input, spec: { owner: "me", mode: "Paused" } };
    assert.ok(stored && ownerless && wrongMode);
  });

  it("is the object type for a kind without schemas (built-in kinds)", () => {
    assertType<Equals<InputOf<typeof ConfigMap>, ConfigMapObject>>();
  });
});

describe("Client.create from the input type", () => {
  it("sends the input as written and returns the object the apiserver stored, typed with its defaults", async (t) => {
    const stored: Widget = { ...input, spec: { owner: "me", replicas: 1, mode: "Active" } };
    const sent = stubUndici(t, () => ({ status: 201, body: stored }));
    const client = new Client(fakeConnection(), { clock: new FakeClock() });

    const created = await client.create(Widget, input);

    assert.deepEqual(JSON.parse((sent[0] as SentRequest).body ?? "null"), input);
    const replicas: number = created.spec.replicas;
    assert.equal(replicas, 1);
  });

  it("still checks what it is given, for defined and built-in kinds alike", () => {
    const creates = (client: Client) => [
      // @ts-expect-error `owner` has no default.
      client.create(Widget, { ...input, spec: { replicas: 2 } }),
      // @ts-expect-error `replica` is not a field of the Widget spec.
      client.create(Widget, { ...input, spec: { owner: "me", replica: 2 } }),
      client.create(ConfigMap, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "c" },
        // @ts-expect-error a ConfigMap's data values are strings.
        data: { a: 1 },
      }),
      client.apply(Widget, input),
    ];
    assert.equal(typeof creates, "function");
  });
});
