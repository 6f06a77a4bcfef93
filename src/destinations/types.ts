/**
 * Delivery destinations (issue #14): where finished export parts go. One interface; each kind is one
 * file registered in registry.ts, so a new destination is a new file and one registry line.
 *
 * Every network connection resolves its host through the caller's `net.lookup` (the outbound-target
 * policy supplies it) and connects to exactly the address that lookup returned - IP literals included,
 * which Node would otherwise connect to without asking any lookup. A refusing lookup therefore means
 * no connection is ever opened.
 */

/** A dns.lookup-compatible function (called with options `{ all: false }`). */
export type LookupFunction = (
  hostname: string,
  options: { all?: false; family?: number },
  callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
) => void;

export interface NetOptions {
  lookup: LookupFunction;
  /** Connect and handshake timeout; default 15 s. */
  timeoutMs?: number;
}

/** A finished export part (src/export-engine ExportPart). */
export interface DeliveryPart {
  path: string;
  name: string;
  bytes: number;
}

/** What is being delivered, for object names. */
export interface DeliveryTarget {
  orgId: string;
  deliveryId: string;
}

/** Where one part landed: an object key (download, s3) or a remote path (sftp). */
export interface DeliveredObject {
  name: string;
  location: string;
  bytes: number;
}

export interface DeliveryDestination<Config = unknown, Secrets = unknown> {
  readonly kind: string;
  /** Validates a configuration (no secrets); throws DestinationConfigError listing every problem. */
  checkConfig(config: unknown): Config;
  /**
   * The host a connection of this configuration dials (null: none, or the provider's own public
   * endpoint), judged by the outbound-target policy when the destination is configured.
   */
  targetHost(config: Config): string | null;
  /** Validates credentials; throws DestinationConfigError. Secrets are never part of `Config`. */
  checkSecrets(secrets: unknown): Secrets;
  /** Connects and authenticates as a delivery would, and checks the target folder or bucket. */
  testConnection(config: Config, secrets: Secrets, net: NetOptions): Promise<void>;
  /** Delivers the parts in order; a retry overwrites the same names, never a second copy. */
  upload(
    parts: readonly DeliveryPart[],
    target: DeliveryTarget,
    config: Config,
    secrets: Secrets,
    net: NetOptions,
  ): Promise<DeliveredObject[]>;
}
