import { createParser } from 'eventsource-parser';
import { startOpenAiStub } from '../test/support/openai-stub';
import { BenchEnv } from './lib/env';
import { percentiles, round } from './lib/load';
import { benchResume, type ResumeBench } from './resume';

export interface StreamsBench {
  streams: number;
  completed: number;
  deltasExpected: number;
  deltasLost: number;
  answersExact: number;
  durationMs: number;
  firstTextMs: { median: number; p95: number; p99: number };
  rssBeforeMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
  addedMb: number;
  /** Dropped streams resumed with Last-Event-ID (bench/resume.ts). */
  resume: ResumeBench;
}

async function json(env: BenchEnv, method: string, path: string, token: string | null, body?: unknown): Promise<any> {
  const r = await fetch(env.baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path} → ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** One SSE chat request; returns the text deltas and when the first one arrived. */
async function stream(
  env: BenchEnv,
  token: string,
  projectId: string,
  i: number,
): Promise<{ ok: boolean; deltas: string[]; firstTextMs: number }> {
  const t0 = performance.now();
  const res = await fetch(`${env.baseUrl}/api/chat/projects/${projectId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ message: `Concurrent question number ${i}` }),
  });
  const deltas: string[] = [];
  let firstTextMs = NaN;
  let done = false;
  const parser = createParser({
    onEvent: (ev) => {
      if (ev.event === 'text') {
        if (Number.isNaN(firstTextMs)) firstTextMs = performance.now() - t0;
        deltas.push(JSON.parse(ev.data).delta);
      } else if (ev.event === 'done') done = true;
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  return { ok: res.ok && done, deltas, firstTextMs };
}

/** 200 concurrent chat streams against a local upstream: all complete, no delta lost, memory added. */
export async function benchStreams(env: BenchEnv, count = 200): Promise<StreamsBench> {
  const deltas = Array.from({ length: 60 }, (_, k) => `token${k} `);
  const stub = await startOpenAiStub({ deltas, ttftMs: 50, deltaDelayMs: 20 });
  try {
    const login = await json(env, 'POST', '/api/auth/login', null, env.superadmin);
    const token = login.accessToken as string;
    await json(env, 'POST', '/api/providers', token, {
      name: 'Bench stub',
      slug: 'bench-stub',
      type: 'custom',
      baseUrl: stub.url,
      apiKey: 'sk-bench-0000',
      models: ['bench-model'],
      isDefault: true,
    });
    const project = (await json(env, 'POST', '/api/projects', token, { name: 'Streams', isPrivate: false })).project;
    // warm-up, then the idle baseline
    await Promise.all(Array.from({ length: 5 }, (_, i) => stream(env, token, project.id, i)));
    await new Promise((r) => setTimeout(r, 1000));
    const rssBeforeMb = env.server.rssMb();
    let rssPeakMb = rssBeforeMb;
    const sampler = setInterval(() => {
      rssPeakMb = Math.max(rssPeakMb, env.server.rssMb());
    }, 50);
    // a person may hold LIVE_STREAMS_PER_USER (20) open streams: the 200 are asked by as many
    // members of the organisation as that takes, as 200 people at once would
    const askers: string[] = [];
    for (let u = 0; u < Math.ceil(count / 20); u++) {
      const person = { email: `streams-${u}@bench.test`, password: 'bench-password-0000' };
      await json(env, 'POST', '/api/users', token, { ...person, name: `Streams ${u}`, platformRole: 'none', orgPosition: 'member' });
      askers.push((await json(env, 'POST', '/api/auth/login', null, person)).accessToken as string);
    }
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: count }, (_, i) => stream(env, askers[i % askers.length], project.id, i)));
    const durationMs = performance.now() - t0;
    clearInterval(sampler);
    await new Promise((r) => setTimeout(r, 1000));
    const rssAfterMb = env.server.rssMb();
    const expected = deltas.join('');
    // the same answer (60 deltas, 20 ms apart): dropped after three, resumed 150 ms later
    const resume = await benchResume(env, { token, projectId: project.id, expected });
    const completed = results.filter((r) => r.ok).length;
    const received = results.reduce((n, r) => n + r.deltas.length, 0);
    return {
      streams: count,
      completed,
      deltasExpected: count * deltas.length,
      deltasLost: count * deltas.length - received,
      answersExact: results.filter((r) => r.deltas.join('') === expected).length,
      durationMs: Math.round(durationMs),
      firstTextMs: (() => {
        const p = percentiles(results.map((r) => r.firstTextMs).filter((x) => !Number.isNaN(x)));
        return { median: round(p.median), p95: round(p.p95), p99: round(p.p99) };
      })(),
      rssBeforeMb,
      rssPeakMb,
      rssAfterMb,
      addedMb: rssPeakMb - rssBeforeMb,
      resume,
    };
  } finally {
    await stub.close();
  }
}
