// The group-commit writers of decisions, events, clicks and conversions. Closed after the features (their
// requests have drained), so everything acknowledged is flushed before the database closes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DecisionRecorder } from '../decide/decision-recorder.js';
import { EventRecorder } from '../events/event-recorder.js';
import { ClickRecorder } from '../links/click-recorder.js';
import { ConversionRecorder } from '../conversions/conversion-recorder.js';

export interface Writers {
  decisions: DecisionRecorder;
  events: EventRecorder;
  clicks: ClickRecorder;
  conversions: ConversionRecorder;
}

declare module 'fastify' {
  interface FastifyInstance {
    writers: Writers;
  }
}

async function writersResource(app: FastifyInstance) {
  const { repositories: repos, metrics } = app;
  const writers: Writers = {
    decisions: new DecisionRecorder(repos.decisions, metrics.flushObserver('decisions')),
    events: new EventRecorder(repos.events, metrics.flushObserver('events')),
    clicks: new ClickRecorder(repos.clicks, metrics.flushObserver('clicks')),
    conversions: new ConversionRecorder(repos.conversions, metrics.flushObserver('conversions')),
  };
  app.addHook('onClose', async () => {
    await Promise.all([writers.decisions.close(), writers.events.close(), writers.clicks.close(), writers.conversions.close()]);
  });
  app.decorate('writers', writers);
}

export default fp(writersResource, { name: 'writers', dependencies: ['repositories', 'metrics'], fastify: '5.x' });
