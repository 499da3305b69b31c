#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so `npx pss` works from a fresh clone without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
