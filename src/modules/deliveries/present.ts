/** Delivery rows -> the spec's Delivery, with download URLs signed afresh for 24 hours on every read. */
import type { DeliveryDoc } from './schemas.ts';
import type { DeliveryRow } from './store.ts';

export interface DownloadSigner {
  /** The signed GET URL of one stored part, valid until `expiresAt`. */
  url(t: { method: 'GET'; path: string; expiresAt: Date }): string;
}

export const DOWNLOAD_TTL_MS = 24 * 60 * 60_000;
export const downloadPath = (orgId: string, deliveryId: string, part: string) => `/v1/downloads/${orgId}/${deliveryId}/${part}`;

export interface StoredPart {
  name: string;
  location: string;
  bytes: number;
  rows: number;
}

export const partsOf = (row: Pick<DeliveryRow, 'parts'>): StoredPart[] => (row.parts ? (JSON.parse(row.parts) as StoredPart[]) : []);

const usd = (cents: number) => Math.round(cents) / 100;

export function presentDelivery(row: DeliveryRow, signer: DownloadSigner, now: Date): DeliveryDoc {
  const urlExpiry = new Date(now.getTime() + DOWNLOAD_TTL_MS);
  const completed = row.status === 'completed';
  const downloads =
    completed && row.destination === 'download'
      ? partsOf(row).map((p) => signer.url({ method: 'GET', path: downloadPath(row.org_id, row.id, p.name), expiresAt: urlExpiry }))
      : null;
  return {
    delivery_id: row.id,
    audience_id: row.audience_id,
    audience_version: row.audience_version,
    destination: row.destination as DeliveryDoc['destination'],
    destination_id: row.destination_id,
    template_id: row.template_id,
    field_list: row.field_list ? (JSON.parse(row.field_list) as string[]) : null,
    include_unmatched: row.include_unmatched,
    status: row.status as DeliveryDoc['status'],
    cost: usd(row.cost_cents),
    estimated_cost: usd(row.estimated_cost_cents),
    already_delivered: false,
    created_at: row.created_at,
    // Download deliveries: when the URLs of this answer expire; other destinations: 24 hours after creation.
    expires_at: downloads ? urlExpiry : row.expires_at,
    completed_at: row.completed_at,
    output_format: row.output_format as DeliveryDoc['output_format'],
    output_compression: row.output_compression as DeliveryDoc['output_compression'],
    output_bytes: row.output_bytes === null ? null : Number(row.output_bytes),
    download_urls: downloads,
    output_record_count: row.output_record_count,
    failure_reason: row.failure_reason,
    matched_segment_id: row.matched_segment_id,
    source_job_id: row.source_job_id,
    ...(row.integration_run_id ? { integration_run_id: row.integration_run_id } : {}),
    data_release: { major: row.release_major, minor: row.release_minor },
  };
}
