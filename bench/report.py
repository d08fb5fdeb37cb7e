#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py - bench/results.md, and the cost check, from ctxbench outputs.

usage: report.py RAWDIR                 the report (markdown) on stdout
       report.py --check RAWDIR         cost-check: every bound of
                                        bench/cost-bounds, exit 1 if any fails
       report.py --cases P|V            the cases cost-bounds needs on the
                                        patched (P) or vanilla (V) kernel

RAWDIR holds cgtrace-N.txt and vanilla-N.txt (boot N of each kernel,
counted with vm-run --icount), optionally cgtrace-wall-N.txt and
vanilla-wall-N.txt (timed boots, a secondary table), and meta.

A sample is one case in one round of one boot: the fastest of the round's
sub-batches (the one no timer interrupt landed in), in instructions per
operation under icount. A case's figure is the smallest of its samples
over all rounds and boots of a kernel build: extra work (an interrupt, a
ring-buffer page switch, a scheduler state that costs a few more
instructions per switch) only adds. How exactly it repeats: the spread of
the per-boot figures, and the spread of all samples.
"""
import ast
import configparser
import glob
import os
import re
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOUNDS = os.path.join(TOP, "bench", "cost-bounds")
REPEAT_LIMIT = 0.001    # "deterministic": repeats within 0.1%


def load(path):
    """{case: [min per round]}, {case: [events/op]}, info, mem, skips"""
    s, ev, info, mem, skips = {}, {}, {}, {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "sample" and len(w) >= 6:
                s.setdefault(w[1], []).append(float(w[3]))
                ev.setdefault(w[1], []).append(float(w[5]))
            elif w[0] == "info" and len(w) >= 2:
                info[w[1]] = " ".join(w[2:])
            elif w[0] == "mem" and len(w) >= 3:
                mem.setdefault(w[1], []).append(float(w[2]))
            elif w[0] == "skip" and len(w) >= 2:
                skips[w[1]] = " ".join(w[2:])
    return s, ev, info, mem, skips


class Kernel:
    """the samples of one kernel, pooled over its boots"""

    def __init__(self, name, files):
        self.name = name
        self.samples, self.per_boot, self.events = {}, [], {}
        self.info, self.mem, self.skips = {}, {}, {}
        self.versions, self.clocks = set(), set()
        self.dropped = []       # boots of an older build of the kernel
        loaded = []
        for p in files:
            r = load(p)
            if "done" in r[2]:
                loaded.append((p, r))
        # A kernel rebuilt during the run: only its last build counts.
        last = loaded[-1][1][2].get("kernel") if loaded else None
        for p, (s, ev, info, mem, skips) in loaded:
            if info.get("kernel") != last:
                self.dropped.append((os.path.basename(p), info.get("kernel", "?")))
                continue
            self.per_boot.append(s)
            for k, v in s.items():
                self.samples.setdefault(k, []).extend(v)
            for k, v in ev.items():
                self.events.setdefault(k, []).extend(v)
            for k, v in mem.items():
                self.mem.setdefault(k, []).extend(v)
            self.info.update(info)
            self.skips.update(skips)
            self.versions.add(info.get("kernel", "?"))
            self.clocks.add(info.get("clock", "wall"))

    def __getattr__(self, case):
        """K.case in an expression: the case's figure"""
        if case.startswith("_"):
            raise AttributeError(case)
        v = self.samples.get(case)
        if not v:
            raise Missing(self, case)
        return min(v)

    def has(self, case):
        return bool(self.samples.get(case))

    def spread(self, case):
        """(max - min) / min of the case's samples, all boots"""
        v = self.samples.get(case)
        if not v or not min(v):
            return None
        return (max(v) - min(v)) / min(v)

    def boot_spread(self, case):
        """(max - min) / min of the per-boot figures"""
        mins = [min(b[case]) for b in self.per_boot if b.get(case)]
        if len(mins) < 2 or not min(mins):
            return None
        return (max(mins) - min(mins)) / min(mins)

    def why_missing(self, case):
        return self.skips.get(case, "not run")


class Missing(Exception):
    def __init__(self, kernel, case):
        super().__init__(case)
        self.kernel, self.case = kernel, case


# Expressions of cost-bounds and of the tables: P.case, V.case (or K.case
# for "this kernel"), numbers, + - * / and parentheses; nothing else.
_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def _check(node):
    if isinstance(node, ast.Expression):
        return _check(node.body)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _check(node.left) and _check(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _check(node.operand)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return True
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in ("P", "V", "K")):
        return True
    raise ValueError("not allowed in a cost expression: %s" % ast.dump(node))


def _eval(node, env):
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.BinOp):
        return _OPS[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp):
        return -_eval(node.operand, env)
    if isinstance(node, ast.Constant):
        return float(node.value)
    return getattr(env[node.value.id], node.attr)


def parse(expr):
    tree = ast.parse(expr, mode="eval")
    _check(tree)
    return tree


