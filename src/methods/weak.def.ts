import { z } from 'zod';
import type { MethodDef } from './def';

export const wslSchema = z.object({ name: z.literal('wsl') }).strict();

export const weightedWslSchema = z.object({ name: z.literal('weighted-wsl'), gamma: z.number().min(0).max(1).default(0.5) }).strict();

export const partialWslSchema = z.object({ name: z.literal('partial-wsl') }).strict();

export const weakDef: MethodDef = {
  losses: [wslSchema, weightedWslSchema, partialWslSchema],
  options: {
    'method.gamma': { label: 'weight of the weak sentences', help: 'Weighted WSL: the weak sentences’ loss is multiplied by this' },
  },
  presets: [
    {
      id: 'wsl',
      when: 'The plain baseline: the weak labels as if they were gold. Good when they are precise and nearly complete.',
      title: 'WSL: strong and weak labels, the weak as if gold',
      method: { name: 'wsl' },
    },
    {
      id: 'weighted-wsl',
      when: 'Some gold and many weak sentences, the weak ones trusted half as much.',
      title: 'Weighted WSL: weak loss times \u03b3 = 0.5',
      method: { name: 'weighted-wsl' },
    },
    {
      id: 'partial-wsl',
      when: 'Weak labels that miss many entities: their O tokens are left out of the loss.',
      title: 'Partial WSL: weak O tokens left out',
      method: { name: 'partial-wsl' },
    },
  ],
};
