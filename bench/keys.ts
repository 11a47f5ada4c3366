import { json, type BenchEnv } from './lib/env';
import { load, LoadResult, round } from './lib/load';

export interface KeyVsJwtBench {
  /** Per round: the JWT's and the key's median (ms). */
  rounds: Array<{ jwtMs: number; keyMs: number }>;
  jwt: { medianMs: number };
  key: { medianMs: number };
  /** key median / JWT median, over the medians of the rounds. */
  ratio: number;
  last: { jwt: LoadResult; key: LoadResult };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Issue 38's target: a key-authenticated `GET /api/projects` costs within 10 % of a JWT-authenticated
 * one. The same caller (the seeded reader, same rows) with its access token and with an unscoped key
 * of its own, in alternating rounds so drift on a shared machine hits both alike. The server must
 * run with KEY_RATE_LIMIT_PER_MINUTE high enough not to refuse the load (startBenchEnv sets the
 * maximum, 1,000,000: every request is counted, as in production).
 */
export async function benchKeyVsJwt(env: BenchEnv, reader: { token: string }, rounds = 4): Promise<KeyVsJwtBench> {
  const created = await fetch(`${env.baseUrl}/api/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${reader.token}` },
    body: JSON.stringify({ name: 'bench' }),
  });
  if (created.status !== 201) throw new Error(`creating the key failed: ${created.status} ${await created.text()}`);
  const { secret } = (await created.json()) as { secret: string };
  const run = (name: string, token: string) =>
    load(name, {
      baseUrl: env.baseUrl,
      request: { path: '/api/projects', headers: { authorization: `Bearer ${token}` } },
      connections: 4,
      durationMs: 3000,
      warmupMs: 300,
    });
  const out: KeyVsJwtBench['rounds'] = [];
  let last: KeyVsJwtBench['last'] | null = null;
  for (let i = 0; i < rounds; i++) {
    // alternate which goes first, so neither always follows the other
    const first = i % 2 === 0 ? 'jwt' : 'key';
    const a = await run(`GET /api/projects (${first})`, first === 'jwt' ? reader.token : secret);
    const b = await run(`GET /api/projects (${first === 'jwt' ? 'key' : 'jwt'})`, first === 'jwt' ? secret : reader.token);
    const [jwt, key] = first === 'jwt' ? [a, b] : [b, a];
    out.push({ jwtMs: jwt.medianMs, keyMs: key.medianMs });
    last = { jwt, key };
  }
  const jwtMs = median(out.map((r) => r.jwtMs));
  const keyMs = median(out.map((r) => r.keyMs));
  return { rounds: out, jwt: { medianMs: jwtMs }, key: { medianMs: keyMs }, ratio: round(keyMs / jwtMs, 3), last: last! };
}

/**
 * A small world for the key-vs-JWT comparison without the org seed (the `auth` section): a member
 * of a department granted `projects` projects (people do not create projects; an admin does and
 * grants them), signed in. Returns the member's access token.
 */
export async function keyVsJwtWorld(env: BenchEnv, projects = 20): Promise<{ token: string }> {
  const root = ((await json(env, 'POST', '/api/auth/login', null, env.superadmin)) as { accessToken: string }).accessToken;
  const { department } = (await json(env, 'POST', '/api/departments', root, { name: 'Bench keys' })) as { department: { id: string } };
  const member = { email: 'keys-member@bench.example.com', password: 'bench-member-password' };
  const { user } = (await json(env, 'POST', '/api/users', root, {
    ...member,
    name: 'Bench Member',
    platformRole: 'none',
    orgPosition: 'member',
    departmentId: department.id,
  })) as { user: { id: string } };
  for (let i = 0; i < projects; i++) {
    const { project } = (await json(env, 'POST', '/api/projects', root, { name: `Keys bench ${i}` })) as { project: { id: string } };
    await json(env, 'POST', `/api/projects/${project.id}/grants`, root, { targetType: 'user', targetId: user.id, tier: 'edit' });
  }
  const { accessToken } = (await json(env, 'POST', '/api/auth/login', null, member)) as { accessToken: string };
  return { token: accessToken };
}
