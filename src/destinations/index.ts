/** Delivery destinations (issue #14): download, sftp, s3 behind one interface. Protocol-free. */
export { createDestinationRegistry, type DestinationRegistry } from './registry.ts';
export { downloadDestination, downloadObjectKey, type DownloadConfig } from './download.ts';
export { sftpDestination, type SftpConfig, type SftpSecrets } from './sftp.ts';
export { s3Destination, MULTIPART_PART_BYTES, type S3Config, type S3Secrets } from './s3.ts';
export { outboundLookup, resolveHost } from './net.ts';
export {
  DestinationAuthError,
  DestinationBlockedError,
  DestinationConfigError,
  DestinationUnreachableError,
  DestinationWriteError,
  type DestinationError,
} from './errors.ts';
export type { DeliveredObject, DeliveryDestination, DeliveryPart, DeliveryTarget, LookupFunction, NetOptions } from './types.ts';
