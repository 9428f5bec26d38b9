import {
  ChargeListQuery,
  InvoiceCreateRequest,
  parseOrThrow,
  UsageQuery,
  VoidChargeRequest,
} from '@tm/contracts';
import { Router } from 'express';
import type { BillingClient } from '../../../../clients/billing-client.js';
import { requireRole } from '../../../../domain/identity/role-permissions.js';
import { accountOf } from '../../middleware/authenticate.js';
import { jsonBody } from '../../middleware/json-body.js';
import { idParam } from '../../path-params.js';

/** Usage summary and the charge ledger, answered by the billing service for the signed-in tenant. */
export function billingRoutes(billing: BillingClient): Router {
  const router = Router();

  router.get('/usage', async (req, res) => {
    const account = accountOf(req);
    requireRole(account.role, 'usage:read');
    const query = parseOrThrow(UsageQuery, req.query, 'usage query');
    res.json(await billing.usage({ ...query, tenant_id: account.tenantId, request_id: req.requestId }));
  });

  router.get('/billing/charges', async (req, res) => {
    const account = accountOf(req);
    requireRole(account.role, 'billing:read');
    const query = parseOrThrow(ChargeListQuery, req.query, 'charge query');
    res.json(await billing.listCharges({ ...query, tenant_id: account.tenantId }));
  });

  /** recorded or unbilled → void; voiding again answers the void charge (idempotent). */
  router.post('/billing/charges/:id/void', ...jsonBody, async (req, res) => {
    const account = accountOf(req);
    requireRole(account.role, 'billing:void');
    const { reason } = parseOrThrow(VoidChargeRequest, req.body, 'void request');
    res.json(
      await billing.voidCharge({
        tenant_id: account.tenantId,
        charge_id: idParam(req, 'charge'),
        actor_user_id: account.userId,
        reason,
      }),
    );
  });

  /** Roll up a closed month: its recorded charges become invoiced (idempotent per month). */
  router.post('/billing/invoices', ...jsonBody, async (req, res) => {
    const account = accountOf(req);
    requireRole(account.role, 'billing:invoice');
    const { period } = parseOrThrow(InvoiceCreateRequest, req.body, 'invoice request');
    res.json(
      await billing.closeInvoicePeriod({
        tenant_id: account.tenantId,
        period,
        actor_user_id: account.userId,
      }),
    );
  });

  router.get('/billing/invoices', async (req, res) => {
    const account = accountOf(req);
    requireRole(account.role, 'billing:read');
    res.json(await billing.listInvoices({ tenant_id: account.tenantId }));
  });

  return router;
}
