import { threadId } from 'node:worker_threads';
import { ScoreResult, scoreRows, ScoreTask } from './vector-scoring';

/** The vector scorer's task (piscina calls the default export in a worker thread). */
export default function scoreTask(task: ScoreTask): ScoreResult {
  return scoreRows(task, threadId);
}
