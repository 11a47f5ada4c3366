import { EMBEDDERS, EmbedderServer, startEmbedder } from '../../bench/embedders/server';

/**
 * The benchmarks' offline embedders (bench/embedders: GloVe + SIF, Universal Sentence Encoder
 * lite) answer OpenAI's /embeddings wire format with their dimensions, and their vectors carry
 * meaning: the real models, no mock — a paraphrase is nearer than an unrelated sentence.
 */
const DIMS = { 'glove-sif': 100, 'use-lite': 512 } as const;

const cosine = (a: number[], b: number[]): number => {
  let d = 0;
  let x = 0;
  let y = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    x += a[i] * a[i];
    y += b[i] * b[i];
  }
  return d / Math.sqrt(x * y);
};

describe.each(EMBEDDERS.map((name) => [name]))('%s embedder server', (name) => {
  let e: EmbedderServer;
  beforeAll(async () => {
    e = await startEmbedder(name, { cache: false });
  }, 120_000);
  afterAll(async () => {
    await e?.close();
  });

  const post = async (body: unknown) => {
    const res = await fetch(`${e.url}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('answers the OpenAI wire format with the model and its dimensions', async () => {
    const { status, body } = await post({ model: e.model, input: ['first text', 'second text', ''] });
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'list', model: e.model, usage: { total_tokens: expect.any(Number) } });
    expect(body.data.map((d: { index: number; object: string }) => [d.index, d.object])).toEqual([
      [0, 'embedding'],
      [1, 'embedding'],
      [2, 'embedding'],
    ]);
    for (const d of body.data as Array<{ embedding: number[] }>) {
      expect(d.embedding).toHaveLength(DIMS[name]);
      expect(d.embedding.every((x) => Number.isFinite(x))).toBe(true);
      expect(Math.hypot(...d.embedding)).toBeCloseTo(1, 3);
    }
    // a single string is one input; a malformed body is a 400 in OpenAI's error shape
    const one = await post({ model: e.model, input: 'just one' });
    expect(one.body.data).toHaveLength(1);
    expect((await post({ model: e.model, input: [1, 2] })).status).toBe(400);
  });

  it('puts a paraphrase nearer than an unrelated sentence', async () => {
    const triples = [
      ['How do I restart the SSH server?', 'Restarting the OpenSSH daemon service', 'The cat sat on the mat.'],
      [
        'The weather today is sunny and warm.',
        'It is a bright, hot day outside.',
        'Configure the network interface with a static IP address.',
      ],
      [
        'Which port does the web server listen on?',
        'The HTTP daemon accepts connections on port 80.',
        'She baked a chocolate cake for her birthday.',
      ],
    ];
    const { body } = await post({ model: e.model, input: triples.flat() });
    const v = (body.data as Array<{ embedding: number[] }>).map((d) => d.embedding);
    for (let t = 0; t < triples.length; t++) {
      const [a, b, c] = [v[3 * t], v[3 * t + 1], v[3 * t + 2]];
      expect({ triple: t, paraphraseNearer: cosine(a, b) > cosine(a, c) + 0.05 }).toEqual({ triple: t, paraphraseNearer: true });
    }
  });
});
