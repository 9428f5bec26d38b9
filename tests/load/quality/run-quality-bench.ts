import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { resolveApiKey } from '../api-key.js';
import type { BenchOptions } from '../bench-options.js';
import { checkStack, cleanUpNamespaces, type StackTarget } from '../memory-api.js';
import { targetTable } from '../report.js';
import { newRunId } from '../run-id.js';
import { REPO_ROOT } from '../ts-process.js';
import { BM25_B, BM25_K1, Bm25Ranking } from './bm25-ranking.js';
import { type LocomoConversation, readLocomo } from './locomo-dataset.js';
import { describeCleaning, qualityTable } from './quality-report.js';
import { qualityTargets } from './quality-targets.js';
import { recallAtKChartSvg } from './recall-at-k-chart.js';
import {
  DEPTH,
  meanByCategory,
  type RecallScores,
  type ScoredQuestion,
  scoreQuestion,
} from './recall-metrics.js';
import { type RankingDescription, recallQuestions } from './recall-questions.js';
import { writeConversation } from './write-conversation.js';

type Log = (message: string) => void;

/**
 * `pnpm bench --quality`: what recall returns, measured on LoCoMo. Each conversation is written into a
 * namespace of this run, one memory per turn; every question with evidence is recalled (top_k 25) and
 * its results are scored against the evidence turns, beside a BM25 baseline computed here on the very
 * same turns and questions. Prints a markdown report; 1 with --check when a target is missed.
 */
export async function runQualityBench(options: BenchOptions, log: Log): Promise<number> {
  const started = Date.now();
  // The data first: a file that is not there fails before the stack is touched.
  const { conversations, cleaning } = await readLocomo(options.locomo);
  const { apiKey, source } = await resolveApiKey();
  const target = { baseUrl: options.baseUrl, apiKey };
  log(`stack ${target.baseUrl}, key from ${source}`);
  await checkStack(target.baseUrl, apiKey);

  const runId = newRunId();
  const namespaces = new Map(conversations.map((c) => [c, `quality-${runId}-${c.sampleId}`]));
  const notes: string[] = [];
  let service: Awaited<ReturnType<typeof measureService>>;
  try {
    service = await measureService(target, namespaces, runId, options.connections, log);
  } finally {
    notes.push(
      ...(await cleanUpNamespaces(
        { ...target, keySource: source },
        [...namespaces.values()],
        options.keep,
        log,
      )),
    );
  }
  const rankings = [
    {
      name: `service (${service.description.modelVersion ?? 'no model version given'})`,
      means: meanByCategory(service.scored),
    },
    {
      name: `BM25 (k1 ${BM25_K1}, b ${BM25_B}, stop words, Porter)`,
      means: meanByCategory(measureBm25(conversations)),
    },
  ];
  const overall = rankings.map(({ name, means }) => ({
    name,
    mean: means.find((m) => m.category === 'overall')?.mean as RecallScores,
  }));
  const targets = qualityTargets(overall[0]?.mean as RecallScores);

  if (options.chart) {
    const title = `Evidence recall@k on LoCoMo, service and BM25 (${new Date().toISOString().slice(0, 10)})`;
    await writeFile(options.chart, await recallAtKChartSvg(overall, title));
    log(`chart written to ${options.chart}`);
  }

  const turns = conversations.reduce((sum, c) => sum + c.turns.length, 0);
  const questions = service.scored.length;
  console.log(
    [
      `## Recall quality on LoCoMo ${new Date().toISOString()}`,
      '',
      `Stack ${target.baseUrl}; data ${relative(REPO_ROOT, options.locomo)}: ${conversations.length} conversations, ` +
        `${turns} turns (one memory each), ${questions} questions recalled with top_k ${DEPTH}; ` +
        `run took ${((Date.now() - started) / 60_000).toFixed(1)} min.`,
      `The service ranked with model_version ${service.description.modelVersion ?? '(none given)'}, ` +
        `ranking ${JSON.stringify(service.description.ranking)}.`,
      '',
      "Evidence recall@k: the share of a question's evidence turns among the first k results, averaged over " +
        'questions; hit@5: any evidence turn in the first 5; MRR@25: 1 / the rank of the first evidence turn ' +
        '(0 past 25). Recall and hit in percent.',
      '',
      qualityTable(rankings),
      '',
      targetTable(targets),
      '',
      ...[describeCleaning(cleaning), ...notes].map((n) => `- ${n}`),
    ].join('\n'),
  );
  return options.check && targets.some((t) => t.met === false) ? 1 : 0;
}

/** Write every conversation into its namespace, then recall all their questions and score the answers. */
async function measureService(
  target: StackTarget,
  namespaces: ReadonlyMap<LocomoConversation, string>,
  runId: string,
  concurrency: number,
  log: Log,
): Promise<{ scored: ScoredQuestion[]; description: RankingDescription }> {
  for (const [{ sampleId, turns }, namespace] of namespaces) {
    await writeConversation(target, namespace, `${runId}-${sampleId}`, turns);
    log(`wrote ${turns.length} turns of ${sampleId} into ${namespace}`);
  }
  const asked = [...namespaces].flatMap(([c, namespace]) => c.questions.map((q) => ({ namespace, q })));
  const { ranked, description } = await recallQuestions(
    target,
    asked.map(({ namespace, q }) => ({ namespace, question: q.question })),
    concurrency,
    (done) => log(`recalled ${done}/${asked.length} questions`),
  );
  const scored = asked.map(({ q }, i) => ({
    category: q.category,
    scores: scoreQuestion(q.evidence, ranked[i] ?? []),
  }));
  return { scored, description };
}

/** The same questions ranked by BM25 over each conversation's turns, in process. */
function measureBm25(conversations: readonly LocomoConversation[]): ScoredQuestion[] {
  return conversations.flatMap(({ turns, questions }) => {
    const ranking = new Bm25Ranking(turns.map((t) => ({ id: t.diaId, text: t.text })));
    return questions.map((q) => ({
      category: q.category,
      scores: scoreQuestion(q.evidence, ranking.rank(q.question, DEPTH)),
    }));
  });
}
