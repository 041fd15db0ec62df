/**
 * The fleet example's FleetConfigMap kind: a ConfigMap's data in the hub, propagated to every
 * member cluster whose kubeconfig Secret the spec's selector matches, with what each member shows
 * in status.
 */
import { defineConditionSet, defineKind, type ObjectOf, z } from "kubeloop";

/** FleetConfigMap's conditions: `Propagated` rolls up into the summary `Ready`. */
export const FleetConfigMapConditions = defineConditionSet({
  summary: "Ready",
  dependents: { Propagated: "normal-true" },
});

/** One member cluster as the hub sees it: a condition of its own, as `metav1.Condition` is read. */
const ClusterStatus = z.object({
  name: z.string().describe("The member cluster: its kubeconfig Secret's name in the hub."),
  status: z.enum(["True", "False", "Unknown"]).describe("True once the member holds the data as desired."),
  reason: z.string().describe("Why, in CamelCase: Propagated, ClusterNotEngaged, PropagationFailed."),
  message: z.string().describe("Details for people."),
});

/** The kind: a ConfigMap's data for the selected member clusters. */
export const FleetConfigMap = defineKind({
  group: "fleet.example.com",
  version: "v1alpha1",
  kind: "FleetConfigMap",
  scope: "Namespaced",
  spec: z.object({
    clusterSelector: z
      .string()
      .describe("A label selector on the members' kubeconfig Secrets in the hub, e.g. `env=prod`."),
    data: z.record(z.string(), z.string()).describe("The ConfigMap's data in every selected member."),
  }),
  status: z.object({
    clusters: z.array(ClusterStatus).optional().describe("Each selected member, by name."),
  }),
  conditions: FleetConfigMapConditions,
  printerColumns: [{ name: "Clusters", type: "string", jsonPath: ".spec.clusterSelector" }],
});

/** A FleetConfigMap object. */
export type FleetConfigMapObject = ObjectOf<typeof FleetConfigMap>;

/** What status says of one member cluster. */
export type ClusterStatus = z.infer<typeof ClusterStatus>;
