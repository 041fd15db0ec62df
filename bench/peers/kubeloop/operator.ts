/**
 * The kubeloop contender: the Widget operator written as the kubeloop README and project template
 * teach it. `ensureChild` converges the ConfigMap (server-side apply with a controller reference,
 * no write when it already matches; drift is reported), and `updateStatus` writes the condition
 * set's status only when it changed. The only settings are the benchmark's: the client's rate
 * limit off (`qps: Infinity`, as for every contender; with `--defaults`, no `clientOptions`, as
 * `kubeloop generate`'s operator), 4 workers, a 30 s resync, no HTTP endpoints.
 *
 * It imports kubeloop's public entry, src/index.ts, by path: bench/peers is a package of its own,
 * where the bare name would need a link the repository's type check (run without the peers
 * installed) cannot see. The runner compiles it ahead of time with that import pointing at the
 * built dist/index.js (harness/build.ts), so it runs as a deployed operator does.
 */
import { ConfigMap, controller, ensureChild, Manager, runManager, updateStatus } from "../../../src/index.ts";
import { ready, reconcileDone, reconcileStarted, settings } from "../shared/markers.ts";
import { CONFIGMAP_READY, configMapName, desiredConfigMap } from "../shared/widget.ts";
import { Widget, WidgetConditions } from "./kinds.ts";

const manager = await Manager.create({
  name: "widgets-kubeloop",
  ...(settings.clientDefaults ? {} : { clientOptions: { qps: Number.POSITIVE_INFINITY } }),
  metrics: false,
  health: false,
  readYourOwnWrites: settings.readOwnWrites,
});

controller(manager)
  .for(Widget)
  .owns(ConfigMap)
  .withOptions({ concurrency: settings.workers, resyncPeriodMs: settings.resyncSeconds * 1000 })
  .reconcile(async (ctx) => {
    reconcileStarted();
    const widget = ctx.object;
    if (!widget) return; // deleted: its ConfigMap is garbage-collected
    await ensureChild(ctx, widget, ConfigMap, desiredConfigMap(widget));
    await updateStatus(ctx.client, Widget, widget, (fresh) => {
      const draft = WidgetConditions.begin(fresh);
      draft.set(CONFIGMAP_READY, {
        status: "True",
        reason: "ConfigMapPublished",
        message: `ConfigMap ${configMapName(fresh.metadata.name ?? "")} holds the message`,
      });
      return { ...draft.finish().status };
    });
    reconcileDone(ctx.request.key);
  });

const announce = setInterval(() => {
  if (!manager.ready) return;
  clearInterval(announce);
  ready();
}, 20);
await runManager(manager);
