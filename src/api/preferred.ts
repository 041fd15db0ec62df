/**
 * The preferred version of every built-in kind of kube-apiserver v1.36.3: its descriptor and
 * its object type. Do not edit: run `npm run api:generate`.
 */
export {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  type MutatingAdmissionPolicyBindingObject,
  type MutatingAdmissionPolicyObject,
  MutatingWebhookConfiguration,
  type MutatingWebhookConfigurationObject,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  type ValidatingAdmissionPolicyBindingObject,
  type ValidatingAdmissionPolicyObject,
  ValidatingWebhookConfiguration,
  type ValidatingWebhookConfigurationObject,
} from "./admissionregistration.k8s.io/v1.ts";
export { CustomResourceDefinition, type CustomResourceDefinitionObject } from "./apiextensions.k8s.io/v1.ts";
export { APIService, type APIServiceObject } from "./apiregistration.k8s.io/v1.ts";
export {
  ControllerRevision,
  type ControllerRevisionObject,
  DaemonSet,
  type DaemonSetObject,
  Deployment,
  type DeploymentObject,
  ReplicaSet,
  type ReplicaSetObject,
  StatefulSet,
  type StatefulSetObject,
} from "./apps/v1.ts";
export {
  SelfSubjectReview,
  type SelfSubjectReviewObject,
  TokenReview,
  type TokenReviewObject,
} from "./authentication.k8s.io/v1.ts";
export {
  LocalSubjectAccessReview,
  type LocalSubjectAccessReviewObject,
  SelfSubjectAccessReview,
  type SelfSubjectAccessReviewObject,
  SelfSubjectRulesReview,
  type SelfSubjectRulesReviewObject,
  SubjectAccessReview,
  type SubjectAccessReviewObject,
} from "./authorization.k8s.io/v1.ts";
export { HorizontalPodAutoscaler, type HorizontalPodAutoscalerObject } from "./autoscaling/v2.ts";
export { CronJob, type CronJobObject, Job, type JobObject } from "./batch/v1.ts";
export { CertificateSigningRequest, type CertificateSigningRequestObject } from "./certificates.k8s.io/v1.ts";
export { Lease, type LeaseObject } from "./coordination.k8s.io/v1.ts";
export {
  Binding,
  type BindingObject,
  ComponentStatus,
  type ComponentStatusObject,
  ConfigMap,
  type ConfigMapObject,
  Endpoints,
  type EndpointsObject,
  LimitRange,
  type LimitRangeObject,
  Namespace,
  type NamespaceObject,
  Node,
  type NodeObject,
  PersistentVolume,
  PersistentVolumeClaim,
  type PersistentVolumeClaimObject,
  type PersistentVolumeObject,
  Pod,
  type PodObject,
  PodTemplate,
  type PodTemplateObject,
  ReplicationController,
  type ReplicationControllerObject,
  ResourceQuota,
  type ResourceQuotaObject,
  Secret,
  type SecretObject,
  Service,
  ServiceAccount,
  type ServiceAccountObject,
  type ServiceObject,
} from "./core/v1.ts";
export { EndpointSlice, type EndpointSliceObject } from "./discovery.k8s.io/v1.ts";
export { Event, type EventObject } from "./events.k8s.io/v1.ts";
export {
  FlowSchema,
  type FlowSchemaObject,
  PriorityLevelConfiguration,
  type PriorityLevelConfigurationObject,
} from "./flowcontrol.apiserver.k8s.io/v1.ts";
export {
  Ingress,
  IngressClass,
  type IngressClassObject,
  type IngressObject,
  IPAddress,
  type IPAddressObject,
  NetworkPolicy,
  type NetworkPolicyObject,
  ServiceCIDR,
  type ServiceCIDRObject,
} from "./networking.k8s.io/v1.ts";
export { RuntimeClass, type RuntimeClassObject } from "./node.k8s.io/v1.ts";
export { PodDisruptionBudget, type PodDisruptionBudgetObject } from "./policy/v1.ts";
export {
  ClusterRole,
  ClusterRoleBinding,
  type ClusterRoleBindingObject,
  type ClusterRoleObject,
  Role,
  RoleBinding,
  type RoleBindingObject,
  type RoleObject,
} from "./rbac.authorization.k8s.io/v1.ts";
export {
  DeviceClass,
  type DeviceClassObject,
  ResourceClaim,
  type ResourceClaimObject,
  ResourceClaimTemplate,
  type ResourceClaimTemplateObject,
  ResourceSlice,
  type ResourceSliceObject,
} from "./resource.k8s.io/v1.ts";
export { PriorityClass, type PriorityClassObject } from "./scheduling.k8s.io/v1.ts";
export {
  CSIDriver,
  type CSIDriverObject,
  CSINode,
  type CSINodeObject,
  CSIStorageCapacity,
  type CSIStorageCapacityObject,
  StorageClass,
  type StorageClassObject,
  VolumeAttachment,
  type VolumeAttachmentObject,
  VolumeAttributesClass,
  type VolumeAttributesClassObject,
} from "./storage.k8s.io/v1.ts";
