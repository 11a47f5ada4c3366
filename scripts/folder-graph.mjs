// The house drawn from the imports: each top-level folder (and loose file) of src/ is a room, and
// an arrow runs from a room to every room it imports (type-only imports included).
//
//   node scripts/folder-graph.mjs           rooms, arrows, arrows running back up (against the plan in
//                                           scripts/layers.cjs) and folder-level import cycles
//   node scripts/folder-graph.mjs --check   the same, and exits 1 when a folder-level cycle exists
//   --json                                  the measures as JSON
//
// It reads `src` below the current directory (test/unit/architecture.test.ts runs it in a fixture).
// dependency-cruiser's no-circular rule sees cycles between files only: a loop through several
// folders, each import of it acyclic at file level, is found here. Part of `npm run lint`.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { LAYERS, SUBROOMS } = createRequire(import.meta.url)('./layers.cjs');
const subrooms = Object.entries(SUBROOMS).map(([name, p]) => [name, new RegExp(p)]);
const args = new Set(process.argv.slice(2));

/** The folder graph as dependency-cruiser collapses it: room → rooms it imports. */
function folderGraph() {
  const bin = path.join(ROOT, 'node_modules/.bin/depcruise');
  const cli = [
    'src',
    '--config',
    path.join(ROOT, '.dependency-cruiser.cjs'),
    '--collapse',
    `^(${Object.values(SUBROOMS).join('|')}|src/[^/]+)`,
    '--output-type',
    'json',
  ];
  let out;
  try {
    out = execFileSync(bin, cli, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    // rule violations make depcruise exit non-zero; the graph is printed all the same
    if (!e.stdout) throw e;
    out = e.stdout;
  }
  // a file of a sub-room (the generated wire types) is in it, not in the folder around it
  const room = (p) => subrooms.find(([, re]) => re.test(p))?.[0] ?? /^src\/([^/]+)/.exec(p)?.[1];
  const graph = new Map();
  for (const m of JSON.parse(out).modules) {
    const from = room(m.source);
    if (!from) continue;
    const to = graph.get(from) ?? new Set();
    for (const d of m.dependencies) {
      const r = room(d.resolved);
      if (r && r !== from) to.add(r);
    }
    graph.set(from, to);
  }
  for (const to of [...graph.values()]) for (const r of to) if (!graph.has(r)) graph.set(r, new Set());
  return graph;
}

/** Strongly connected components of more than one room (Tarjan): each is a folder-level cycle. */
function cycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

const graph = folderGraph();
const floorOf = new Map(LAYERS.flatMap((l, i) => l.rooms.map((r) => [r, i])));
const arrows = [...graph].flatMap(([from, to]) => [...to].map((t) => [from, t]));
const backUp = arrows.filter(([a, b]) => floorOf.has(a) && floorOf.has(b) && floorOf.get(a) > floorOf.get(b));
const loops = cycles(graph);
const mutual = arrows.filter(([a, b]) => a < b && graph.get(b).has(a));
const unplaced = [...graph.keys()].filter((r) => !floorOf.has(r)).sort();
const measures = { rooms: graph.size, arrows: arrows.length, backUp, cycles: loops, mutual, unplaced };

if (args.has('--json')) console.log(JSON.stringify(measures, null, 2));
else {
  console.log(`${graph.size} rooms, ${arrows.length} arrows, ${backUp.length} running back up, ${loops.length} folder-level cycles`);
  for (const [a, b] of backUp) console.log(`  back up: ${a} → ${b}`);
  for (const [a, b] of mutual) console.log(`  both ways: ${a} ↔ ${b}`);
  for (const c of loops) console.log(`error no-folder-cycle: src/{${c.join(',')}} import each other in a loop (${c.length} folders)`);
  if (unplaced.length) console.log(`  not on the plan (scripts/layers.cjs): ${unplaced.join(', ')}`);
}
if (args.has('--check') && loops.length) process.exit(1);
