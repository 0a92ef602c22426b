// Conversion event request and response (SPEC 2.6, DESIGN.md §2).
import { z } from 'zod';
import { DecisionId, SnapshotId } from '../events/event-schemas.js';

export const ConversionRequest = z
  .strictObject({
    offer_snapshot_id: SnapshotId,
    decision_id: DecisionId.optional(),
    timestamp: z.int().min(0).max(1e11).describe('Unix seconds when the host signed it; must be within 300 s of server time.'),
    nonce: z.string().min(8).max(80).describe('Single use per app.'),
    signature: z
      .string()
      .min(16)
      .max(256)
      .describe('Lowercase hex HMAC-SHA256 of "{timestamp}.{nonce}.{offer_snapshot_id}.{decision_id or empty}" with the app\'s conversion secret.'),
  })
  .describe('Signed conversion (SPEC 2.6).')
  .meta({
    examples: [
      {
        offer_snapshot_id: 'snp_4f9Qm2x8Lr1aZ0cV7bN3kD',
        decision_id: 'dec_7Hc2mQ9xPz4LkV1sR8tY0a',
        timestamp: 1795420800,
        nonce: 'order-20261122-0042',
        signature: '3f1c8e0d4b6a2f9e7c5d1a0b8e6f4d2c9a7b5e3f1d0c8b6a4e2f0d9c7b5a3e1f',
      },
    ],
  });

export const ConversionResponse = z.strictObject({
  ok: z.literal(true),
  inserted: z.boolean().describe('false for an exact retry of a recorded conversion.'),
  conversion_id: z.string().regex(/^cnv_/),
  offer_snapshot_id: z.string(),
  billable: z.literal(false),
  ledger_written: z.literal(false),
});

export type ConversionRequest = z.infer<typeof ConversionRequest>;
