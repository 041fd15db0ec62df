/**
 * The preferred version of every built-in kind of kube-apiserver v1.36.3: its descriptor and
 * its object type, under the kind's name and as `<Kind>Object`. Do not edit: run `npm run generate:api-types`.
 */
import type * as admissionregistrationv1 from "./admissionregistration.k8s.io/v1.ts";
import type * as apiextensionsv1 from "./apiextensions.k8s.io/v1.ts";
import type * as apiregistrationv1 from "./apiregistration.k8s.io/v1.ts";
import type * as appsv1 from "./apps/v1.ts";
import type * as authenticationv1 from "./authentication.k8s.io/v1.ts";
import type * as authorizationv1 from "./authorization.k8s.io/v1.ts";
import type * as autoscalingv2 from "./autoscaling/v2.ts";
import type * as batchv1 from "./batch/v1.ts";
import type * as certificatesv1 from "./certificates.k8s.io/v1.ts";
import type * as coordinationv1 from "./coordination.k8s.io/v1.ts";
import type * as corev1 from "./core/v1.ts";
import type * as discoveryv1 from "./discovery.k8s.io/v1.ts";
import type * as eventsv1 from "./events.k8s.io/v1.ts";
import type * as flowcontrolv1 from "./flowcontrol.apiserver.k8s.io/v1.ts";
import type * as networkingv1 from "./networking.k8s.io/v1.ts";
import type * as nodev1 from "./node.k8s.io/v1.ts";
import type * as policyv1 from "./policy/v1.ts";
import type * as rbacv1 from "./rbac.authorization.k8s.io/v1.ts";
import type * as resourcev1 from "./resource.k8s.io/v1.ts";
import type * as schedulingv1 from "./scheduling.k8s.io/v1.ts";
import type * as storagev1 from "./storage.k8s.io/v1.ts";

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

/** The object type of kind Binding, the same as `BindingObject`; the value `Binding` is its descriptor. */
export type Binding = corev1.BindingObject;

/** The object type of kind ComponentStatus, the same as `ComponentStatusObject`; the value `ComponentStatus` is its descriptor. */
export type ComponentStatus = corev1.ComponentStatusObject;

/** The object type of kind ConfigMap, the same as `ConfigMapObject`; the value `ConfigMap` is its descriptor. */
export type ConfigMap = corev1.ConfigMapObject;

/** The object type of kind Endpoints, the same as `EndpointsObject`; the value `Endpoints` is its descriptor. */
export type Endpoints = corev1.EndpointsObject;

/** The object type of kind Event, the same as `EventObject`; the value `Event` is its descriptor. */
export type Event = eventsv1.EventObject;

/** The object type of kind LimitRange, the same as `LimitRangeObject`; the value `LimitRange` is its descriptor. */
export type LimitRange = corev1.LimitRangeObject;

/** The object type of kind Namespace, the same as `NamespaceObject`; the value `Namespace` is its descriptor. */
export type Namespace = corev1.NamespaceObject;

/** The object type of kind Node, the same as `NodeObject`; the value `Node` is its descriptor. */
export type Node = corev1.NodeObject;

/** The object type of kind PersistentVolume, the same as `PersistentVolumeObject`; the value `PersistentVolume` is its descriptor. */
export type PersistentVolume = corev1.PersistentVolumeObject;

/** The object type of kind PersistentVolumeClaim, the same as `PersistentVolumeClaimObject`; the value `PersistentVolumeClaim` is its descriptor. */
export type PersistentVolumeClaim = corev1.PersistentVolumeClaimObject;

/** The object type of kind Pod, the same as `PodObject`; the value `Pod` is its descriptor. */
export type Pod = corev1.PodObject;

/** The object type of kind PodTemplate, the same as `PodTemplateObject`; the value `PodTemplate` is its descriptor. */
export type PodTemplate = corev1.PodTemplateObject;

/** The object type of kind ReplicationController, the same as `ReplicationControllerObject`; the value `ReplicationController` is its descriptor. */
export type ReplicationController = corev1.ReplicationControllerObject;

/** The object type of kind ResourceQuota, the same as `ResourceQuotaObject`; the value `ResourceQuota` is its descriptor. */
export type ResourceQuota = corev1.ResourceQuotaObject;

/** The object type of kind Secret, the same as `SecretObject`; the value `Secret` is its descriptor. */
export type Secret = corev1.SecretObject;

/** The object type of kind Service, the same as `ServiceObject`; the value `Service` is its descriptor. */
export type Service = corev1.ServiceObject;

/** The object type of kind ServiceAccount, the same as `ServiceAccountObject`; the value `ServiceAccount` is its descriptor. */
export type ServiceAccount = corev1.ServiceAccountObject;

/** The object type of kind MutatingAdmissionPolicy, the same as `MutatingAdmissionPolicyObject`; the value `MutatingAdmissionPolicy` is its descriptor. */
export type MutatingAdmissionPolicy = admissionregistrationv1.MutatingAdmissionPolicyObject;

