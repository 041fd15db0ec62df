/** The scoped informer of docs/watching-references.md. */
// #region references-scope
import { type ControllerHost, controller, keyOf, objectKey, Secret } from "kubeloop";
import { App } from "./api.ts";

export function appCredentialsController(host: ControllerHost) {
  const apps = host.cache.informer(App);
  apps.addIndexer("secret", (app) => [objectKey(app.metadata.namespace, app.spec.credentials)]);
  // Cache only the Secrets labelled for this operator, not every Secret of the cluster.
  const scope = { ...host.cache.scopeFor(Secret), labelSelector: "example.com/app-credentials=true" };
  const secrets = host.cache.informer(Secret, scope);
  return controller(host)
    .for(App)
    .watches(Secret, (secret) => apps.store.byIndex("secret", keyOf(secret)).map(keyOf), { scope })
    .reconcile(async (ctx) => {
      const app = ctx.object;
      if (!app) return;
      // Read through the same scoped informer: ctx.cache.reader(Secret) would start a cluster-wide one.
      const secret = secrets.store.get(objectKey(app.metadata.namespace, app.spec.credentials));
      ctx.log.info({ found: secret !== undefined }, "credentials");
    });
}
// #endregion
