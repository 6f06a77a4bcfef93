import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { asDoc } from '../segments/as-doc.ts';
import {
  CampaignAudienceParams, CampaignIdParams, CampaignListSchema, CampaignSchema, CreateCampaignBody, ListCampaignsQuery, PatchCampaignBody,
} from './schemas.ts';
import type { CampaignService } from './service.ts';

const tags = ['Campaigns'];

export function campaignRoutes(deps: { campaigns: CampaignService }): FastifyPluginAsyncTypebox {
  const { campaigns } = deps;
  return async (app) => {
    app.post('/v1/campaigns', {
      config: { scope: 'creator' },
      schema: { tags, summary: 'Create a campaign', body: CreateCampaignBody, response: { 201: CampaignSchema, ...errorResponses([400]) } },
    }, async (request, reply) => {
      reply.status(201);
      return asDoc(campaigns.create(principalOf(request), request.body));
    });

    app.get('/v1/campaigns', {
      config: { scope: 'discovery' },
      schema: { tags, summary: 'List campaigns (newest first; audiences are expanded on single GET only)', querystring: ListCampaignsQuery, response: { 200: CampaignListSchema, ...errorResponses([400]) } },
    }, async (request) => asDoc(campaigns.list(principalOf(request), request.query)));

    app.get('/v1/campaigns/:id', {
      config: { scope: 'discovery' },
      schema: { tags, summary: 'Get a campaign with its audiences expanded', params: CampaignIdParams, response: { 200: CampaignSchema, ...errorResponses([404]) } },
    }, async (request) => asDoc(campaigns.get(principalOf(request), request.params.id)));

    app.patch('/v1/campaigns/:id', {
      config: { scope: 'creator' },
      schema: { tags, summary: 'Rename, describe, archive or reactivate a campaign', params: CampaignIdParams, body: PatchCampaignBody, response: { 200: CampaignSchema, ...errorResponses([400, 404]) } },
    }, async (request) => asDoc(campaigns.patch(principalOf(request), request.params.id, request.body)));

    app.post('/v1/campaigns/:id/audiences/:audience_id', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Link an audience to the campaign',
        description: 'An audience belongs to at most one campaign. Idempotent when already linked here; 409 AUDIENCE_ALREADY_LINKED (with current_campaign_id) when linked elsewhere.',
        params: CampaignAudienceParams, response: { 204: Type.Null(), ...errorResponses([404, 409]) },
      },
    }, async (request, reply) => {
      await campaigns.link(principalOf(request), request.params.id, request.params.audience_id);
      reply.status(204).send(null);
    });

    app.delete('/v1/campaigns/:id/audiences/:audience_id', {
      config: { scope: 'creator' },
      schema: { tags, summary: 'Unlink an audience from the campaign', params: CampaignAudienceParams, response: { 204: Type.Null(), ...errorResponses([404]) } },
    }, async (request, reply) => {
      await campaigns.unlink(principalOf(request), request.params.id, request.params.audience_id);
      reply.status(204).send(null);
    });
  };
}
