import { describe, expect, it } from 'vitest';
import { startMessage } from './start-messages.ts';

const streamOf = (isTTY: boolean) => {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream };
};

describe('startMessage', () => {
  it('writes the text as it is on a terminal, one JSON log line otherwise', () => {
    const terminal = streamOf(true);
    startMessage('\n  The first administrator account was created.\n  Log in at x\n', { stream: terminal.stream });
    expect(terminal.written).toEqual(['\n  The first administrator account was created.\n  Log in at x\n\n']);
    const log = streamOf(false);
    startMessage('\n  The first administrator account was created.\n  Log in at x\n', { level: 'warn', fields: { event: 'first-administrator' }, stream: log.stream });
    expect(log.written).toHaveLength(1);
    expect(JSON.parse(log.written[0])).toMatchObject({ level: 40, event: 'first-administrator', msg: 'The first administrator account was created. Log in at x', pid: process.pid });
  });
});
