/**
 * The destination kinds. Adding one: write its file (types.ts DeliveryDestination) and add one line here.
 */
import type { ObjectStore } from '../objects/store.ts';
import { downloadDestination } from './download.ts';
import { s3Destination } from './s3.ts';
import { sftpDestination } from './sftp.ts';
import type { DeliveryDestination } from './types.ts';

export type DestinationRegistry = ReadonlyMap<string, DeliveryDestination>;

export function createDestinationRegistry(deps: { store: ObjectStore }): DestinationRegistry {
  const all: DeliveryDestination<any, any>[] = [downloadDestination(deps.store), sftpDestination, s3Destination];
  return new Map(all.map((d) => [d.kind, d as DeliveryDestination]));
}
