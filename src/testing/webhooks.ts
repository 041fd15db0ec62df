/**
 * The operator's webhooks as {@link startOperator} serves them: on a free port with a
 * self-managed certificate, through configurations named for the one call and admitting only the
 * namespaces of this process's test session, so that test files running in parallel on one
 * cluster never call each other's webhooks; the configurations go when the operator stops.
 */
import { randomBytes } from "node:crypto";
import {
  type LabelSelector,
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from "../api/index.ts";
import { type Client, NotFoundError } from "../client/index.ts";
import type { WebhookServingOptions } from "../manager/index.ts";
import { TEST_SESSION_LABEL, testSession } from "./namespace.ts";

/**
 * Webhooks served for one test session: configurations named `configurationName` that admit only
 * the namespaces labelled `label: session`, so that sessions sharing a cluster never call each
 * other's webhooks. {@link startOperator} and the conformance kit both serve them so.
 */
export function sessionWebhookServing(
  configurationName: string,
  label: string,
  session: string,
): { configurationName: string; namespaceSelector: LabelSelector } {
  return { configurationName, namespaceSelector: { matchLabels: { [label]: session } } };
}

/**
 * How one {@link startOperator} call serves `operator`'s webhooks: port 0, a self-managed
 * certificate, configurations named `<operator>-test-<random>`, and the namespaces labelled with
 * this process's {@link testSession} (as {@link testNamespace} labels them) admitted only.
 */
export function testWebhookServing(operator: string): WebhookServingOptions & { configurationName: string } {
  const name = `${operator}-test-${randomBytes(4).toString("hex")}`;
  return { port: 0, ...sessionWebhookServing(name, TEST_SESSION_LABEL, testSession) };
}

/** Deletes the Validating and MutatingWebhookConfiguration named `name`; either may not exist. */
export async function deleteWebhookConfigurations(client: Client, name: string): Promise<void> {
  const absentOk = (err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  };
  await client.delete(ValidatingWebhookConfiguration, name).catch(absentOk);
  await client.delete(MutatingWebhookConfiguration, name).catch(absentOk);
}
