/** The App kind of docs/watching-references.md. */
// #region references-kind
import { defineConditionSet, defineKind, type ObjectOf, z } from "kubeloop";

export const AppConditions = defineConditionSet({
  summary: "Ready",
  dependents: { ReferencesResolved: "normal-true" },
});

export const App = defineKind({
  group: "example.com",
  version: "v1",
  kind: "App",
  scope: "Namespaced",
  spec: z.object({
    image: z.string().min(1),
    configMaps: z.array(z.string().min(1)).default([]), // ConfigMaps in the App's namespace
    credentials: z.string().min(1), // a Secret in the App's namespace
  }),
  conditions: AppConditions,
});

export type AppObject = ObjectOf<typeof App>;
// #endregion
