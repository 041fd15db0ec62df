/**
 * The preferred version of every built-in kind of kube-apiserver v1.36.3: its descriptor and
 * its object type. Do not edit: run `npm run api:generate`.
 */
export type {
  MutatingAdmissionPolicyBindingObject,
  MutatingAdmissionPolicyObject,
  MutatingWebhookConfigurationObject,
  ValidatingAdmissionPolicyBindingObject,
  ValidatingAdmissionPolicyObject,
  ValidatingWebhookConfigurationObject,
} from "./admissionregistration.k8s.io/v1.ts";
export type { CustomResourceDefinitionObject } from "./apiextensions.k8s.io/v1.ts";
export type { APIServiceObject } from "./apiregistration.k8s.io/v1.ts";
export type {
  ControllerRevisionObject,
  DaemonSetObject,
  DeploymentObject,
  ReplicaSetObject,
  StatefulSetObject,
} from "./apps/v1.ts";
export type { SelfSubjectReviewObject, TokenReviewObject } from "./authentication.k8s.io/v1.ts";
export type {
  LocalSubjectAccessReviewObject,
  SelfSubjectAccessReviewObject,
  SelfSubjectRulesReviewObject,
  SubjectAccessReviewObject,
} from "./authorization.k8s.io/v1.ts";
export type { HorizontalPodAutoscalerObject } from "./autoscaling/v2.ts";
export type { CronJobObject, JobObject } from "./batch/v1.ts";
export type { CertificateSigningRequestObject } from "./certificates.k8s.io/v1.ts";
export type { LeaseObject } from "./coordination.k8s.io/v1.ts";
export type {
  BindingObject,
  ComponentStatusObject,
  ConfigMapObject,
  EndpointsObject,
  LimitRangeObject,
  NamespaceObject,
  NodeObject,
  PersistentVolumeClaimObject,
  PersistentVolumeObject,
  PodObject,
  PodTemplateObject,
  ReplicationControllerObject,
  ResourceQuotaObject,
  SecretObject,
  ServiceAccountObject,
  ServiceObject,
} from "./core/v1.ts";
export {
  admissionregistrationv1_MutatingAdmissionPolicy as MutatingAdmissionPolicy,
  admissionregistrationv1_MutatingAdmissionPolicyBinding as MutatingAdmissionPolicyBinding,
  admissionregistrationv1_MutatingWebhookConfiguration as MutatingWebhookConfiguration,
  admissionregistrationv1_ValidatingAdmissionPolicy as ValidatingAdmissionPolicy,
  admissionregistrationv1_ValidatingAdmissionPolicyBinding as ValidatingAdmissionPolicyBinding,
  admissionregistrationv1_ValidatingWebhookConfiguration as ValidatingWebhookConfiguration,
  apiextensionsv1_CustomResourceDefinition as CustomResourceDefinition,
  apiregistrationv1_APIService as APIService,
  appsv1_ControllerRevision as ControllerRevision,
  appsv1_DaemonSet as DaemonSet,
  appsv1_Deployment as Deployment,
  appsv1_ReplicaSet as ReplicaSet,
  appsv1_StatefulSet as StatefulSet,
  authenticationv1_SelfSubjectReview as SelfSubjectReview,
  authenticationv1_TokenReview as TokenReview,
  authorizationv1_LocalSubjectAccessReview as LocalSubjectAccessReview,
  authorizationv1_SelfSubjectAccessReview as SelfSubjectAccessReview,
  authorizationv1_SelfSubjectRulesReview as SelfSubjectRulesReview,
  authorizationv1_SubjectAccessReview as SubjectAccessReview,
  autoscalingv2_HorizontalPodAutoscaler as HorizontalPodAutoscaler,
  batchv1_CronJob as CronJob,
  batchv1_Job as Job,
  certificatesv1_CertificateSigningRequest as CertificateSigningRequest,
  coordinationv1_Lease as Lease,
  corev1_Binding as Binding,
  corev1_ComponentStatus as ComponentStatus,
  corev1_ConfigMap as ConfigMap,
  corev1_Endpoints as Endpoints,
  corev1_LimitRange as LimitRange,
  corev1_Namespace as Namespace,
  corev1_Node as Node,
  corev1_PersistentVolume as PersistentVolume,
  corev1_PersistentVolumeClaim as PersistentVolumeClaim,
  corev1_Pod as Pod,
  corev1_PodTemplate as PodTemplate,
  corev1_ReplicationController as ReplicationController,
  corev1_ResourceQuota as ResourceQuota,
  corev1_Secret as Secret,
  corev1_Service as Service,
  corev1_ServiceAccount as ServiceAccount,
  discoveryv1_EndpointSlice as EndpointSlice,
  eventsv1_Event as Event,
  flowcontrolv1_FlowSchema as FlowSchema,
  flowcontrolv1_PriorityLevelConfiguration as PriorityLevelConfiguration,
  networkingv1_Ingress as Ingress,
  networkingv1_IngressClass as IngressClass,
  networkingv1_IPAddress as IPAddress,
  networkingv1_NetworkPolicy as NetworkPolicy,
  networkingv1_ServiceCIDR as ServiceCIDR,
  nodev1_RuntimeClass as RuntimeClass,
  policyv1_PodDisruptionBudget as PodDisruptionBudget,
  rbacv1_ClusterRole as ClusterRole,
  rbacv1_ClusterRoleBinding as ClusterRoleBinding,
  rbacv1_Role as Role,
  rbacv1_RoleBinding as RoleBinding,
  resourcev1_DeviceClass as DeviceClass,
  resourcev1_ResourceClaim as ResourceClaim,
  resourcev1_ResourceClaimTemplate as ResourceClaimTemplate,
  resourcev1_ResourceSlice as ResourceSlice,
  schedulingv1_PriorityClass as PriorityClass,
  storagev1_CSIDriver as CSIDriver,
  storagev1_CSINode as CSINode,
  storagev1_CSIStorageCapacity as CSIStorageCapacity,
  storagev1_StorageClass as StorageClass,
  storagev1_VolumeAttachment as VolumeAttachment,
  storagev1_VolumeAttributesClass as VolumeAttributesClass,
} from "./descriptors.ts";
export type { EndpointSliceObject } from "./discovery.k8s.io/v1.ts";
export type { EventObject } from "./events.k8s.io/v1.ts";
export type {
  FlowSchemaObject,
  PriorityLevelConfigurationObject,
} from "./flowcontrol.apiserver.k8s.io/v1.ts";
export type {
  IngressClassObject,
  IngressObject,
  IPAddressObject,
  NetworkPolicyObject,
  ServiceCIDRObject,
} from "./networking.k8s.io/v1.ts";
export type { RuntimeClassObject } from "./node.k8s.io/v1.ts";
export type { PodDisruptionBudgetObject } from "./policy/v1.ts";
export type {
  ClusterRoleBindingObject,
  ClusterRoleObject,
  RoleBindingObject,
  RoleObject,
} from "./rbac.authorization.k8s.io/v1.ts";
export type {
  DeviceClassObject,
  ResourceClaimObject,
  ResourceClaimTemplateObject,
  ResourceSliceObject,
} from "./resource.k8s.io/v1.ts";
export type { PriorityClassObject } from "./scheduling.k8s.io/v1.ts";
export type {
  CSIDriverObject,
  CSINodeObject,
  CSIStorageCapacityObject,
  StorageClassObject,
  VolumeAttachmentObject,
  VolumeAttributesClassObject,
} from "./storage.k8s.io/v1.ts";
