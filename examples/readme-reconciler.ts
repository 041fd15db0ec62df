import { ConfigMap, ensureChild, type ObjectOf, type ReconcileContext, writeStatus } from "kubeloop";
import { Greeting, GreetingConditions } from "./readme-greeting.ts";

// #region readme-greeting-reconciler
export async function reconcileGreeting(ctx: ReconcileContext<ObjectOf<typeof Greeting>>) {
  const greeting = ctx.object;
  if (!greeting) return; // deleted: owned children are garbage-collected
  const name = `${greeting.metadata.name}-message`;
  await ensureChild(ctx, greeting, ConfigMap, {
    // server-side apply, zero writes when it matches,
    apiVersion: "v1",
    kind: "ConfigMap", // drift repaired and reported with who did it
    metadata: { name, namespace: greeting.metadata.namespace },
    data: { message: greeting.spec.message },
  });
  const stored = (await ctx.cache.reader(ConfigMap)).get(name, greeting.metadata.namespace);
  await writeStatus(ctx, Greeting, greeting, GreetingConditions, (draft, fresh) => {
    // writes /status only on change; the transitions it wrote become events and metrics
    draft.set(
      "ConfigMapReady",
      stored?.data?.message === fresh.spec.message
        ? { status: "True", reason: "MessagePublished" }
        : { status: "False", reason: "Publishing", message: `waiting for ConfigMap ${name}` },
    );
    return { configMapName: name };
  });
}
// #endregion
