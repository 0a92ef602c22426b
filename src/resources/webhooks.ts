// Signed notifications: `app.notifications` publishes events to the outbox, and this instance's
// dispatcher delivers what is due (every instance runs one; leases keep them apart).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Notifications } from '../webhooks/notifications.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';

declare module 'fastify' {
  interface FastifyInstance {
    notifications: Notifications;
    webhookDispatcher: WebhookDispatcher;
  }
}

async function webhooksResource(app: FastifyInstance) {
  const { config } = app;
  const dispatcher = new WebhookDispatcher(app.repositories.webhooks, {
    pollMs: config.webhookPollMs,
    timeoutMs: config.webhookTimeoutMs,
    retryDelaysMs: config.webhookRetryDelaysMs,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    now: app.now,
    log: app.log,
  });
  app.decorate('notifications', new Notifications(app.repositories.webhooks, app.now, app.log));
  app.decorate('webhookDispatcher', dispatcher);
  app.addHook('onClose', () => dispatcher.stop());
  dispatcher.start();
}

export default fp(webhooksResource, { name: 'webhooks', dependencies: ['config', 'repositories'], fastify: '5.x' });
