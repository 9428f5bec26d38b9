import {
  CreateTemplateRequest,
  MarketplaceQuery,
  parseOrThrow,
  TemplateListQuery,
  UpdateTemplateRequest,
} from '@tm/contracts';
import { Router } from 'express';
import type { TemplateClient } from '../../../clients/template-client.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { jsonBody } from '../middleware/json-body.js';
import { pathRef } from '../path-params.js';
import { expectedRevision, revisionETag } from './template-etag.js';

/**
 * Private templates (`/v1/templates`) and the marketplace (`/v1/marketplace/templates`). Reading takes
 * an API key with `memory:recall`, creating and updating `memory:write`; the tenant is the key's.
 */
export function templateRoutes(templates: TemplateClient, auth: AuthDeps): Router {
  const router = Router();
  const read = requireApiKey(auth, 'memory:recall');
  const write = requireApiKey(auth, 'memory:write');

  router.get('/templates', read, async (req, res) => {
    const { limit, offset } = parseOrThrow(TemplateListQuery, req.query, 'template list query');
    res.json(await templates.listTemplates({ tenant_id: scopeOf(req).tenant_id, limit, offset }));
  });

  router.post('/templates', write, ...jsonBody, async (req, res) => {
    const body = parseOrThrow(CreateTemplateRequest, req.body, 'template');
    const template = await templates.createTemplate({ tenant_id: scopeOf(req).tenant_id, body });
    res.status(201).set('ETag', revisionETag(template.revision)).json(template);
  });

  router.get('/templates/:ref', read, async (req, res) => {
    const ref = pathRef(req.params.ref, 'template');
    const template = await templates.getTemplate({ tenant_id: scopeOf(req).tenant_id, ref });
    res.set('ETag', revisionETag(template.revision)).json(template);
  });

  router.put('/templates/:ref', write, ...jsonBody, async (req, res) => {
    const ref = pathRef(req.params.ref, 'template');
    const body = parseOrThrow(UpdateTemplateRequest, req.body, 'template update');
    const expected_revision = expectedRevision(req.get('if-match'));
    const template = await templates.updateTemplate({
      tenant_id: scopeOf(req).tenant_id,
      ref,
      body,
      expected_revision,
    });
    res.set('ETag', revisionETag(template.revision)).json(template);
  });

  router.get('/marketplace/templates', read, async (req, res) => {
    const query = parseOrThrow(MarketplaceQuery, req.query, 'marketplace query');
    // `keyword` is the spec's name, `q` the older one; sent together, every word of both must match.
    const words = [query.keyword, query.q].filter((w) => w !== undefined).join(' ');
    const { limit, offset, category } = query;
    res.json(
      await templates.searchMarketplace({ limit, offset, category: category ?? null, q: words || null }),
    );
  });

  router.get('/marketplace/templates/:id', read, async (req, res) => {
    const id = pathRef(req.params.id, 'marketplace template');
    res.json(await templates.getMarketplaceTemplate({ id }));
  });

  return router;
}
