#!/usr/bin/python3
"""`attn align` over a large file on a Dask cluster: the file cut into partitions of lines, each
aligned by `attn align` on a worker, the links written in the input's order.

  # a cluster already running (dask-scheduler and dask-worker on the machines; the input, the
  # attn binary and the models at the same paths on every machine, e.g. a shared file system):
  /usr/bin/python3 tools/cluster/align.py --scheduler tcp://HOST:8786 -i pairs.txt -o links.txt -- --pair en-fr
  # or a local cluster of N worker processes on this machine:
  /usr/bin/python3 tools/cluster/align.py --local-workers 4 -i pairs.txt -o links.txt -- --pair en-fr

Everything after `--` is passed to `attn align` as it is (method, pair, models, --threads). Each
partition (--partition-lines lines, default 20,000) is one task; a task that fails (a worker lost,
attn exiting with an error, a line count that does not match) is submitted again, up to --retries
times, and each failure is reported on stderr with the partition's lines. The output is written to
OUTPUT only when every partition has succeeded (a temporary file beside it is renamed), so a failed
run leaves no half-written file; the exit status is then 1 and the failed partitions are listed.
At most --in-flight partitions (default four per worker) are outstanding, so memory stays bounded
for a file of tens of millions of pairs. Needs Debian's python3-distributed.
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def partitions(path, lines_per_partition):
    """(index, first line, line count, byte offset, byte length) of each partition of the file's lines."""
    index = first = count = start = offset = 0
    with open(path, "rb") as stream:
        for line in stream:
            offset += len(line)
            count += 1
            if count == lines_per_partition:
                yield index, first, count, start, offset - start
                index, first, count, start = index + 1, first + count, 0, offset
    if count:
        yield index, first, count, start, offset - start


def align_partition(attn, path, start, length, align_args):
    """`attn align` over one partition; its output lines (as bytes). Runs on a worker."""
    with open(path, "rb") as stream:
        stream.seek(start)
        data = stream.read(length)
    if not data.endswith(b"\n"):
        data += b"\n"
    run = subprocess.run([attn, "align", *align_args], input=data, capture_output=True)
    if run.returncode != 0:
        raise RuntimeError(f"attn align exited with {run.returncode}: {run.stderr.decode(errors='replace').strip()}")
    expected, got = data.count(b"\n"), run.stdout.count(b"\n")
    if got != expected:
        raise RuntimeError(f"attn align wrote {got} lines for {expected}")
    return run.stdout


def run(client, args, report=print):
    """Aligns args.input into args.output through `client`; the list of failed partitions."""
    parts = list(partitions(args.input, args.partition_lines))
    in_flight = args.in_flight or 4 * max(1, len(client.scheduler_info()["workers"]))
    futures, attempts, done, failed = {}, {}, {}, []
    waiting, next_to_write = list(reversed(parts)), 0
    temporary = Path(f"{args.output}.part-{os.getpid()}")

    def submit(part):
        index, _, _, start, length = part
        attempts[index] = attempts.get(index, 0) + 1
        future = client.submit(align_partition, args.attn, str(Path(args.input).resolve()), start, length,
                               args.align_args, key=f"attn-align-{index}-{attempts[index]}", pure=False)
        futures[future] = part
        return future

    from dask.distributed import as_completed
    with open(temporary, "wb") as out:
        while waiting and len(futures) < in_flight:
            submit(waiting.pop())
        pending = as_completed(list(futures))
        for future in pending:
            part = futures.pop(future)
            index, first, count, _, _ = part
            lines = f"partition {index} (lines {first + 1}-{first + count})"
            if future.status == "error":
                error = future.exception()
                if attempts[index] <= args.retries:
                    report(f"{lines} failed ({error}); retry {attempts[index]} of {args.retries}", file=sys.stderr)
                    pending.add(submit(part))
                else:
                    report(f"{lines} failed ({error}) after {attempts[index]} tries", file=sys.stderr)
                    failed.append(index)
            else:
                done[index] = future.result()
            future.release()
            while next_to_write in done:  # in order: what is ready and next goes out
                out.write(done.pop(next_to_write))
                next_to_write += 1
            while waiting and len(futures) < in_flight and not failed:
                pending.add(submit(waiting.pop()))
    if failed or next_to_write != len(parts):
        temporary.unlink()
        return sorted(failed) or ["not all partitions were aligned"]
    temporary.replace(args.output)
    return []


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    own, align_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://HOST:8786)")
    where.add_argument("--local-workers", type=int, help="start a local cluster of this many worker processes")
    parser.add_argument("-i", "--input", required=True, help="'source ||| target' lines")
    parser.add_argument("-o", "--output", required=True, help="the Pharaoh links, a line per input line")
    parser.add_argument("--partition-lines", type=int, default=20000)
    parser.add_argument("--retries", type=int, default=2, help="times a failed partition is submitted again")
    parser.add_argument("--in-flight", type=int, default=0, help="partitions outstanding at once (0: four per worker)")
    parser.add_argument("--attn", default=str(ROOT / "build/bin/attn"), help="the attn binary (same path on every worker)")
    args = parser.parse_args(own)
    args.align_args = align_args
    if args.partition_lines < 1:
        parser.error("--partition-lines must be at least 1")
    if not Path(args.input).is_file():
        parser.error(f"no input file {args.input}")
    from dask.distributed import Client, LocalCluster
    if args.local_workers:
        cluster = LocalCluster(n_workers=args.local_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        cluster, client = None, Client(args.scheduler)
    try:
        failed = run(client, args)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    if failed:
        print(f"align.py: {args.output} not written: partitions {failed} failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
