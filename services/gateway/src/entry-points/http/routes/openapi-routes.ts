import { buildOpenApiDocument } from '@tm/contracts';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';

/** The machine-readable contract and a browsable reference page, both served from the package (no CDN). */
export function openApiRoutes(): Router {
  const document = buildOpenApiDocument();
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use(
    '/docs',
    swaggerUi.serve,
    swaggerUi.setup(undefined, { swaggerOptions: { url: '/api/v1/openapi.json' } }),
  );
  return router;
}