/** The object type of kind MutatingAdmissionPolicyBinding, the same as `MutatingAdmissionPolicyBindingObject`; the value `MutatingAdmissionPolicyBinding` is its descriptor. */
export type MutatingAdmissionPolicyBinding = admissionregistrationv1.MutatingAdmissionPolicyBindingObject;

/** The object type of kind MutatingWebhookConfiguration, the same as `MutatingWebhookConfigurationObject`; the value `MutatingWebhookConfiguration` is its descriptor. */
export type MutatingWebhookConfiguration = admissionregistrationv1.MutatingWebhookConfigurationObject;

/** The object type of kind ValidatingAdmissionPolicy, the same as `ValidatingAdmissionPolicyObject`; the value `ValidatingAdmissionPolicy` is its descriptor. */
export type ValidatingAdmissionPolicy = admissionregistrationv1.ValidatingAdmissionPolicyObject;

/** The object type of kind ValidatingAdmissionPolicyBinding, the same as `ValidatingAdmissionPolicyBindingObject`; the value `ValidatingAdmissionPolicyBinding` is its descriptor. */
export type ValidatingAdmissionPolicyBinding = admissionregistrationv1.ValidatingAdmissionPolicyBindingObject;

/** The object type of kind ValidatingWebhookConfiguration, the same as `ValidatingWebhookConfigurationObject`; the value `ValidatingWebhookConfiguration` is its descriptor. */
export type ValidatingWebhookConfiguration = admissionregistrationv1.ValidatingWebhookConfigurationObject;

/** The object type of kind CustomResourceDefinition, the same as `CustomResourceDefinitionObject`; the value `CustomResourceDefinition` is its descriptor. */
export type CustomResourceDefinition = apiextensionsv1.CustomResourceDefinitionObject;

/** The object type of kind APIService, the same as `APIServiceObject`; the value `APIService` is its descriptor. */
export type APIService = apiregistrationv1.APIServiceObject;

/** The object type of kind ControllerRevision, the same as `ControllerRevisionObject`; the value `ControllerRevision` is its descriptor. */
export type ControllerRevision = appsv1.ControllerRevisionObject;

/** The object type of kind DaemonSet, the same as `DaemonSetObject`; the value `DaemonSet` is its descriptor. */
export type DaemonSet = appsv1.DaemonSetObject;

/** The object type of kind Deployment, the same as `DeploymentObject`; the value `Deployment` is its descriptor. */
export type Deployment = appsv1.DeploymentObject;

/** The object type of kind ReplicaSet, the same as `ReplicaSetObject`; the value `ReplicaSet` is its descriptor. */
export type ReplicaSet = appsv1.ReplicaSetObject;

/** The object type of kind StatefulSet, the same as `StatefulSetObject`; the value `StatefulSet` is its descriptor. */
export type StatefulSet = appsv1.StatefulSetObject;

/** The object type of kind SelfSubjectReview, the same as `SelfSubjectReviewObject`; the value `SelfSubjectReview` is its descriptor. */
export type SelfSubjectReview = authenticationv1.SelfSubjectReviewObject;

/** The object type of kind TokenReview, the same as `TokenReviewObject`; the value `TokenReview` is its descriptor. */
export type TokenReview = authenticationv1.TokenReviewObject;

/** The object type of kind LocalSubjectAccessReview, the same as `LocalSubjectAccessReviewObject`; the value `LocalSubjectAccessReview` is its descriptor. */
export type LocalSubjectAccessReview = authorizationv1.LocalSubjectAccessReviewObject;

/** The object type of kind SelfSubjectAccessReview, the same as `SelfSubjectAccessReviewObject`; the value `SelfSubjectAccessReview` is its descriptor. */
export type SelfSubjectAccessReview = authorizationv1.SelfSubjectAccessReviewObject;

/** The object type of kind SelfSubjectRulesReview, the same as `SelfSubjectRulesReviewObject`; the value `SelfSubjectRulesReview` is its descriptor. */
export type SelfSubjectRulesReview = authorizationv1.SelfSubjectRulesReviewObject;

/** The object type of kind SubjectAccessReview, the same as `SubjectAccessReviewObject`; the value `SubjectAccessReview` is its descriptor. */
export type SubjectAccessReview = authorizationv1.SubjectAccessReviewObject;

/** The object type of kind HorizontalPodAutoscaler, the same as `HorizontalPodAutoscalerObject`; the value `HorizontalPodAutoscaler` is its descriptor. */
export type HorizontalPodAutoscaler = autoscalingv2.HorizontalPodAutoscalerObject;

/** The object type of kind CronJob, the same as `CronJobObject`; the value `CronJob` is its descriptor. */
export type CronJob = batchv1.CronJobObject;

/** The object type of kind Job, the same as `JobObject`; the value `Job` is its descriptor. */
export type Job = batchv1.JobObject;

/** The object type of kind CertificateSigningRequest, the same as `CertificateSigningRequestObject`; the value `CertificateSigningRequest` is its descriptor. */
export type CertificateSigningRequest = certificatesv1.CertificateSigningRequestObject;

