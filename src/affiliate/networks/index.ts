import type { NetworkAdapter } from './network-adapter.js';
import { staylink } from './staylink.js';
import { template } from './template.js';
import { tripnet } from './tripnet.js';

export const NETWORK_ADAPTERS: ReadonlyMap<string, NetworkAdapter> = new Map([tripnet, staylink, template].map((a) => [a.id, a]));
export type { NetworkAdapter } from './network-adapter.js';
