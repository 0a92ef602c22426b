// History upkeep: day partitions made ahead, expired ones dropped, keys and rollups forgotten
// once their guarantees no longer need them (docs/scaling.md).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HistoryMaintenance } from '../db/history-partitions.js';
import { MINUTE_ROLLUP_RETENTION_DAYS } from '../reporting/report-repository.js';
import { DELIVERY_RETENTION_DAYS } from '../webhooks/webhook-repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    history: HistoryMaintenance;
  }
}

async function historyResource(app: FastifyInstance) {
  const { config, repositories: repos } = app;
  const history = new HistoryMaintenance(
    app.db,
    {
      retentionDays: {
        decisions: config.decisionsRetentionDays,
        events: config.eventsRetentionDays,
        clicks: config.clicksRetentionDays,
        conversions: config.conversionsRetentionDays,
        affiliate_impressions: config.affiliateImpressionsRetentionDays,
        click_intents: config.clickIntentsRetentionDays,
      },
      daysAhead: config.historyDaysAhead,
      keyExpiry: [
        { name: 'event_idempotency_keys', days: config.idempotencyKeyRetentionDays, forgetBefore: (t) => repos.events.forgetIdempotencyKeysBefore(t) },
        { name: 'conversion_nonces', days: config.conversionNonceRetentionDays, forgetBefore: (t) => repos.conversions.forgetNoncesBefore(t) },
        // An order id counts as long as a conversion for it can still be accepted.
        { name: 'conversion_orders', days: config.attributionWindowDays + 1, forgetBefore: (t) => repos.conversions.forgetOrdersBefore(t) },
        // Report rollups: minute rows once no range reads them, the rest with the decisions.
        { name: 'report minute rollups', days: MINUTE_ROLLUP_RETENTION_DAYS, forgetBefore: (t) => repos.reports.forgetRollupsBefore(60, t) },
        { name: 'report half-hour rollups', days: config.decisionsRetentionDays, forgetBefore: (t) => repos.reports.forgetRollupsBefore(1800, t) },
        { name: 'report funnel marks', days: config.decisionsRetentionDays, forgetBefore: (t) => repos.reports.forgetFunnelMarksBefore(t) },
        { name: 'webhook deliveries', days: DELIVERY_RETENTION_DAYS, forgetBefore: (t) => repos.webhooks.forgetDeliveriesBefore(t) },
      ],
    },
    { now: app.now, log: app.log, intervalMs: config.historyMaintenanceMs },
  );
  app.addHook('onClose', () => history.stop());
  // Today's partitions must exist before the first write: wait for another instance's run.
  await history.run({ wait: true });
  history.start();
  app.decorate('history', history);
}

export default fp(historyResource, { name: 'history', dependencies: ['config', 'repositories'], fastify: '5.x' });
