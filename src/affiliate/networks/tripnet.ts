// TripNet-style redirector networks (the shape Travelpayouts and similar use): a click URL on
// the network's host carrying the partner marker, a sub id, and the destination URL-encoded.
import type { NetworkAdapter } from './network-adapter.js';

export const tripnet: NetworkAdapter = {
  id: 'tripnet',
  validate: () => [],
  buildUrl(network, { decisionId, destination }) {
    const url = new URL('https://c.tripnet.example/r');
    url.searchParams.set('marker', network.partnerMarker);
    url.searchParams.set('sub_id', decisionId);
    url.searchParams.set('u', destination);
    return url.toString();
  },
};
