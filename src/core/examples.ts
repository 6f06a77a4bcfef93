/**
 * Ids used by the worked examples of the operation declarations. The examples test seeds resources with
 * exactly these ids in one organization, then sends every example as written; so an example's ids must
 * come from here. Ids follow the service's format: a kind prefix and 20 base62 characters.
 */
export const EXAMPLE = {
  apiKey: 'ads_live_Example0Key0For0Documentation00000000000',
  keyId: 'key_ExampleKey0000000001',
  revocableKeyId: 'key_ExampleKey0000000002',
  filterSegmentId: 'seg_ExampleFilter0000001',
  spareSegmentId: 'seg_ExampleFilter0000002',
  deletableSegmentId: 'seg_ExampleFilter0000003',
  matchedSegmentId: 'seg_ExampleMatched000001',
  failedUploadSegmentId: 'seg_ExampleMatched000002',
  audienceId: 'aud_ExampleAudience00001',
  spareAudienceId: 'aud_ExampleAudience00002',
  matchedAudienceId: 'aud_ExampleAudience00003',
  campaignId: 'cmp_ExampleCampaign00001',
  subscriptionId: 'whs_ExampleSubscript0001',
  eventId: 'evt_ExampleEvent00000001',
  webhookDeliveryId: 'whd_ExampleDelivery00001',
  memberUserId: 'usr_ExampleMember0000001',
  workflowRunId: 'wfr_ExampleWorkflow00001',
  deliveryId: 'dlv_ExampleDelivery00001',
  destinationId: 'dst_ExampleDestinat0001',
  integrationRunId: 'ir_ExampleIntegrationRun0000000000000000001',
  integrationCollectionId: 'icol_ExampleCollection00001',
  oauthGrantId: 'ExampleOAuthGrant000000000000000000000000001',
} as const;
