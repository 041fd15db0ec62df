/** The webhook example of docs/testing.md. */
import assert from "node:assert/strict";
import { InvalidError, type ObjectOf } from "kubeloop";
import type { RunningOperator } from "kubeloop/testing";
import { Greeting } from "../readme-greeting.ts";

declare const running: RunningOperator;
declare const invalid: ObjectOf<typeof Greeting>;

export async function deniedGreeting(): Promise<void> {
  // #region testing-webhook-denial
  const refused = await running.client.create(Greeting, invalid).catch((err: unknown) => err);
  assert.ok(refused instanceof InvalidError);
  assert.equal(refused.causes[0]?.field, "metadata.name");
  // #endregion
}
