// The records of `./run bench` (build/bench/results.jsonl), as JSON objects rather than text:
//   node tools/bench/record.mjs tag RUN ROUND    each JSON line of stdin with "run" and "round" first
//                                                (other lines, a tool's notes, pass through as they are)
//   node tools/bench/record.mjs machine ROUNDS [TORCH]   the run's first record: the machine and the
//                                                tools (TORCH: PyTorch's version, as run found it)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';

const [what, ...args] = process.argv.slice(2);

function versionOf(command, args, line = 0) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[line].trim();
  } catch {
    return '';
  }
}

if (what === 'tag') {
  const [run, round = '0'] = args;
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    let record;
    try {
      record = line.startsWith('{') ? JSON.parse(line) : undefined;
    } catch {
      record = undefined;
    }
    console.log(record && typeof record === 'object' ? JSON.stringify({ run, round: Number(round), ...record }) : line);
  }
} else if (what === 'machine') {
  const model = (readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? cpus()[0]?.model ?? '')
    .trim().replace(/\s+/g, ' ');
  console.log(JSON.stringify({
    run: 'machine',
    machine: model,
    cores: Number(versionOf('nproc', [])) || cpus().length,
    date: new Date().toISOString().slice(0, 10),
    cxx: versionOf('g++', ['--version']),
    node: process.version,
    torch: args[1] ?? '',
    rounds: Number(args[0]),
  }));
} else {
  console.error('usage: node tools/bench/record.mjs tag RUN ROUND | machine ROUNDS [TORCH]');
  process.exit(2);
}
