// A TCP proxy between the service and Redis or Postgres that misbehaves on demand. There is no
// toxiproxy or tc netem here, so faults are injected in the byte stream:
// - delay: every chunk, both ways, arrives this many ms late (a slow server or network);
// - blackhole: nothing gets through, connections stay open (a partition); bytes held back are
//   delivered when healed, as TCP retransmission would;
// and bytes never overtake each other across a change of mode (a TCP stream stays in order);
// - refuse: new connections are closed at once (a server that is down);
// - cut(): every open connection is reset (a failover or a restart).
import net from 'node:net';

export type ProxyMode = { kind: 'pass' } | { kind: 'delay'; ms: number } | { kind: 'blackhole' } | { kind: 'refuse' };

export class FaultProxy {
  private mode: ProxyMode = { kind: 'pass' };
  private readonly server: net.Server;
  private readonly pipes = new Set<{ client: net.Socket; upstream: net.Socket; heal: () => void }>();

  private constructor(private readonly target: { host: string; port: number }) {
    this.server = net.createServer((client) => this.accept(client));
  }

  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const proxy = new FaultProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  set(mode: ProxyMode) {
    const wasBlackhole = this.mode.kind === 'blackhole';
    this.mode = mode;
    if (wasBlackhole && mode.kind !== 'blackhole') for (const p of this.pipes) p.heal();
  }

  cut() {
    for (const p of this.pipes) {
      p.client.resetAndDestroy();
      p.upstream.destroy();
    }
    this.pipes.clear();
  }

  async close() {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket) {
    if (this.mode.kind === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    // Each direction is one ordered byte stream, as TCP is: a chunk is delivered at its due time
    // and never before the chunk ahead of it, so a mode change (delay, then pass) holds back the
    // newer bytes instead of letting them overtake the delayed ones.
    const direction = (to: net.Socket) => {
      const queue: { chunk: Buffer; due: number }[] = [];
      let timer: NodeJS.Timeout | undefined;
      const drain = () => {
        timer = undefined;
        if (this.mode.kind === 'blackhole') return;
        const now = Date.now();
        while (queue.length > 0 && queue[0].due <= now) {
          const { chunk } = queue.shift() as { chunk: Buffer };
          if (!to.destroyed) to.write(chunk);
        }
        if (queue.length > 0) timer = setTimeout(drain, queue[0].due - now);
      };
      const push = (chunk: Buffer) => {
        const mode = this.mode;
        queue.push({ chunk, due: Date.now() + (mode.kind === 'delay' ? mode.ms : 0) });
        if (timer === undefined) drain();
      };
      const heal = () => {
        if (timer !== undefined) clearTimeout(timer);
        drain();
      };
      return { push, heal };
    };
    const toUpstream = direction(upstream);
    const toClient = direction(client);
    const pipe = {
      client,
      upstream,
      heal: () => {
        toUpstream.heal();
        toClient.heal();
      },
    };
    this.pipes.add(pipe);
    client.on('data', toUpstream.push);
    upstream.on('data', toClient.push);
    const end = () => {
      this.pipes.delete(pipe);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  }
}
