/** Event types of spec section 6 and the `data` each carries (documented in event-schemas.ts). */
export const EVENT_TYPES = [
  'segment.ready',
  'segment.failed',
  'delivery.completed',
  'delivery.failed',
  'integration_run.completed',
  'integration_run.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Date-versioned payload format; bump when an envelope or data field changes incompatibly. */
export const WEBHOOK_API_VERSION = '2026-11-01';

/** Spec section 6 allows at most 10 attempts in all. */
export const MAX_ATTEMPTS = 10;

export interface EventSubject {
  kind: string;
  id: string;
  name: string | null;
}

export interface SegmentReadyData {
  status: 'completed';
  subtype: string;
  audience_id: string | null;
  record_count: number | null;
  match_count?: number | null;
  mapping_warnings?: unknown[];
  [extra: string]: unknown;
}

export interface SegmentFailedData {
  status: 'failed';
  subtype: string;
  audience_id: string | null;
  error_code: string;
  error_message: string;
  failed_at: string;
  [extra: string]: unknown;
}

export interface DeliveryCompletedData {
  status: 'completed';
  delivery_id: string;
  audience_id: string;
  audience_version: number;
  destination: string;
  output_format: string | null;
  output_record_count: number | null;
  output_bytes: number | null;
  part_count: number | null;
  cost: number;
  download_urls_expire_at: string | null;
  completed_at: string;
  [extra: string]: unknown;
}

export interface DeliveryFailedData {
  status: 'failed';
  delivery_id: string;
  audience_id: string;
  audience_version: number;
  destination: string;
  failure_reason: string;
  error_code: string | null;
  cost: number;
  failed_at: string;
  [extra: string]: unknown;
}

/** An integration run reached completed or failed (ours: decision 038). */
export interface IntegrationRunEventData {
  status: 'completed' | 'failed';
  run_id: string;
  provider: string;
  connection_id: string;
  kind: string;
  billing_source: string;
  counts: Record<string, number>;
  failure_code: string | null;
  failure_message: string | null;
  completed_at: string;
  [extra: string]: unknown;
}

export interface EventDataByType {
  'segment.ready': SegmentReadyData;
  'segment.failed': SegmentFailedData;
  'delivery.completed': DeliveryCompletedData;
  'delivery.failed': DeliveryFailedData;
  'integration_run.completed': IntegrationRunEventData;
  'integration_run.failed': IntegrationRunEventData;
}

export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  api_version: string;
  org_id: string;
  subject: EventSubject;
  data: Record<string, unknown>;
  links: Record<string, never>;
}

export type DeliveryDestination = 'request' | 'organization' | 'subscription';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
/** Why a delivery ended without success. */
export type FailureReason =
  'endpoint_gone' | 'rejected' | 'attempts_exhausted' | 'target_not_allowed' | 'subscription_deleted' | 'no_secret';
