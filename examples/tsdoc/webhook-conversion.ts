import { defineKind, type ObjectOf, z } from "kubeloop";
import { conversion, restoreFields, stashFields } from "kubeloop/webhook";

const MyProxy = defineKind({
  group: "example.com",
  version: "v1",
  kind: "MyProxy",
  scope: "Namespaced",
  spec: z.object({ hosts: z.array(z.string()) }),
  versions: [{ name: "v1alpha1", spec: z.object({ host: z.string() }) }],
});
type MyProxyV1 = ObjectOf<typeof MyProxy>;
type MyProxyV1alpha1 = Omit<MyProxyV1, "spec"> & { spec: { host: string } };
declare function toV1(spoke: MyProxyV1alpha1): MyProxyV1;
declare function toV1alpha1(hub: MyProxyV1): MyProxyV1alpha1;

// #region conversion
export const proxyConversion = conversion(MyProxy, {
  hub: "v1",
  spokes: {
    v1alpha1: {
      toHub: (old: MyProxyV1alpha1): MyProxyV1 => ({ ...old, spec: { hosts: [old.spec.host] } }),
      fromHub: (hub: MyProxyV1): MyProxyV1alpha1 => ({ ...hub, spec: { host: hub.spec.hosts[0] ?? "" } }),
      lacks: ["spec.hosts"],
    },
  },
});
// #endregion

export const lossless = conversion(MyProxy, {
  hub: "v1",
  spokes: {
    v1alpha1: {
      // #region restoreFields
      toHub: (spoke: MyProxyV1alpha1) => restoreFields(toV1(spoke), spoke, ["spec.hosts"]),
      // #endregion
      // #region stashFields
      fromHub: (hub) => {
        const spoke = toV1alpha1(hub);
        return stashFields(spoke, hub, ["spec.hosts"], toV1(spoke));
      },
      // #endregion
    },
  },
});
