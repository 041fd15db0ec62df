/**
 * Test namespaces, one per test, labelled with the test session of this process: the label is
 * how what a test process serves (its operator's webhooks) selects its own namespaces and no
 * other's, when several test files run in parallel on one cluster.
 */
import { randomBytes } from "node:crypto";
import { Namespace, type NamespaceObject } from "../api/index.ts";
import type { Client } from "../client/index.ts";

/** The label {@link testNamespace} puts on the namespaces it creates, valued with {@link testSession}. */
export const TEST_SESSION_LABEL = "kubeloop.dev/test-session";

/** This process's test session: a random id, the same for every namespace it creates. */
export const testSession = randomBytes(4).toString("hex");

/** The part of node:test's `TestContext` {@link testNamespace} uses. */
export interface TestScope {
  readonly name: string;
  after(fn: () => unknown): void;
}

/** The namespace for the test named `testName`: named after it with a random suffix, labelled with the session. */
export function testNamespaceObject(testName: string): NamespaceObject {
  const slug = testName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
  const name = `${slug || "test"}-${randomBytes(3).toString("hex")}`;
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { [TEST_SESSION_LABEL]: testSession } },
  };
}

/**
 * Creates a namespace for one test, named after it with a random suffix and labelled
 * `kubeloop.dev/test-session` with this process's session, and deletes it (without waiting) when
 * the test ends: tests sharing a cluster stay apart.
 *
 * @example
 * ```ts
 * test("a Greeting gets its ConfigMap", async (t) => {
 *   const namespace = await testNamespace(running.client, t);
 *   await running.client.create(Greeting, greeting("hello", namespace));
 *   await eventually(() => running.client.get(ConfigMap, "hello", { namespace }));
 * });
 * ```
 */
export async function testNamespace(client: Client, t: TestScope): Promise<string> {
  const namespace = testNamespaceObject(t.name);
  const name = namespace.metadata.name as string;
  await client.create(Namespace, namespace);
  t.after(() => client.delete(Namespace, name).catch(() => undefined));
  return name;
}
