/**
 * A vitest reporter for `npm test` (issue 49): each failed test's name and error the moment it
 * fails, so that a long run shows what went wrong while the rest still runs (the default reporter
 * gives the details only at the end).
 */
import type { Reporter, TestCase } from 'vitest/node';

export default class FailuresAsTheyHappen implements Reporter {
  onTestCaseResult(testCase: TestCase): void {
    const result = testCase.result();
    if (result.state !== 'failed') return;
    // Vitest's own frames say nothing about the failure.
    const errors = (result.errors ?? [])
      .map((error) => (error.stack ?? error.message).split('\n').filter((line) => !/node_modules\/vitest\/|new Promise \(<anonymous>\)/.test(line)).join('\n'))
      .join('\n');
    process.stdout.write(`\nFAILED ${testCase.module.relativeModuleId} > ${testCase.fullName}\n${errors}\n\n`);
  }
}
