#!/usr/bin/env node
import { main } from './program.js';

// process.exitCode rather than process.exit(): stdout is flushed before the process ends.
process.exitCode = await main(process.argv);
