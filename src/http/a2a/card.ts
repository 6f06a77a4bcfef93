/**
 * The agent card and its skills, derived from the agent tools (the operation declarations): one
 * read-only `discovery` skill holding every tool a `discovery` token may call (the default when a
 * message names no skill), one skill per declaration tag for the tools that need `creator` (matching,
 * segments, audiences, campaigns...), and an `account-info` skill for `account-read` reads. Tools that
 * need `account` (administration, keys, purchases) are never offered here (spec 4.10).
 */
import type { Scope } from '../../core/scopes.ts';
import type { AgentTool } from '../agent-tools.ts';

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  scope: Scope;
  tools: AgentTool[];
}

export const DEFAULT_SKILL = 'discovery';

const kebab = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function agentSkills(tools: readonly AgentTool[]): AgentSkill[] {
  const skills = new Map<string, AgentSkill>();
  const add = (id: string, name: string, scope: Scope, tool: AgentTool) => {
    const skill = skills.get(id) ?? { id, name, description: '', scope, tools: [] };
    skill.tools.push(tool);
    skills.set(id, skill);
  };
  for (const tool of tools) {
    if (tool.scope === 'account') continue;
    if (tool.scope === null || tool.scope === 'discovery') add(DEFAULT_SKILL, 'Discovery', 'discovery', tool);
    else if (tool.scope === 'account-read') add('account-info', 'Account information', 'account-read', tool);
    else {
      const tag = tool.op.tags[0] ?? 'Other';
      add(kebab(tag), tag, tool.scope, tool);
    }
  }
  for (const skill of skills.values()) {
    const what =
      skill.scope === 'discovery'
        ? 'Read-only'
        : skill.scope === 'account-read'
          ? 'Read-only account status'
          : 'Changes state and may cost money';
    skill.description =
      `${what} (scope ${skill.scope}${skill.scope === 'account-read' ? ' or account' : ''}). Send a data part {"tool": name, "arguments": {...}}; tools: ` +
      skill.tools.map((t) => `${t.name} (${t.op.summary})`).join('; ');
  }
  return [...skills.values()];
}

export interface CardUrls {
  /** {a2a_url} */
  resource: string;
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  deviceAuthorizationUrl: string;
  metadataUrl: string;
  version: string;
}

const SCOPES = {
  discovery: 'Read-only: counts, masked samples, segments, audiences, catalog and status.',
  creator: 'Read-write: create and change segments and audiences, match records (these can cost money).',
  'account-read': 'Read account status.',
};

/** The card of A2A 1.0 (`supportedInterfaces`, proto-style security) or 0.3 (`url`, `preferredTransport`, OpenAPI-style security). */
export function agentCard(skills: readonly AgentSkill[], urls: CardUrls, version: '1.0' | '0.3'): Record<string, unknown> {
  const endpoint = `${urls.resource.replace(/\/+$/, '')}/a2a`;
  const common = {
    name: 'Audience Data Service',
    description:
      'Discovery, segments, audiences and matching over an identity graph. Every skill runs the same operations as the REST API, within the token scopes.',
    version: urls.version,
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    documentationUrl: `${urls.issuer}/docs`,
  };
  if (version === '1.0') {
    return {
      ...common,
      supportedInterfaces: [
        { url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      securitySchemes: {
        oauth2: {
          oauth2SecurityScheme: {
            oauth2MetadataUrl: urls.metadataUrl,
            flows: {
              authorizationCode: { authorizationUrl: urls.authorizationUrl, tokenUrl: urls.tokenUrl, scopes: SCOPES, pkceRequired: true },
              deviceCode: { deviceAuthorizationUrl: urls.deviceAuthorizationUrl, tokenUrl: urls.tokenUrl, scopes: SCOPES },
            },
          },
        },
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'An API-key bearer from POST /v1/auth/token' } },
      },
      securityRequirements: [{ schemes: { oauth2: { list: ['discovery'] } } }, { schemes: { bearer: { list: [] } } }],
      skills: skills.map((s) => ({
        id: s.id,
        name: s.name,
        description: s.description,
        tags: [s.scope, ...s.tools.map((t) => t.name)],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
        securityRequirements: [{ schemes: { oauth2: { list: [s.scope] } } }],
      })),
    };
  }
  return {
    ...common,
    protocolVersion: '0.3.0',
    url: endpoint,
    preferredTransport: 'JSONRPC',
    securitySchemes: {
      oauth2: {
        type: 'oauth2',
        oauth2MetadataUrl: urls.metadataUrl,
        flows: { authorizationCode: { authorizationUrl: urls.authorizationUrl, tokenUrl: urls.tokenUrl, scopes: SCOPES } },
      },
      bearer: { type: 'http', scheme: 'bearer', description: 'An API-key bearer from POST /v1/auth/token' },
    },
    security: [{ oauth2: ['discovery'] }, { bearer: [] }],
    skills: skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: [s.scope, ...s.tools.map((t) => t.name)],
      inputModes: ['application/json'],
      outputModes: ['application/json'],
      security: [{ oauth2: [s.scope] }],
    })),
  };
}
