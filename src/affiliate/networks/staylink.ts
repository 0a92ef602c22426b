// StayLink-style parameter networks (the shape hotel programmes such as Booking's use): the
// link goes straight to the merchant's page with the partner id and a label appended.
import type { NetworkAdapter } from './network-adapter.js';

export const staylink: NetworkAdapter = {
  id: 'staylink',
  validate: () => [],
  buildUrl(network, { decisionId, destination }) {
    const url = new URL(destination);
    url.searchParams.set('aid', network.partnerMarker);
    url.searchParams.set('label', `sidenote-${decisionId}`);
    return url.toString();
  },
};
