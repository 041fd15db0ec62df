/**
 * The __KIND__ validating webhook, for a check the CRD cannot make because it reads another
 * object. A __KIND__ publishes its message in the ConfigMap `<name>-message`; when a ConfigMap of
 * that name already exists and is not a __KIND__'s, the reconciler does not take it over (it would
 * overwrite someone else's data): the __KIND__ waits, not Ready, until that ConfigMap is deleted or
 * released. The webhook admits it with a warning saying so, which `kubectl` prints. A check that
 * must refuse returns `Verdict.deny(message, { causes: [{ field, message }] })` instead, and the
 * apiserver answers 422 naming the field. What the schema says of one field (a message of 1 to 256
 * characters, in src/api.ts) the apiserver checks itself, without calling the operator.
 */
import { ConfigMap, controllerOf } from "kubeloop";
import { Verdict, validating } from "kubeloop/webhook";
import { __KIND__ } from "./api.ts";
import { configMapNameOf } from "./controller.ts";

/** Warns about a new __KIND__ whose ConfigMap's name is taken by a ConfigMap no __KIND__ of its name controls. */
export const validate__KIND__ = validating(
  __KIND__,
  async (obj, _old, ctx) => {
    const name = configMapNameOf(obj);
    // The operator's cache, which the controller's .owns(ConfigMap) already fills: no request to the apiserver.
    const existing = (await ctx.cache.reader(ConfigMap)).get(name, obj.metadata.namespace);
    const owner = existing && controllerOf(existing);
    // A ConfigMap of an earlier __KIND__ of this name goes with it (garbage collection): not a conflict.
    if (!existing || (owner?.kind === __KIND__.kind && owner.name === obj.metadata.name)) return;
    return Verdict.allow(
      `ConfigMap ${name} exists and is not a __KIND__'s: this __KIND__ stays not Ready until that ConfigMap is deleted or released`,
    );
  },
  { operations: ["CREATE"] }, // the name, and so the ConfigMap's, never changes
);