def evaluate(expr, **env):
    """the value of @expr, or None (and the reason) when a case is missing"""
    try:
        return _eval(parse(expr), env), None
    except Missing as m:
        return None, "%s: `%s` %s" % (m.kernel.name, m.case,
                                      m.kernel.why_missing(m.case))
    except ZeroDivisionError:
        return None, "division by zero"


def split_ratio(expr):
    """(numerator, denominator) expressions of a top-level division"""
    body = parse(expr).body
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.Div):
        return ast.unparse(body.left), ast.unparse(body.right)
    return expr, None


def cases_of(expr, kernel):
    return [n.attr for n in ast.walk(parse(expr))
            if isinstance(n, ast.Attribute) and n.value.id == kernel]


class Target:
    """'<= X' or 'X +- D'"""

    def __init__(self, text):
        self.text = text.strip()
        m = re.fullmatch(r"<=\s*(-?[\d.]+)", self.text)
        n = re.fullmatch(r"(-?[\d.]+)\s*\+-\s*([\d.]+)", self.text)
        if m:
            self.hi, self.center, self.tol = float(m.group(1)), None, None
        elif n:
            self.center, self.tol = float(n.group(1)), float(n.group(2))
            self.hi = None
        else:
            raise ValueError("bad target %r (want '<= X' or 'X +- D')" % text)

    def ok(self, v):
        if self.hi is not None:
            return v <= self.hi + 1e-12
        return abs(v - self.center) <= self.tol + 1e-12

    def below(self, v):
        """under the range of an "X +- D" target: less work than asked"""
        return self.center is not None and v < self.center - self.tol

    def excess(self, num, den):
        """instructions (per operation of the denominator) beyond the
        target: > 0 missed by, <= 0 met with that much to spare"""
        den = 1.0 if den is None else den
        if self.hi is not None:
            return num - self.hi * den
        return abs(num - self.center * den) - self.tol * den


def read_bounds():
    cp = configparser.ConfigParser(interpolation=None)
    with open(BOUNDS) as f:
        cp.read_file(f)
    out = []
    for name in cp.sections():
        s = cp[name]
        out.append({"name": name, "what": s.get("what", name),
                    "value": s["value"], "unit": s.get("unit", "ratio"),
                    "target": Target(s["target"]), "bound": Target(s["bound"]),
                    "bound_is": s.get("bound_is", "target"),
                    "vanilla": s.getboolean("vanilla", False),
                    "floor": s.get("floor"), "floor_what": s.get("floor_what", "")})
    return out


def judge(b, P, V):
    """value, numerator, denominator (patched), or None and why"""
    v, why = evaluate(b["value"], P=P, V=V)
    if v is None:
        return None, why
    if b["unit"] == "instructions":
        return (v, v, None), None
    num, den = split_ratio(b["value"])
    n, _ = evaluate(num, P=P, V=V)
    d, _ = evaluate(den, P=P, V=V) if den else (None, None)
    return (v, n, d), None


def fmt_v(b, v):
    if v is None:
        return "-"
    return "%.0f" % v if b["unit"] == "instructions" else "%.3f" % v


def fmt_n(x):
    return "-" if x is None else "%.0f" % x if abs(x) >= 100 else "%.1f" % x


def fmt_by(x):
    return "%+.0f" % x if abs(x) >= 10 else "%+.1f" % x


def kernels(raw, wall=False):
    tag = "-wall" if wall else ""
    pk = Kernel("patched", sorted(glob.glob(os.path.join(raw, "cgtrace%s-[0-9]*.txt" % tag))))
    vk = Kernel("vanilla", sorted(glob.glob(os.path.join(raw, "vanilla%s-[0-9]*.txt" % tag))))
    return pk, vk


# ------------------------------------------------------------ cost-check

def check(raw):
    pk, vk = kernels(raw)
    if not pk.per_boot:
        print("cost-check: no patched results in %s" % raw)
        return 1
    for k in (pk, vk):
        if k.per_boot and k.clocks != {"icount"}:
            print("cost-check: the %s run was not counted (clock %s): "
                  "boot with vm-run --icount" % (k.name, "/".join(k.clocks)))
            return 1
    print("cost-check: patched %s; vanilla %s" %
          (" / ".join(sorted(pk.versions)), " / ".join(sorted(vk.versions)) or "-"))
    passed = failed = 0
    for b in read_bounds():
        r, why = judge(b, pk, vk)
        if r is None:
            print("FAIL %-24s not measured (%s)" % (b["name"], why))
            failed += 1
            continue
        v, num, den = r
        ok = b["bound"].ok(v)
        interim = "" if b["bound_is"].startswith("target") else \
            " [interim bound; target %s]" % b["target"].text
        by = b["bound"].excess(num, den)
        print("%s %-24s %s  bound %s (%s instructions)%s" %
              ("ok  " if ok else "FAIL", b["name"], fmt_v(b, v),
               b["bound"].text, fmt_by(by), interim))
        if ok:
            passed += 1
        else:
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def list_cases(kernel):
    seen = []
    for b in read_bounds():
        exprs = [b["value"]] + ([b["floor"]] if b.get("floor") else [])
        for e in exprs:
            for c in cases_of(e, "P" if kernel == "P" else "V"):
                if c not in seen:
                    seen.append(c)
    print(",".join(seen))
    return 0


