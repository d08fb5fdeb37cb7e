#!/usr/bin/env python3
"""insnprof-report: bench/insnprof.c's block counts as instructions per
operation, per function (scripts/insn-profile runs it).

usage: insnprof-report.py SYSTEM.MAP BLOCKS OPS TOPK CASE VARIANT [FUNC]
"""
import bisect
import sys


def symbols(path):
    """Text symbols of a System.map, sorted by address."""
    syms = []
    with open(path) as f:
        for line in f:
            addr, kind, name = line.split()[:3]
            if kind in 'tTwW':
                syms.append((int(addr, 16), name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def main():
    mapf, path, ops, topk, case, variant = sys.argv[1:7]
    blocks = sys.argv[7] if len(sys.argv) > 7 else ''
    ops, topk = int(ops), int(topk)
    addrs, names = symbols(mapf)
    per_fn, rows, windows = {}, [], 0
    with open(path) as f:
        for line in f:
            if line.startswith('windows'):
                windows = int(line.split()[1])
                continue
            a, n, e = (int(x, 16 if i == 0 else 10)
                       for i, x in enumerate(line.split()))
            if a < 0xffff800000000000:
                fn, off = '[user space]', 0
            else:
                i = bisect.bisect_right(addrs, a) - 1
                fn, off = ((names[i], a - addrs[i]) if i >= 0
                           else ('[kernel, no symbol]', 0))
            per_fn[fn] = per_fn.get(fn, 0) + n * e
            if fn == blocks:
                rows.append((off, n, e))
    total = sum(per_fn.values())
    print('# %s on %s: instructions per operation, %d operations in %d '
          'windows' % (case, variant, ops, windows))
    print('%10.1f  total' % (total / ops))
    shown = [kv for kv in sorted(per_fn.items(), key=lambda kv: -kv[1])
             if kv[1] >= ops / 2][:topk]
    for fn, count in shown:
        print('%10.1f  %s' % (count / ops, fn))
    print('%10.1f  (the other functions)'
          % ((total - sum(c for _, c in shown)) / ops))
    if blocks:
        print('# blocks of %s: offset, instructions, executions and '
              'instructions per operation' % blocks)
        for off, n, e in sorted(rows):
            print('  +%#06x %3d %8.2f %8.2f' % (off, n, e / ops, n * e / ops))


if __name__ == '__main__':
    main()
