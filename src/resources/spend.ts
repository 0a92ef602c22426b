// Campaign spend: the counter store's running totals, loaded from and reconciled with the
// ledger (Postgres). Registered before the offer index, which asks it to load a campaign's
// spend before serving that campaign.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SpendKeeper } from '../spend/spend-keeper.js';

declare module 'fastify' {
  interface FastifyInstance {
    spend: SpendKeeper;
  }
}

async function spendResource(app: FastifyInstance) {
  const { config } = app;
  // The campaigns to reconcile are the ones the offer index serves, read when reconciling.
  const servedCampaigns = () => [...app.catalogRuntime.serving.campaigns.keys()];
  const spend = new SpendKeeper(app.repositories.decisions, app.counters, servedCampaigns, {
    settleMs: config.spendSettleMs ?? config.decideTimeBudgetMs + 250,
    reconcileMs: config.spendReconcileMs,
    now: app.now,
    log: app.log,
  });
  // Reconciling starts once every plugin (the offer index among them) is loaded.
  app.addHook('onReady', async () => spend.start());
  app.addHook('onClose', async () => spend.stop());
  app.decorate('spend', spend);
}

export default fp(spendResource, { name: 'spend', dependencies: ['config', 'counters', 'repositories'], fastify: '5.x' });
