// #region root
import { ConfigMap, controller, defineKind, defineOperator, ensureChild, z } from "kubeloop";

const Widget = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({ message: z.string() }),
});

export default defineOperator({
  name: "widgets",
  kinds: [Widget],
  setup: (manager) =>
    void controller(manager)
      .for(Widget)
      .owns(ConfigMap)
      .reconcile(async (ctx) => {
        const widget = ctx.object;
        if (!widget) return; // deleted: the ConfigMap is garbage-collected
        await ensureChild(ctx, widget, ConfigMap, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: widget.metadata.name, namespace: widget.metadata.namespace },
          data: { message: widget.spec.message },
        });
      }),
});
// #endregion