# ------------------------------------------------------------ the report

def read_meta(raw):
    meta = {}
    try:
        with open(os.path.join(raw, "meta")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(" ")
                meta[k] = v
    except OSError:
        pass
    return meta


def qemu_version():
    try:
        v = os.popen("qemu-system-x86_64 --version 2>/dev/null").readline()
        return v.split("version")[1].split()[0]
    except (IndexError, OSError):
        return "?"


def count_table(P, V, rows, vanilla=True):
    """rows: (label, expression over K, note); both kernels side by side"""
    out = ["| | patched | vanilla | |", "|---|---|---|---|"] if vanilla else \
        ["| | patched | |", "|---|---|---|"]
    for label, expr, note in rows:
        p, _ = evaluate(expr, K=P)
        cells = [label, fmt_x(p, expr)]
        if vanilla:
            v, _ = evaluate(expr, K=V)
            cells.append(fmt_x(v, expr))
        cells.append(note or "")
        out.append("| " + " | ".join(cells) + " |")
    return out


def fmt_x(x, expr):
    """a ratio (3 decimals) when @expr divides by a count, else a count"""
    if x is None:
        return "-"
    _, den = split_ratio(expr)
    if den is not None and cases_of(den, "K"):
        return "%.3f" % x
    return fmt_n(x)


def section(title, intro, table):
    return ["", "## " + title, ""] + ([intro, ""] if intro else []) + table


def summary(P, V, bounds):
    out = ["| # | question | patched | vanilla | floor | target | verdict |",
           "|---|---|---|---|---|---|---|"]
    met = missed = below = 0
    for i, b in enumerate(bounds, 1):
        r, why = judge(b, P, V)
        van = "-"
        if b["vanilla"]:
            vv, vwhy = evaluate(b["value"].replace("P.", "V."), V=V)
            van = fmt_v(b, vv) if vv is not None else "-"
        floor = "-"
        if b["floor"]:
            fv, _ = evaluate(b["floor"], P=P, V=V)
            if fv is not None:
                floor = "%s: %s" % (fmt_v(b, fv), b["floor_what"])
        if r is None:
            out.append("| %d | %s | - | %s | %s | %s | not measured (%s) |" %
                       (i, b["what"], van, floor, b["target"].text, why))
            missed += 1
            continue
        v, num, den = r
        by = b["target"].excess(num, den)
        if b["target"].ok(v):
            verdict = "met (%s instructions to spare)" % fmt_n(-by) \
                if by < -0.5 else "met"
            met += 1
        elif b["target"].below(v):
            verdict = ("**below the range** by %s instructions: the "
                       "patched kernel does less work here (not a cost "
                       "regression; worth knowing why)" % fmt_n(by))
            below += 1
        else:
            verdict = "**missed** by %s instructions" % fmt_n(by)
            missed += 1
        unit = "" if b["unit"] == "instructions" else \
            " (%s / %s)" % (fmt_n(num), fmt_n(den))
        out.append("| %d | %s | %s%s | %s | %s | %s | %s |" %
                   (i, b["what"], fmt_v(b, v), unit, van, floor,
                    b["target"].text, verdict))
    return out, met, missed, below


def main(raw):
    meta = read_meta(raw)
    P, V = kernels(raw)
    bounds = read_bounds()
    counted = P.clocks == {"icount"} and V.clocks <= {"icount"}
    unit = "instructions" if counted else "ns"

    o = ["# cgtrace benchmark results", "",
         "Written by `make bench` (scripts/bench, bench/ctxbench.c, "
         "bench/report.py, targets from bench/cost-bounds) on %s. Raw "
         "outputs: `%s` (not kept in git)." %
         (meta.get("date", "?"), os.path.relpath(raw, TOP)), ""]
    if not counted:
        o += ["**Warning:** these figures are wall time, not instruction "
              "counts (the run did not use `vm-run --icount`).", ""]
    o += ["How to read: both kernels boot under QEMU with `-icount "
          "shift=0,sleep=off`, so the guest clock advances one nanosecond "
          "per guest instruction, and every figure below is a count of "
          "guest instructions per operation (a getppid() call, a pipe "
          "ping-pong round trip, a marker write), user-space loop "
          "included. Counts are not times: they do not see cache misses, "
          "branch mispredictions, lock contention between CPUs (the guest "
          "has one) or how fast real hardware runs an instruction; they "
          "measure the work done, exactly, and the same run repeats them. "
          "The *cost* of an event is the operation with it minus the same "
          "operation with nothing enabled. Every figure comes with its "
          "floors: the operation with nothing enabled, and with the "
          "tracepoint armed but the event disabled in this instance.", ""]

    # Setup and determinism
    o += ["## Setup", ""]
    o.append("- Kernels (`uname -r -v`, the build stamp): patched `%s`; "
             "vanilla `%s`." % (" / ".join(sorted(P.versions)) or "?",
                                " / ".join(sorted(V.versions)) or "?"))
    for k in (P, V):
        if k.dropped:
            o.append("- **Warning:** the %s kernel was rebuilt during the "
                     "run: only the boots of its last build are used; left "
                     "out: %s." % (k.name, "; ".join(
                         "%s (`%s`)" % d for d in k.dropped)))
    o.append("- Config: `make tinyconfig` + `config/base.config` for both, "
             "+ `config/cgtrace.config` for the patched kernel; production "
             "builds.")
    o.append("- QEMU %s: `-accel tcg,thread=single -cpu Skylake-Client "
             "-icount shift=0,sleep=off -smp 1` (`scripts/vm-run --icount`)."
             % qemu_version())
    o.append("- Boots: %d patched, %d vanilla; %s rounds each; %s; whole "
             "run %s s of host time." %
             (len(P.per_boot), len(V.per_boot), meta.get("rounds", "?"),
              P.info.get("subbatch", "?"), meta.get("seconds", "?")))
    bs = [(k.name, c, k.boot_spread(c)) for k in (P, V) for c in k.samples
          if k.boot_spread(c) is not None]
    sp = [(k.name, c, k.spread(c)) for k in (P, V) for c in k.samples
          if k.spread(c) is not None]
    if bs:
        worst = max(bs, key=lambda x: x[2])
        within = sum(1 for x in bs if x[2] <= REPEAT_LIMIT)
        o.append("- Determinism: %d of %d case figures repeat from boot to "
                 "boot within %.1f%% (the largest difference: `%s` on %s, "
                 "%.3f%%)." % (within, len(bs), REPEAT_LIMIT * 100,
                               worst[1], worst[0], worst[2] * 100))
    elif P.per_boot:
        o.append("- Determinism: one boot per kernel, so no boot-to-boot "
                 "comparison.")
    if sp:
        worst = max(sp, key=lambda x: x[2])
        within = sum(1 for x in sp if x[2] <= REPEAT_LIMIT)
        o.append("- Over all rounds and boots, %d of %d cases gave the "
                 "same count within %.1f%% every time; the others differ by whole "
                 "steps of a few instructions per operation (up to %.3f%%, "
                 "`%s` on %s): states the operation leaves behind (which "
                 "task the scheduler picks first, where the ring buffer's "
                 "page ends) that change the work a little. The figure is "
                 "the smallest sample; the line above says how closely the "
                 "boots agree on it." %
                 (within, len(sp), REPEAT_LIMIT * 100, worst[2] * 100,
                  worst[1], worst[0]))
    o.append("- Operations: `sc_*` one `getppid()` syscall; `pp_*` a pipe "
             "ping-pong round trip between two tasks on the one CPU (two "
             "context switches, two wakeups); `mk_*` writes to the "
             "instance's `user_events` / `trace_marker`. *Armed* floors: "
             "`sc_armed` enables `sys_enter_getpid` (every syscall takes "
             "the syscall tracepoint, getppid's event is not enabled); "
             "`*_soft` enable the case's own events in soft-disabled mode "
             "(an `enable_event` trigger on an event that never fires): "
             "the probe runs and reaches the event, which records nothing.")

    s, met, missed, below = summary(P, V, bounds)
    o += ["", "## Summary: %d targets met, %d missed%s" %
          (met, missed, ", %d below the range" % below if below else ""), "",
          "Ratios of instruction counts (numerator / denominator in "
          "parentheses); *by*: instructions per operation of the "
          "denominator above the target (missed) or below it (to spare). "
          "*vanilla*: the same question on vanilla where it has the "
          "feature (pid filters). *floor*: the same ratio for what no "
          "fast path can go below, where that bounds the target (the "
          "sections below give every figure's floors). The check `make cost-check` enforces "
          "the bounds of bench/cost-bounds on these ratios.", ""] + s

    # Details, with floors
    sc_floor = [("nothing enabled: `sc_off` (the bare syscall)", "K.sc_off", "floor"),
                ("armed: `sc_armed` - `sc_off` (syscall tracepoint, no event for getppid)",
                 "K.sc_armed - K.sc_off", "floor"),
                ("armed: `sc_soft` - `sc_off` (getppid's event soft-disabled here)",
                 "K.sc_soft - K.sc_off", "floor")]
    o += section(
        "1. getppid() with its syscall event recorded, no filter anywhere",
        "Instructions per call. Cost rows are above the bare syscall.",
        count_table(P, V, sc_floor + [
            ("recorded: `sc_on`", "K.sc_on", ""),
            ("event cost: `sc_on` - `sc_off`", "K.sc_on - K.sc_off", ""),
            ("recorded after `echo > set_event_pid` (no pid listed): "
             "`sc_on_pid_echoed` - `sc_on`", "K.sc_on_pid_echoed - K.sc_on", ""),
            ("pure user-space loop `sc_user` (same code on both: a check "
             "of the unit)", "K.sc_user", "control")]))
    pv, _ = evaluate("(P.sc_on - P.sc_off) / (V.sc_on - V.sc_off)", P=P, V=V)
    if pv is not None:
        o += ["", "Event cost patched / vanilla: %.3f." % pv]
    ev, _ = evaluate("V.sc_on_pid_echoed - V.sc_on", P=P, V=V)
    ep, _ = evaluate("P.sc_on_pid_echoed - P.sc_on", P=P, V=V)
    if ev is not None and ep is not None:
        o += ["", "`echo > set_event_pid`, the usual way to clear the pid "
              "filter, truncates the file and then writes an empty list. "
              "Vanilla's event_pid_write() marks every event of the "
              "instance pid-filtered whatever the list (and a truncation "
              "clears the mark only while a list exists), so from then on "
              "every event pays the pid test with nothing to filter: "
              "%s instructions an event on vanilla, %s on the patched "
              "kernel, whose events carry the mark only while a pid or "
              "cgroup rule exists. ctxbench clears lists by truncation "
              "alone, so that `sc_on` measures both kernels unmarked." %
              (fmt_n(ev), fmt_n(ep))]

    o += section(
        "2. An event rejected by a filter / recorded",
        "Cost above the bare syscall; ratios to the recorded event's cost. "
        "A rejected event can go no lower than the armed floors: the "
        "syscall tracepoint runs for every syscall once any syscall event "
        "is enabled, before any filter can look at the task.",
        count_table(P, V, sc_floor[1:] + [
            ("recorded: `sc_on` - `sc_off`", "K.sc_on - K.sc_off", ""),
            ("cgroup filter rejecting: `sc_cg_reject` - `sc_off`",
             "K.sc_cg_reject - K.sc_off", ""),
            ("pid filter rejecting: `sc_pid_reject` - `sc_off`",
             "K.sc_pid_reject - K.sc_off", ""),
            ("event filter `common_pid != N` rejecting", "K.sc_filt_reject - K.sc_off",
             "side by side"),
            ("cgroup rejected / recorded", "(K.sc_cg_reject - K.sc_off) / (K.sc_on - K.sc_off)", ""),
            ("pid rejected / recorded", "(K.sc_pid_reject - K.sc_off) / (K.sc_on - K.sc_off)", ""),
            ("armed floor / recorded", "(K.sc_armed - K.sc_off) / (K.sc_on - K.sc_off)", "floor"),
            ("cgroup rejection above the armed floor", "K.sc_cg_reject - K.sc_armed", "target: <= 12"),
            ("pid rejection above the armed floor", "K.sc_pid_reject - K.sc_armed", "target: <= 12"),
            ("cgroup rejection above the soft-disabled floor", "K.sc_cg_reject - K.sc_soft", ""),
            ("pid rejection above the soft-disabled floor", "K.sc_pid_reject - K.sc_soft", "")]))

    o += section(
        "3. An event accepted by a filter / no filter",
        "Event cost above the bare syscall with the task's cgroup (pid) "
        "listed, against the same event with no list anywhere.",
        count_table(P, V, [
            ("no filter: `sc_on` - `sc_off`", "K.sc_on - K.sc_off", ""),
            ("cgroup filter accepting: `sc_cg_match` - `sc_off`", "K.sc_cg_match - K.sc_off", ""),
            ("pid filter accepting: `sc_pid_match` - `sc_off`", "K.sc_pid_match - K.sc_off", ""),
            ("cgroup: instructions above no filter", "K.sc_cg_match - K.sc_on", "target: <= +10"),
            ("pid: instructions above no filter", "K.sc_pid_match - K.sc_on", "target: <= +10"),
            ("cgroup / no filter", "(K.sc_cg_match - K.sc_off) / (K.sc_on - K.sc_off)", ""),
            ("pid / no filter", "(K.sc_pid_match - K.sc_off) / (K.sc_on - K.sc_off)", "")]))

    o += section(
        "4. Pipe ping-pong round trip with sched events recorded",
        "`sched_switch`, `sched_waking` and `sched_wakeup` enabled in the "
        "instance; the filter (when set) accepts both tasks. Instructions "
        "per round trip.",
        count_table(P, V, [
            ("nothing enabled: `pp_off`", "K.pp_off", "floor"),
            ("armed: the sched events soft-disabled here: `pp_ev_soft`", "K.pp_ev_soft", "floor"),
            ("recorded, no filter: `pp_ev_off`", "K.pp_ev_off", ""),
            ("recorded, cgroup filter: `pp_ev_cg`", "K.pp_ev_cg", ""),
            ("recorded, pid filter: `pp_ev_pid`", "K.pp_ev_pid", ""),
            ("cgroup filter / no filter", "K.pp_ev_cg / K.pp_ev_off", "target <= 1.02"),
            ("pid filter / no filter", "K.pp_ev_pid / K.pp_ev_off", "target <= 1.02"),
            ("cgroup filter: instructions above no filter", "K.pp_ev_cg - K.pp_ev_off", ""),
            ("pid filter: instructions above no filter", "K.pp_ev_pid - K.pp_ev_off", "")]))

    o += section(
        "5. Pipe ping-pong round trip, no event: the filters' switch work",
        "No event enabled anywhere, so what a filter adds is its own work "
        "at the switches and wakeups. `set_ftrace_cgroup` (a "
        "function-tracer list) has only sched_switch probes: a breakdown.",
        count_table(P, V, [
            ("nothing enabled: `pp_off`", "K.pp_off", "floor"),
            ("cgroup filter: `pp_cg`", "K.pp_cg", ""),
            ("pid filter: `pp_pid`", "K.pp_pid", ""),
            ("set_ftrace_cgroup: `pp_fcg`", "K.pp_fcg", "breakdown"),
            ("cgroup / none", "K.pp_cg / K.pp_off", "target <= 1.02"),
            ("pid / none", "K.pp_pid / K.pp_off", "target <= 1.02"),
            ("cgroup: instructions per round trip", "K.pp_cg - K.pp_off", ""),
            ("pid: instructions per round trip", "K.pp_pid - K.pp_off", ""),
            ("set_ftrace_cgroup: instructions per round trip", "K.pp_fcg - K.pp_off", "")]))

    o += section(
        "6. 1024 cgroups or pids listed / 1",
        "The 1024-cgroup list holds the task's cgroup and 1023 empty ones; "
        "the 1024-pid list the two tasks and 1022 other pids. Per event: "
        "event cost above the bare syscall; per switch: round trip, no "
        "event.",
        count_table(P, V, [
            ("event, cgroups: 1024 / 1", "(K.sc_cg1024 - K.sc_off) / (K.sc_cg_match - K.sc_off)", ""),
            ("event, pids: 1024 / 1", "(K.sc_pid1024 - K.sc_off) / (K.sc_pid_match - K.sc_off)", ""),
            ("switch, cgroups: 1024 / 1", "K.pp_cg1024 / K.pp_cg", ""),
            ("switch, pids: 1024 / 1", "K.pp_pid1024 / K.pp_pid", ""),
            ("event, cgroups: 1024 - 1 (instructions)", "K.sc_cg1024 - K.sc_cg_match", ""),
            ("event, pids: 1024 - 1 (instructions)", "K.sc_pid1024 - K.sc_pid_match", ""),
            ("switch, cgroups: 1024 - 1 (instructions)", "K.pp_cg1024 - K.pp_cg", ""),
            ("switch, pids: 1024 - 1 (instructions)", "K.pp_pid1024 - K.pp_pid", "")]))

    inst_rows = [("no other instance: `pp_off`", "K.pp_off", "floor")]
    for k in (1, 4, 16, 64):
        inst_rows.append(("%d instance%s: `pp_inst%d`" % (k, "s" if k > 1 else "", k),
                          "K.pp_inst%d" % k, ""))
    for k in (1, 4, 16, 64):
        inst_rows.append(("%d / none" % k, "K.pp_inst%d / K.pp_off" % k,
                          "target <= 1.10" if k == 16 else ""))
    for k in (1, 4, 16, 64):
        inst_rows.append(("%d: instructions per round trip, per instance" % k,
                          "(K.pp_inst%d - K.pp_off) / %d" % (k, k), ""))
    inst_rows.append(("slope 16 to 64: instructions per added instance",
                      "(K.pp_inst64 - K.pp_inst16) / 48", ""))
    intro = ("K more instances, each with its own `set_event_cgroup` "
             "naming a different cgroup; the ping-pong tasks live in the "
             "cgroup of the first. No event enabled anywhere: only the "
             "filters' switch and wakeup work.")
    slope, _ = evaluate("(P.pp_inst64 - P.pp_inst16) / 48", P=P)
    one, _ = evaluate("P.pp_inst1 - P.pp_off", P=P)
    if slope is not None and one is not None:
        intro += (" On the patched kernel the first filtering instance adds "
                  "%s instructions per round trip and every further one "
                  "about %s (the slope from 16 to 64): %s." %
                  (fmt_n(one), fmt_n(slope),
                   "the switch work grows with the number of filtering "
                   "instances" if slope > 5 else
                   "the switch work does not grow with the number of "
                   "filtering instances"))
    o += section("7. K instances, each filtering its own cgroup", intro,
                 count_table(P, V, inst_rows, vanilla=False))

    o += section(
        "8. Markers: `B` + `E` via user_events / two trace_marker writes",
        "Instructions per pair of writes, syscalls included (what the "
        "writer pays). Floors: the same pair with `user_markers` disabled "
        "in the instance (parsing and checks only), and with the events "
        "soft-disabled (armed). trace_marker is what the pair must at "
        "least pay: two writes of a record into the ring buffer. "
        "`scripts/marker-budget` counts the pair's jobs one by one (the "
        "parse, the delivery, the span state, the runtime reads, the "
        "events) by stubbing them out; its latest figures are in "
        "bench/profiles.md.",
        count_table(P, V, [
            ("two write(2) of the same bytes to /dev/null: `mk_pair_null`",
             "K.mk_pair_null", "floor: the syscalls"),
            ("two trace_marker writes: `mk_pair_tm`", "K.mk_pair_tm", "floor"),
            ("two trace_marker writes above the syscalls", "K.mk_pair_tm - K.mk_pair_null", ""),
            ("B + E, user_markers disabled: `mk_pair_ue_off`", "K.mk_pair_ue_off", "floor"),
            ("B + E, events soft-disabled: `mk_pair_ue_soft`", "K.mk_pair_ue_soft", "floor"),
            ("B + E recorded: `mk_pair_ue`", "K.mk_pair_ue", ""),
            ("B + E / two trace_marker writes", "K.mk_pair_ue / K.mk_pair_tm", "target <= 1.3"),
            ("B + E above two trace_marker writes", "K.mk_pair_ue - K.mk_pair_tm", ""),
            ("B + E disabled, above the syscalls (parsing, checks)",
             "K.mk_pair_ue_off - K.mk_pair_null", ""),
            ("recording B + E, above user_markers disabled", "K.mk_pair_ue - K.mk_pair_ue_off", ""),
            ("B + E under a new instance's rate limits, per process and in total (the others run unlimited): `mk_pair_ue_rated`",
             "K.mk_pair_ue_rated", ""),
            ("the rate limits' cost (the group, its bucket and the instance's), per pair", "K.mk_pair_ue_rated - K.mk_pair_ue", ""),
            ("the target: 1.3 x two trace_marker writes", "K.mk_pair_tm * 1.3", "")]))

    o += section(
        "8b. Markers nobody records: user_marker.h's enable state",
        "Instructions per B + E pair written with user_marker.h "
        "(`um_begin()`, `um_end()`), which tests the enable state that "
        "user_events_enabled maps into the process before it writes. "
        "Disabled, the pair makes no system call: what it costs is user "
        "code, the benchmark's loop around it (`mk_loop`) taken out. "
        "Mainline's user_events (6.4 and later; 6.12 here) registers an "
        "event with an enable bit that the kernel keeps in the writer's "
        "memory: its disabled pair is two tests of that bit. Enabled, "
        "user_marker.h writes the same two records as `mk_pair_ue`, "
        "formatted with snprintf(). A process without tracefs has no page "
        "to test: its markers go through prctl(PR_TRACE_USER_MARKER), a "
        "system call each whether or not anything records them, which "
        "looks at every instance for its opt-in: here the 64 instances of "
        "the `pp_inst*` cases exist too, about 11 instructions each a call "
        "(with no other instance, the disabled pair counts 1381 on 6.1).",
        count_table(P, V, [
            ("the benchmark's loop, nothing in it: `mk_loop`", "K.mk_loop", "floor"),
            ("disabled pair through user_marker.h: `mk_umh_off` - `mk_loop`",
             "K.mk_umh_off - K.mk_loop", "target <= 10, no system call"),
            ("disabled pair, mainline user_events' enable bits: `mk_mainline_off` - `mk_loop`",
             "K.mk_mainline_off - K.mk_loop", "6.12 only"),
            ("disabled pair written as two write(2): `mk_pair_ue_off`", "K.mk_pair_ue_off", "before"),
            ("two write(2) to /dev/null: `mk_pair_null`", "K.mk_pair_null", "the syscalls"),
            ("disabled pair through prctl(PR_TRACE_USER_MARKER), no tracefs: `mk_prctl_off`",
             "K.mk_prctl_off", "two system calls"),
            ("enabled pair through user_marker.h: `mk_umh`", "K.mk_umh", ""),
            ("enabled pair through prctl: `mk_prctl`", "K.mk_prctl", ""),
            ("enabled pair as two write(2): `mk_pair_ue`", "K.mk_pair_ue", ""),
            ("user_marker.h's formatting and state test, enabled", "K.mk_umh - K.mk_pair_ue", "")],
            vanilla=False))

    o += section(
        "9. Markers: per record, 16-record write / single-record write",
        "A 16-record write holds 16 `C` (counter) records; per-record "
        "figures are the write's count / 16.",
        count_table(P, V, [
            ("single record recorded: `mk_single`", "K.mk_single", ""),
            ("single record, user_markers disabled: `mk_single_off`", "K.mk_single_off", "floor"),
            ("single record, soft-disabled: `mk_single_soft`", "K.mk_single_soft", "floor"),
            ("16-record write, per record: `mk_batch16` / 16", "K.mk_batch16 / 16", ""),
            ("16-record write disabled, per record: `mk_batch16_off` / 16", "K.mk_batch16_off / 16",
             "floor; target <= 150"),
            ("16-record write soft-disabled, per record", "K.mk_batch16_soft / 16", "floor"),
            ("16-record write, rate limit dropping, per record", "K.mk_batch16_drop / 16", ""),
            ("16-record write, ring buffer off (tracing_on 0), per record: `mk_batch16_nobuf` / 16",
             "K.mk_batch16_nobuf / 16", ""),
            ("a record's ring-buffer event (reserve, fill, commit): recorded less ring buffer off",
             "(K.mk_batch16 - K.mk_batch16_nobuf) / 16", ""),
            ("floor per record: that event plus the disabled write's share",
             "(K.mk_batch16_off + K.mk_batch16 - K.mk_batch16_nobuf) / 16", "floor"),
            ("per record: batch / single", "(K.mk_batch16 / 16) / K.mk_single", "target <= 0.35"),
            ("the target per record: 0.35 x `mk_single`", "K.mk_single * 0.35", ""),
            ("recording a record, above disabled (batch, per record)",
             "(K.mk_batch16 - K.mk_batch16_off) / 16", ""),
            ("one `C` record / one trace_marker write", "K.mk_single / (K.mk_pair_tm / 2)", ""),
            ("one write(2) to /dev/null: `mk_pair_null` / 2", "K.mk_pair_null / 2", "the syscall")],
            vanilla=False))

    o += ["", "## 10. Memory", "",
          "Measured in the first boot of each kernel: the %s. SLOB counts "
          "whole pages: a small list may show 0." %
          P.info.get("memory_method", "?"), "",
          "| quantity | patched | vanilla |", "|---|---|---|"]

    def mem(k, key):
        v = k.mem.get(key)
        return ("%.1f" % statistics.median(v)) if v else "-"

    for key, what in [("cg_list_1", "set_event_cgroup, 1 cgroup (bytes)"),
                      ("cg_list_1024", "set_event_cgroup, 1024 cgroups (bytes)"),
                      ("cg_per_entry", "bytes per listed cgroup"),
                      ("pid_list_1", "set_event_pid, 1 pid (bytes)"),
                      ("pid_list_1024", "set_event_pid, 1024 pids (bytes)"),
                      ("pid_per_entry", "bytes per listed pid"),
                      ("marker_per_thread", "marker span state per thread "
                       "(128 threads with one open span)")]:
        o.append("| %s | %s | %s |" % (what, mem(P, key), mem(V, key)))

    # Secondary: wall time
    PW, VW = kernels(raw, wall=True)
    if PW.per_boot or VW.per_boot:
        o += ["", "## Wall time (secondary)", "",
              "The same cases timed without icount (%d patched, %d vanilla "
              "boots): nanoseconds per operation, the fastest sub-batch of "
              "all rounds. Under TCG these move by tens of "
              "percent from boot to boot; no verdict is taken from them." %
              (len(PW.per_boot), len(VW.per_boot)), "",
              "| case | patched ns | vanilla ns |", "|---|---|---|"]
        for c in P.samples:
            p = fmt_n(getattr(PW, c)) if PW.has(c) else "-"
            v = fmt_n(getattr(VW, c)) if VW.has(c) else "-"
            o.append("| `%s` | %s | %s |" % (c, p, v))

    o += ["", "## All cases (%s per operation)" % unit, "",
          "The figure is the smallest sample. *spread*: (max - min) / min "
          "of the case's samples over all rounds and boots of the kernel; "
          "*boots*: the same over the per-boot figures; *events/op*: what the instance's buffer "
          "received per operation (1 recorded, 0 filtered), a check that "
          "each case does what it says.", "",
          "| case | patched | spread | boots | events/op | vanilla | spread | boots | events/op |",
          "|---|---|---|---|---|---|---|---|---|"]

    def pct(x):
        return "-" if x is None else "%.3f%%" % (x * 100)

    def evs(k, c):
        e = k.events.get(c)
        return "%.2f" % statistics.median(e) if e else "-"

    cases = list(P.samples) + [c for c in V.samples if c not in P.samples]
    for c in cases:
        row = ["`%s`" % c]
        for k in (P, V):
            if k.has(c):
                row += [fmt_n(getattr(k, c)), pct(k.spread(c)),
                        pct(k.boot_spread(c)), evs(k, c)]
            else:
                row += ["-", "-", "-", "-"]
        o.append("| " + " | ".join(row) + " |")
    reasons = {}
    for k in (P, V):
        for c, why in k.skips.items():
            reasons.setdefault((k.name, why), []).append(c)
    if reasons:
        o += ["", "Skipped: " + "; ".join(
            "on %s, %s (%s)" % (kn, ", ".join("`%s`" % c for c in cs), why)
            for (kn, why), cs in sorted(reasons.items())) + "."]
    print("\n".join(o))
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "--check":
        sys.exit(check(a[1]))
    if len(a) == 2 and a[0] == "--cases" and a[1] in ("P", "V"):
        sys.exit(list_cases(a[1]))
    if len(a) == 1 and not a[0].startswith("-"):
        sys.exit(main(a[0]))
    sys.exit(__doc__)
