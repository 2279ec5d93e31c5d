import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HELP, helpText } from './help';
import { VERB_OPTIONS, VERBS } from './verbs';

describe('the CLI explains itself', () => {
  it('has help for every verb, and names the verbs when one is unknown', () => {
    for (const verb of Object.keys(VERBS)) expect(HELP[verb], verb).toBeDefined();
    expect(helpText()).toContain('experiment');
    expect(() => helpText('nope')).toThrow(/unknown verb "nope"; the verbs: import, stats/);
  });

  it("explains every option each verb's parser reads", () => {
    for (const [verb, options] of Object.entries(VERB_OPTIONS)) {
      const flags = HELP[verb].options.map(([f]) => f).join(' ');
      for (const key of Object.keys(options)) expect(flags, `${verb} --${key}`).toMatch(new RegExp(`--${key}\\b`));
    }
  });

  it('`studio help` and `studio <verb> --help` exit 0 with the text', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8' });
    const all = run('help');
    expect(all.status).toBe(0);
    for (const verb of Object.keys(VERBS)) expect(all.stdout).toContain(`  ${verb}`);
    const one = run('train', '--help');
    expect(one.status).toBe(0);
    expect(one.stdout).toContain('--config FILE');
    expect(run('nope').status).toBe(2);
  }, 60_000);
});
