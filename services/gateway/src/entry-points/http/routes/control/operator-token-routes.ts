import { OperatorTokenCreateRequest, parseOrThrow } from '@tm/contracts';
import { Router } from 'express';
import {
  issueOperatorToken,
  listOperatorTokens,
  revokeOperatorToken,
} from '../../../../domain/control/operator-tokens.js';
import { accountOf } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';
import { idParam } from '../../path-params.js';

export function operatorTokenRoutes(): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    res.json(await listOperatorTokens(accountOf(req)));
  });

  router.post('/', ...jsonBody, async (req, res) => {
    const input = parseOrThrow(OperatorTokenCreateRequest, req.body ?? {}, 'operator token');
    res.status(201).json(await issueOperatorToken(accountOf(req), input));
  });

  router.post('/:id/revoke', async (req, res) => {
    res.json(await revokeOperatorToken(accountOf(req), idParam(req, 'operator token')));
  });

  return router;
}
