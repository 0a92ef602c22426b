// GET /r/{token}: verify, re-check the destination, redirect, then record.
// The redirect needs neither the database nor Redis: the sealed token names the destination
// and the in-memory catalog holds the advertiser's allowlist, so it keeps working while either
// is down. Recording happens after the reply and can never fail the redirect.
import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { sendError } from '../http/errors.js';
import { toJsonSchema } from '../http/openapi.js';
import { RATE_LIMITED, errorResponse } from '../http/error-responses.js';
import { clientIdentities } from '../http/rate-limit.js';
import { allowedDestination } from '../catalog/destinations.js';
import { newId } from '../util/ids.js';
import { isBotUserAgent } from './bot-user-agents.js';
import { judgeClick } from './click-quality.js';
import type { TrackedLinkClaims } from './tracked-link.js';
import type { ClickRow } from './click-repository.js';
import { feature } from '../http/feature.js';

/** The shape of a tracked-link token (tracked-link.ts): `v2.<base64url>` as issued, or a legacy
 *  `v1.<payload>.<mac>` still read until it expires. Whether it is authentic is for the
 *  cryptography to say, which no schema can. */
const TokenParam = z.strictObject({
  token: z
    .string()
    // At most 4,096 characters in all (tracked-link.ts), said in the pattern rather than with
    // maxLength: a contract tester's "too long" token of multi-byte characters, percent-encoded,
    // outgrows Node's 16 KiB request line and is refused (431) before the app can answer.
    .regex(/^(?:v2\.[A-Za-z0-9_-]{52,4093}|v1\.[A-Za-z0-9_-]{0,4050}\.[A-Za-z0-9_-]{21}[AQgw])$/)
    .describe(
      'The opaque token of the `link` decide returned: `v2.` and base64url of an AES-256-GCM sealed record (nothing in it is readable). Legacy `v1.<payload>.<mac>` links are accepted until their own expiry, never issued.',
    ),
});

async function redirects(app: FastifyInstance) {
  const { links, catalogRuntime, counters } = app;
  const { clicks } = app.writers;
  // Client IPs are stored only as a keyed, truncated hash.
  const ipKey = links.deriveKey('click-ip');
  const limitIdentity = clientIdentities(links.deriveKey('rate-limit-address'), app.config.rateLimitIpv6PrefixBits);

  app.route({
    method: ['GET', 'HEAD'],
    url: '/r/:token',
    schema: {
      tags: ['links'],
      summary: 'Tracked-link redirect to the allowlisted destination',
      params: toJsonSchema(TokenParam),
      response: {
        302: {
          description: 'Redirect to the allowlisted destination. HEAD requests (link checkers) get the same answer and are never counted.',
          type: 'null',
          headers: {
            location: { type: 'string', description: "The offer's destination, re-checked against the advertiser's allowlist." },
            'cache-control': { type: 'string', description: '`no-store`: every click comes back here.' },
            'referrer-policy': { type: 'string', description: '`no-referrer`: the chat page is not revealed to the advertiser.' },
          },
        },
        400: errorResponse(
          'A malformed, tampered or unknown token (`invalid_link`), or a destination no longer on the allowlist (`invalid_destination`). HEAD answers carry no body.',
          [{ error: 'invalid_link' }, { error: 'invalid_destination' }],
        ),
        ...RATE_LIMITED,
      },
    },
    exposeHeadRoute: false,
    // Every click leaves state (a clicks row, dedupe and visitor keys, rate windows), so one
    // address may only make so many: past CLICK_RATE_LIMIT_PER_MINUTE it gets 429 in the
    // onRequest hook, before the token is even read, leaving one window key per address.
    // 429 rather than a redirect that records nothing: the limit is 120x the rate at which an
    // address's clicks still count (1 a minute), so real people behind one NAT reach it only when
    // a whole carrier or office funnels through one address; the likelier cause of that is a
    // proxy missing from TRUSTED_PROXIES, and a visible 429 (metrics, retry-after) surfaces it
    // where silently unrecorded redirects would hide it. Operators with such traffic raise it.
    // IPv6 clients are limited per /64 (one subscriber's prefix), so rotating addresses within
    // it does not multiply the allowance.
    config: {
      rateLimit: {
        max: app.config.clickRateLimitPerMinute,
        timeWindow: 60_000,
        keyGenerator: (request: FastifyRequest) => limitIdentity(request.ip),
      },
    },
    handler: async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
      reply.header('cache-control', 'no-store');
      const claims = links.verify(request.params.token, app.now());
      if (!claims) return sendError(reply, 'invalid_link');
      const advertiser = catalogRuntime.serving.advertisers.get(claims.advertiserId);
      // Re-checked at click time: an advertiser suspended or a destination removed since the
      // decision stops the redirect.
      const destination = advertiser?.active ? allowedDestination(claims.destination, advertiser.destinations) : null;
      if (!destination) return sendError(reply, 'invalid_destination');
      // The chat page that showed the link may carry conversation ids in its URL; the
      // advertiser is not told where the click came from.
      reply.header('referrer-policy', 'no-referrer');
      // The canonical form: non-ASCII percent-encoded, so it is always a valid Location header.
      reply.redirect(destination, 302);
      // Recorded after the reply is on its way; HEAD requests (link checkers) too, never counted.
      setImmediate(() => clicks.recordWhenJudged(judgedClick(claims, request)));
      return reply;
    },
  });

  async function judgedClick(claims: TrackedLinkClaims, request: FastifyRequest): Promise<ClickRow> {
    const nowMs = app.now();
    const userAgent = request.headers['user-agent'] ?? '';
    const bot = request.method === 'HEAD' || isBotUserAgent(userAgent);
    const ipHash = createHmac('sha256', ipKey).update(request.ip).digest('base64url').slice(0, 16);
    const reason = await judgeClick({ claims, nowMs, bot, ipHash, userAgent }, counters);
    return {
      id: newId('clk'),
      decisionId: claims.decisionId,
      appId: claims.appId,
      offerSnapshotId: claims.snapshotId,
      createdAt: new Date(nowMs),
      ipHash,
      userAgentBot: bot,
      counted: reason === null,
      notCountedReason: reason,
    };
  }
}

export const redirectRoutes = feature(redirects, { name: 'redirects', needs: ['config', 'now', 'links', 'catalogRuntime', 'counters', 'writers'] });
