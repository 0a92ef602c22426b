// Loaded into the service by `npm run bench -- --gc` (`node --import ./bench/gc-probe.mjs`): what
// the process allocates and collects between two SIGUSR2 signals, which the benchmark sends at
// the start and the end of each timed run. Each signal ends a window and starts the next; the
// window's totals are appended to `${GC_PROBE_OUT}-<pid>.jsonl` as one JSON line. Allocation is read from V8's own
// GC records (v8.GCProfiler): the heap in use before each collection less what the collection
// before it left, summed, so it counts every byte allocated in the window that a collection saw.
import { appendFileSync } from 'node:fs';
import v8 from 'node:v8';

const out = process.env.GC_PROBE_OUT ? `${process.env.GC_PROBE_OUT}-${process.pid}.jsonl` : undefined;
let profiler = new v8.GCProfiler();
profiler.start();
let startedAt = performance.now();
let usedAtStart = v8.getHeapStatistics().used_heap_size;

process.on('SIGUSR2', () => {
  const { statistics } = profiler.stop();
  const usedAtEnd = v8.getHeapStatistics().used_heap_size;
  let allocated = 0;
  let previous = usedAtStart;
  let pauseUs = 0;
  const byType = {};
  for (const gc of statistics) {
    allocated += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - previous);
    previous = gc.afterGC.heapStatistics.usedHeapSize;
    pauseUs += gc.cost;
    byType[gc.gcType] = (byType[gc.gcType] ?? 0) + 1;
  }
  allocated += Math.max(0, usedAtEnd - previous);
  const window = { ms: Math.round(performance.now() - startedAt), allocatedBytes: allocated, collections: byType, pauseMs: Math.round(pauseUs / 1000) };
  if (out) appendFileSync(out, `${JSON.stringify(window)}\n`);
  profiler = new v8.GCProfiler();
  profiler.start();
  startedAt = performance.now();
  usedAtStart = usedAtEnd;
});

// With GC_PROBE_SITES set, each window also samples where the process allocated (V8's sampling
// heap profiler, counting objects that collections already freed) and appends the top sites,
// by bytes, to `${GC_PROBE_OUT}-<pid>-sites.txt`.
if (process.env.GC_PROBE_SITES && out) {
  const { Session } = await import('node:inspector');
  const session = new Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  const sample = () =>
    post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await post('HeapProfiler.enable');
  await sample();
  process.on('SIGUSR2', async () => {
    const { profile } = await post('HeapProfiler.stopSampling');
    const sites = new Map();
    const walk = (node, stack) => {
      const frame = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(src|dist|node_modules)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
      const here = [...stack, frame];
      if (node.selfSize > 0) {
        const key = here.slice(-3).join(' < ');
        sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
      }
      for (const child of node.children) walk(child, here);
    };
    walk(profile.head, []);
    const total = [...sites.values()].reduce((a, b) => a + b, 0);
    const top = [...sites].sort((a, b) => b[1] - a[1]).slice(0, 40);
    appendFileSync(
      out.replace(/\.jsonl$/, '-sites.txt'),
      `--- window: ${(total / 1024 / 1024).toFixed(1)} MB sampled\n${top.map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`).join('\n')}\n`,
    );
    await sample();
  });
}
