// A TCP proxy between the service and Redis or Postgres that misbehaves on demand. There is no
// toxiproxy or tc netem here, so faults are injected in the byte stream:
// - delay: every chunk, both ways, arrives this many ms late (a slow server or network);
// - blackhole: nothing gets through, connections stay open (a partition); bytes held back are
//   delivered when healed, as TCP retransmission would;
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
    const held: Array<() => void> = [];
    const pipe = {
      client,
      upstream,
      heal: () => held.splice(0).forEach((deliver) => deliver()),
    };
    this.pipes.add(pipe);
    const forward = (to: net.Socket) => (chunk: Buffer) => {
      const deliver = () => {
        if (!to.destroyed) to.write(chunk);
      };
      const mode = this.mode;
      if (mode.kind === 'blackhole') held.push(deliver);
      else if (mode.kind === 'delay') setTimeout(deliver, mode.ms);
      else deliver();
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const end = () => {
      this.pipes.delete(pipe);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  }
}
