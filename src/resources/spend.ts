// Campaign spend: the counter store's running totals, loaded from and reconciled with the
// ledger (Postgres); and the sweep that takes unconfirmed serves off the ledger. Registered before the offer index, which asks it to load a campaign's
// spend before serving that campaign.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SpendKeeper } from '../spend/spend-keeper.js';
import { UnconfirmedServes } from '../decisions/unconfirmed-serves.js';

declare module 'fastify' {
  interface FastifyInstance {
    spend: SpendKeeper;
    unconfirmedServes: UnconfirmedServes;
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
  // Served rows whose answer never went out in time leave the ledger, whatever stopped their
  // instance from correcting them (unconfirmed-serves.ts).
  const unconfirmed = new UnconfirmedServes(app.repositories.decisions, {
    graceMs: config.unconfirmedServeGraceMs,
    intervalMs: config.unconfirmedServeSweepMs,
    now: app.now,
    log: app.log,
  });
  app.addHook('onReady', async () => unconfirmed.start());
  app.addHook('onClose', async () => unconfirmed.stop());
  app.decorate('unconfirmedServes', unconfirmed);
}

export default fp(spendResource, { name: 'spend', dependencies: ['config', 'counters', 'repositories'], fastify: '5.x' });
