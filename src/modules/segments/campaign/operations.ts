/** Operations on campaigns (spec 2, 4.6, 4.11). */
import { callerOf, defineOperation, reply, type Operation } from '../../../core/operation.ts';
import { EXAMPLE } from '../../../core/examples.ts';
import { IdParams, NoContent } from '../../../core/schema.ts';
import {
  CampaignAudienceParams,
  CampaignListSchema,
  CampaignSchema,
  CreateCampaignBody,
  ListCampaignsQuery,
  PatchCampaignBody,
} from './schemas.ts';
import type { CampaignService } from './service.ts';

const tags = ['Campaigns'];

export function campaignOperations(deps: { campaigns: CampaignService }): Operation[] {
  const { campaigns } = deps;
  return [
    defineOperation({
      id: 'createCampaign',
      method: 'POST',
      path: '/v1/campaigns',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Create a campaign',
      description: 'A named workspace grouping audiences (an audience belongs to at most one campaign). Description up to 1000 characters.',
      input: { body: CreateCampaignBody },
      status: 201,
      responses: { 201: CampaignSchema },
      errors: [],
      agent: false,
      examples: [
        {
          name: 'create',
          summary: 'A holiday campaign',
          request: { body: { name: 'Holiday 2026', description: 'Gift buyers, Nov-Dec' } },
          response: { status: 201 },
        },
      ],
      handler: async (ctx, { body }) => campaigns.create(callerOf(ctx), body),
    }),
    defineOperation({
      id: 'listCampaigns',
      method: 'GET',
      path: '/v1/campaigns',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'List campaigns (newest first)',
      description: 'Audiences are expanded on single GET only (empty arrays here). Follow next_cursor until null.',
      input: { query: ListCampaignsQuery },
      status: 200,
      responses: { 200: CampaignListSchema },
      errors: ['INVALID_CURSOR'],
      agent: false,
      examples: [{ name: 'list', summary: 'First page', request: {}, response: { status: 200 } }],
      handler: async (ctx, { query }) => campaigns.list(callerOf(ctx), query),
    }),
    defineOperation({
      id: 'getCampaign',
      method: 'GET',
      path: '/v1/campaigns/{id}',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'Get a campaign with its audiences expanded',
      description: 'Audiences newest link first; private audiences only for their creator. 404 when missing.',
      input: { params: IdParams },
      status: 200,
      responses: { 200: CampaignSchema },
      errors: ['CAMPAIGN_NOT_FOUND'],
      agent: false,
      examples: [{ name: 'get', summary: 'One campaign', request: { params: { id: EXAMPLE.campaignId } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => campaigns.get(callerOf(ctx), params.id),
    }),
    defineOperation({
      id: 'patchCampaign',
      method: 'PATCH',
      path: '/v1/campaigns/{id}',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Rename, describe, archive or reactivate a campaign',
      description: 'Status moves freely between active and archived.',
      input: { params: IdParams, body: PatchCampaignBody },
      status: 200,
      responses: { 200: CampaignSchema },
      errors: ['CAMPAIGN_NOT_FOUND'],
      agent: false,
      examples: [
        {
          name: 'describe',
          summary: 'Change the description',
          request: { params: { id: EXAMPLE.campaignId }, body: { description: 'Gift buyers' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => campaigns.patch(callerOf(ctx), params.id, body),
    }),
    defineOperation({
      id: 'linkCampaignAudience',
      method: 'POST',
      path: '/v1/campaigns/{id}/audiences/{audience_id}',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Link an audience to the campaign',
      description:
        'An audience belongs to at most one campaign. Idempotent when already linked here; 409 AUDIENCE_ALREADY_LINKED (with current_campaign_id) when linked elsewhere.',
      input: { params: CampaignAudienceParams },
      status: 204,
      responses: { 204: NoContent },
      errors: ['CAMPAIGN_NOT_FOUND', 'AUDIENCE_NOT_FOUND', 'AUDIENCE_ALREADY_LINKED'],
      agent: { tool: 'link_audience_to_campaign' },
      examples: [
        {
          name: 'link',
          summary: 'Link',
          request: { params: { id: EXAMPLE.campaignId, audience_id: EXAMPLE.audienceId } },
          response: { status: 204 },
        },
      ],
      handler: async (ctx, { params }) => {
        await campaigns.link(callerOf(ctx), params.id, params.audience_id);
        return reply(204, null);
      },
    }),
    defineOperation({
      id: 'unlinkCampaignAudience',
      method: 'DELETE',
      path: '/v1/campaigns/{id}/audiences/{audience_id}',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Unlink an audience from the campaign',
      description: '404 AUDIENCE_NOT_LINKED when the audience is not linked to this campaign.',
      input: { params: CampaignAudienceParams },
      status: 204,
      responses: { 204: NoContent },
      errors: ['CAMPAIGN_NOT_FOUND', 'AUDIENCE_NOT_LINKED'],
      agent: false,
      examples: [
        {
          name: 'unlink',
          summary: 'Unlink',
          request: { params: { id: EXAMPLE.campaignId, audience_id: EXAMPLE.audienceId } },
          response: { status: 204 },
        },
      ],
      handler: async (ctx, { params }) => {
        await campaigns.unlink(callerOf(ctx), params.id, params.audience_id);
        return reply(204, null);
      },
    }),
  ];
}