/** The object type of kind Lease, the same as `LeaseObject`; the value `Lease` is its descriptor. */
export type Lease = coordinationv1.LeaseObject;

/** The object type of kind EndpointSlice, the same as `EndpointSliceObject`; the value `EndpointSlice` is its descriptor. */
export type EndpointSlice = discoveryv1.EndpointSliceObject;

/** The object type of kind FlowSchema, the same as `FlowSchemaObject`; the value `FlowSchema` is its descriptor. */
export type FlowSchema = flowcontrolv1.FlowSchemaObject;

/** The object type of kind PriorityLevelConfiguration, the same as `PriorityLevelConfigurationObject`; the value `PriorityLevelConfiguration` is its descriptor. */
export type PriorityLevelConfiguration = flowcontrolv1.PriorityLevelConfigurationObject;

/** The object type of kind IPAddress, the same as `IPAddressObject`; the value `IPAddress` is its descriptor. */
export type IPAddress = networkingv1.IPAddressObject;

/** The object type of kind Ingress, the same as `IngressObject`; the value `Ingress` is its descriptor. */
export type Ingress = networkingv1.IngressObject;

/** The object type of kind IngressClass, the same as `IngressClassObject`; the value `IngressClass` is its descriptor. */
export type IngressClass = networkingv1.IngressClassObject;

/** The object type of kind NetworkPolicy, the same as `NetworkPolicyObject`; the value `NetworkPolicy` is its descriptor. */
export type NetworkPolicy = networkingv1.NetworkPolicyObject;

/** The object type of kind ServiceCIDR, the same as `ServiceCIDRObject`; the value `ServiceCIDR` is its descriptor. */
export type ServiceCIDR = networkingv1.ServiceCIDRObject;

/** The object type of kind RuntimeClass, the same as `RuntimeClassObject`; the value `RuntimeClass` is its descriptor. */
export type RuntimeClass = nodev1.RuntimeClassObject;

/** The object type of kind PodDisruptionBudget, the same as `PodDisruptionBudgetObject`; the value `PodDisruptionBudget` is its descriptor. */
export type PodDisruptionBudget = policyv1.PodDisruptionBudgetObject;

/** The object type of kind ClusterRole, the same as `ClusterRoleObject`; the value `ClusterRole` is its descriptor. */
export type ClusterRole = rbacv1.ClusterRoleObject;

/** The object type of kind ClusterRoleBinding, the same as `ClusterRoleBindingObject`; the value `ClusterRoleBinding` is its descriptor. */
export type ClusterRoleBinding = rbacv1.ClusterRoleBindingObject;

/** The object type of kind Role, the same as `RoleObject`; the value `Role` is its descriptor. */
export type Role = rbacv1.RoleObject;

/** The object type of kind RoleBinding, the same as `RoleBindingObject`; the value `RoleBinding` is its descriptor. */
export type RoleBinding = rbacv1.RoleBindingObject;

/** The object type of kind DeviceClass, the same as `DeviceClassObject`; the value `DeviceClass` is its descriptor. */
export type DeviceClass = resourcev1.DeviceClassObject;

/** The object type of kind ResourceClaim, the same as `ResourceClaimObject`; the value `ResourceClaim` is its descriptor. */
export type ResourceClaim = resourcev1.ResourceClaimObject;

/** The object type of kind ResourceClaimTemplate, the same as `ResourceClaimTemplateObject`; the value `ResourceClaimTemplate` is its descriptor. */
export type ResourceClaimTemplate = resourcev1.ResourceClaimTemplateObject;

/** The object type of kind ResourceSlice, the same as `ResourceSliceObject`; the value `ResourceSlice` is its descriptor. */
export type ResourceSlice = resourcev1.ResourceSliceObject;

/** The object type of kind PriorityClass, the same as `PriorityClassObject`; the value `PriorityClass` is its descriptor. */
export type PriorityClass = schedulingv1.PriorityClassObject;

/** The object type of kind CSIDriver, the same as `CSIDriverObject`; the value `CSIDriver` is its descriptor. */
export type CSIDriver = storagev1.CSIDriverObject;

/** The object type of kind CSINode, the same as `CSINodeObject`; the value `CSINode` is its descriptor. */
export type CSINode = storagev1.CSINodeObject;

/** The object type of kind CSIStorageCapacity, the same as `CSIStorageCapacityObject`; the value `CSIStorageCapacity` is its descriptor. */
export type CSIStorageCapacity = storagev1.CSIStorageCapacityObject;

/** The object type of kind StorageClass, the same as `StorageClassObject`; the value `StorageClass` is its descriptor. */
export type StorageClass = storagev1.StorageClassObject;

/** The object type of kind VolumeAttachment, the same as `VolumeAttachmentObject`; the value `VolumeAttachment` is its descriptor. */
export type VolumeAttachment = storagev1.VolumeAttachmentObject;

/** The object type of kind VolumeAttributesClass, the same as `VolumeAttributesClassObject`; the value `VolumeAttributesClass` is its descriptor. */
export type VolumeAttributesClass = storagev1.VolumeAttributesClassObject;
