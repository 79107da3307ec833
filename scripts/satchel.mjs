#!/usr/bin/env node
// The `satchel` command: runs the TypeScript CLI through tsx, with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
