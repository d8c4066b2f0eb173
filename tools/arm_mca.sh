#!/bin/sh
# Predicted (not measured) throughput of the float kernels' hot loops on Arm
# cores, from llvm-mca's scheduling models.
#
#   sh tools/arm_mca.sh            from the repository root; markdown on stdout
#
# 1. Compiles src/attention_f32.cc and src/linear_f32.cc per core with the
#    library's flags (LIB_CXXFLAGS in the Makefile: -O2, static dispatch) plus
#    -g, which GCC guarantees does not change the generated code: the debug
#    information only serves to name the loops.
# 2. Disassembles with inline information (objdump -dl --inlines) and finds
#    the single-basic-block loops (a backward branch with no other branch
#    between its target and itself). Each loop is named by the inline chain of
#    its instructions: ScorePanels<R, C> (S = Q K^T), WeightedValuesStrip<R, C>
#    (O += P V), LinearPanel<R, C> (projections), ExponentiateScores (softmax
#    exp). Per kernel the loop with the most FMAs is kept: the R x C grid.
# 3. Runs llvm-mca on each loop body and prints, per loop: instructions,
#    cycles (simulated, and llvm-mca's Block RThroughput), FMAs, cycles per
#    FMA, the pipes the FMAs issue to (read from llvm-mca's resource pressure
#    view, not assumed), their use, what bounds the loop, and any stack
#    (spill) loads or stores inside it.
#
# Cores and models (LLVM >= 17: LLVM 14's cortex-a76 and neoverse-v1 are both
# the Cortex-A57 model, which has no SVE at all):
#   Cortex-A76   NEON, -mcpu=cortex-a76. llvm-mca's cortex-a76 is still the
#                Cortex-A57 model, so the loops run on its neoverse-n1 model:
#                Neoverse N1 is the Cortex-A76 microarchitecture.
#   Neoverse-V1  SVE_256 (-mcpu=neoverse-v1 -msve-vector-bits=256), and the
#                vector-length-agnostic SVE build (-mcpu=neoverse-v1 alone,
#                what toolchains/aarch64-sve.mk makes), model neoverse-v1.
#   Cortex-M55   arm-none-eabi, the flags of toolchains/cortex-m55.mk. Highway
#                has no MVE target: the kernels are its SCALAR target (1 lane,
#                6 x 2 grid). The low-overhead loop end `le` has no llvm-mca
#                scheduling information and is left out of its input (the
#                core's loop cache runs it without an issue slot).
#
# Artefacts (objects, listings, each loop's .s and llvm-mca report) go to
# build/arm_mca/. LLVM_MCA=/path/to/llvm-mca overrides the llvm-mca found.
set -eu
cd "$(dirname "$0")/.."
OUT=build/arm_mca
mkdir -p "$OUT/sysinclude"
# Cross compilers must not see the host's /usr/include (Makefile: sysinclude).
ln -sfn /usr/include/hwy "$OUT/sysinclude/hwy"

# --- llvm-mca with the Neoverse N1 / V1 and Cortex-M55 models ---------------
mca_major() { "$1" --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p' | head -n 1; }
find_mca() {
  if [ -n "${LLVM_MCA:-}" ]; then echo "$LLVM_MCA"; return; fi
  for v in 21 20 19 18 17; do
    if command -v "llvm-mca-$v" >/dev/null 2>&1; then echo "llvm-mca-$v"; return; fi
  done
  if command -v llvm-mca >/dev/null 2>&1 && [ "$(mca_major llvm-mca)" -ge 17 ] 2>/dev/null; then
    echo llvm-mca
  fi
}
MCA=$(find_mca)
if [ -z "$MCA" ]; then
  echo "llvm-mca >= 17 not found (LLVM 14 models Cortex-A76 and Neoverse-V1 as a Cortex-A57" \
    "and has no SVE): installing Debian's llvm-19" >&2
  sh tools/install_deps.sh llvm-19 >&2
  MCA=llvm-mca-19
fi
sh tools/install_deps.sh g++-aarch64-linux-gnu binutils-aarch64-linux-gnu gcc-arm-none-eabi \
  binutils-arm-none-eabi libhwy-dev >&2

# --- compile ----------------------------------------------------------------
# LIB_CXXFLAGS without -Werror (a warning in code being edited must not stop
# the analysis), -fcallgraph-info and the dependency flags; plus -g.
LIB_FLAGS="-std=c++17 -O2 -DNDEBUG -Wall -Wextra -fno-exceptions -fno-rtti \
-fno-threadsafe-statics -ffunction-sections -fdata-sections -Iinclude -Isrc \
-isystem $OUT/sysinclude -DEDGEATTN_STATIC_DISPATCH -DHWY_COMPILE_ONLY_STATIC -g"
CM55_FLAGS="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -mfpu=auto"

# name|compiler|objdump|objdump options|core flags|mca triple|mca cpu|core shown
CONFIGS="a76|aarch64-linux-gnu-g++|aarch64-linux-gnu-objdump||-mcpu=cortex-a76|aarch64|neoverse-n1|Cortex-A76
v1-sve256|aarch64-linux-gnu-g++|aarch64-linux-gnu-objdump||-mcpu=neoverse-v1 -msve-vector-bits=256|aarch64|neoverse-v1|Neoverse-V1
v1-sve|aarch64-linux-gnu-g++|aarch64-linux-gnu-objdump||-mcpu=neoverse-v1|aarch64|neoverse-v1|Neoverse-V1
m55|arm-none-eabi-g++|arm-none-eabi-objdump|-m armv8.1-m.main|$CM55_FLAGS|thumbv8.1m.main-none-eabi|cortex-m55|Cortex-M55"
SOURCES="attention_f32 linear_f32"

# shellcheck disable=SC2086  # LIB_FLAGS and the core flags are word lists
compile() {  # compiler flags source object; one retry: the sources may be mid-edit
  if ! $1 $LIB_FLAGS $2 -c "src/$3.cc" -o "$4" 2>"$4.log"; then
    echo "compile of src/$3.cc ($2) failed, retrying in 60 s:" >&2
    tail -n 5 "$4.log" >&2
    sleep 60
    $1 $LIB_FLAGS $2 -c "src/$3.cc" -o "$4"
  fi
}

echo "$CONFIGS" | while IFS='|' read -r name cxx objdump dumpopts flags _ _ _; do
  mkdir -p "$OUT/$name"
  for s in $SOURCES; do
    compile "$cxx" "$flags" "$s" "$OUT/$name/$s.o" &
  done
  wait
  for s in $SOURCES; do
    # shellcheck disable=SC2086  # dumpopts is a word list
    "$objdump" -dlC --inlines --no-show-raw-insn $dumpopts "$OUT/$name/$s.o" >"$OUT/$name/$s.lis"
  done
done

# --- find the loops, run llvm-mca, print the table --------------------------
python3 - "$OUT" "$MCA" "$SOURCES" "$CONFIGS" <<'PY'
import os, re, subprocess, sys

out_dir, mca, sources = sys.argv[1], sys.argv[2], sys.argv[3].split()
configs = [l.split('|') for l in sys.argv[4].strip().split('\n')]

CONDS = 'eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al'
BRANCH = re.compile(r'^(b|b\.?(?:%s))(\.[nw])?$|^(cbz|cbnz|tbz|tbnz|le|letp)$' % CONDS)
FMA = re.compile(r'^(fmla|fmls|fmad|fmsb|fmadd|fmsub|fnmadd|fnmsub|vfma|vfms|vfnma|vfnms)(\.|$)')
LOAD = re.compile(r'^(ld|vld|ldr|ldp|ldm|pop)')
STORE = re.compile(r'^(st|vst|str|stp|stm|push)')
BCAST = re.compile(r'^(ld1r|dup|vdup|mov\b.*\[)')
STACK = re.compile(r'\[(sp|x29|r7)\b|^(push|pop|vpush|vpop)')
# (key, pattern over the inline chain's names, mangled or demangled, label)
ARGS = r'(?:IL[mj](\d+)EL[mj](\d+)E(?:Lb([01])E)?|<(\d+)u?l?, (\d+)u?l?(?:, (true|false))?)'
KERNELS = [
    ('score', re.compile(r'ScorePanels' + ARGS), 'score S = Q K^T'),
    ('pv', re.compile(r'WeightedValuesStrip' + ARGS), 'P V'),
    ('linear', re.compile(r'LinearPanel' + ARGS), 'linear x W^T'),
    ('exp', re.compile(r'ExponentiateScores'), 'softmax exp'),
]
LABELS = {k: label for k, _, label in KERNELS}
FUNC = re.compile(r'^[0-9a-f]+ <(.*)>:$')
INSN = re.compile(r'^\s+([0-9a-f]+):\t(\S+)\s*(.*)$')


def parse_listing(path):
    """Functions of an objdump -dl --inlines listing: name -> [(addr, mnemonic, operands, chain)]."""
    funcs, name, chain, fresh = {}, None, '', False
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = FUNC.match(line)
        if m:
            name, chain, fresh = m.group(1), '', False
            funcs[name] = []
            continue
        m = INSN.match(line)
        if m and name is not None:
            parts = re.split(r'\s+(?://|@|;)\s*', m.group(3), maxsplit=1)
            ops = parts[0].strip()
            if m.group(2).startswith('vmov.f') and len(parts) > 1:
                # objdump shows a VFP immediate encoded (#112 @ 0x3f800000 1.0): the value
                value = parts[1].split()[-1]
                ops = re.sub(r'#\d+$', '#' + value, ops)
            funcs[name].append((int(m.group(1), 16), m.group(2), ops, chain))
            fresh = False
            continue
        if name is None or not line.strip():
            continue
        # Location lines (file:line, inlined by ..., function():) between
        # instructions: a new block replaces the chain.
        if not fresh:
            chain, fresh = '', True
        chain += line + '\n'
    return funcs


def branch_target(mnemonic, ops):
    if not BRANCH.match(mnemonic):
        return None
    m = re.search(r'(?:^|,\s*|\s)([0-9a-f]+) <', ops)
    return int(m.group(1), 16) if m else None


def loops(funcs):
    """Loops as straight-line traces: (function, start, body, side exits), body ending in its
    backward branch. A single basic block has no other branch; a trace's other branches are
    conditional and all leave [start, end] (side exits: on the path measured none is taken)."""
    found = []
    for fname, insns in funcs.items():
        for i, (addr, mn, ops, _) in enumerate(insns):
            target = branch_target(mn, ops)
            if target is None or target > addr:
                continue
            body = [x for x in insns[:i + 1] if x[0] >= target]
            exits = 0
            for x in body[:-1]:
                t = branch_target(x[1], x[2])
                if t is None:
                    continue
                if target <= t <= addr or re.match(r'^b(\.[nw])?$', x[1]):
                    break
                exits += 1
            else:
                found.append((fname, target, body, exits))
    return found


def classify(fname, body):
    fmas = [x for x in body if FMA.match(x[1])]
    chains = fname + '\n' + ''.join(x[3] for x in (fmas or body))
    for key, pattern, label in KERNELS:
        m = pattern.search(chains)
        if m:
            if key == 'exp':
                return key, label, 'exp(x), 1 vector'
            g = m.groups()
            rows, cols, partial = (g[0], g[1], g[2]) if g[0] else (g[3], g[4], g[5])
            shape = '%s x %s' % (rows, cols)
            if partial in ('1', 'true'):
                shape += ' partial'
            return key, label, shape
    return None


# No scheduling information in llvm-mca 19's Cortex-M55 model (and its
# -skip-unsupported-instructions crashes on them): left out of the input, and said so.
# le: the low-overhead loop end; vmrs APSR_nzcv, fpscr: FP flags to the core flags.
UNSCHEDULED = {'le', 'letp', 'vmrs'}


def mca_source(body):
    lines = ['.Lloop:']
    dropped = []
    for i, (_, mn, ops, _) in enumerate(body):
        if branch_target(mn, ops) is not None:
            if mn in UNSCHEDULED:
                dropped.append(mn)
                continue
            ops = re.sub(r'[0-9a-f]+ <.*>$', '.Lloop' if i == len(body) - 1 else '.Lexit', ops)
        elif mn in UNSCHEDULED:
            dropped.append(mn)
            continue
        else:  # an address operand (adrp of a constant in a relocatable object)
            ops = re.sub(r'\b[0-9a-f]+ <.*>$', 'konst', ops)
        lines.append('\t%s\t%s' % (mn, ops))
    lines.append('.Lexit:')
    return '\n'.join(lines) + '\n', dropped


POST_INDEX_STORE = re.compile(
    r'^(\t(?:st[1-4]?[a-z]*|stp|str[bhd]?)(?:\.w)?\t.*)\[(x\d+|sp|r\d+)\], #?(-?[0-9a-fx]+)$', re.M)


def split_post_index(text):
    """The same loop with each post-indexed store's base update as its own add: llvm-mca
    issues an instruction once all its operands are ready, so a post-indexed store's base
    update waits for the store data and serialises the iterations behind it; the cores split
    address and data into separate micro-ops."""
    return POST_INDEX_STORE.subn(lambda m: '%s[%s]\n\tadd\t%s, %s, #%s' % (
        m.group(1), m.group(2), m.group(2), m.group(2), m.group(3)), text)


def run_mca(src_path, triple, cpu, report_path):
    cmd = [mca, '-mtriple=' + triple, '-mcpu=' + cpu, '-iterations=1000', src_path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    open(report_path, 'w').write(r.stdout + r.stderr)
    if r.returncode != 0:
        return None, ([l for l in r.stderr.split('\n') if l.strip()] or ['llvm-mca failed'])[-1]
    return parse_mca(r.stdout), None


def parse_mca(text):
    res = {}
    for key, pat in [('iterations', r'Iterations:\s+(\d+)'), ('instructions', r'Instructions:\s+(\d+)'),
                     ('cycles', r'Total Cycles:\s+(\d+)'), ('uops', r'Total uOps:\s+(\d+)'),
                     ('width', r'Dispatch Width:\s+(\d+)'), ('rthroughput', r'Block RThroughput:\s+([\d.]+)')]:
        res[key] = float(re.search(pat, text).group(1))
    lines = text.split('\n')
    # Instruction Info: uops, latency, reciprocal throughput, flags, the instruction.
    res['latency'] = []
    i = next(k for k, l in enumerate(lines) if l.startswith('[1]') and 'Instructions:' in l) + 1
    while lines[i].strip():
        m = re.match(r'\s*(\d+)\s+(\d+)\s+([\d.]+)\s+(?:[*U]\s+)*(\S.*)$', lines[i])
        if m:
            res['latency'].append((int(m.group(2)), m.group(4)))
        i += 1
    units = []
    i = lines.index('Resources:') + 1
    while lines[i].strip():
        m = re.match(r'\[([\d.]+)\]\s+-\s+(\S+)', lines[i])
        units.append((m.group(1), m.group(2)))
        i += 1
    n = len(units)

    def values(tokens):
        return [0.0 if t == '-' else float(t) for t in tokens[:n]]

    i = lines.index('Resource pressure per iteration:') + 2
    res['pressure'] = values(lines[i].split())
    i = lines.index('Resource pressure by instruction:') + 2
    rows = []
    while i < len(lines) and lines[i].strip():
        tokens = lines[i].split()
        rows.append((values(tokens), ' '.join(tokens[n:])))
        i += 1
    res['units'], res['rows'] = units, rows
    return res


IN_ORDER = {'cortex-m55'}  # llvm-mca models these cores in order


def analyse(body, stats, lanes, cpu):
    iters = stats['iterations']
    cyc = stats['cycles'] / iters
    n_insn = len(body)
    fmas = sum(1 for x in body if FMA.match(x[1]))
    units = stats['units']
    fma_cols = set()
    for vals, text in stats['rows']:
        if FMA.match(text.split()[0] if text else ''):
            fma_cols.update(j for j, v in enumerate(vals) if v > 0)
    pipes = sorted(fma_cols)
    pipe_names = '/'.join(units[j][1] for j in pipes)
    # What bounds the loop: the busiest unit, dispatch, or neither (latency).
    pressure = stats['pressure']
    busiest = max(range(len(pressure)), key=lambda j: pressure[j])
    dispatch = stats['uops'] / iters / stats['width']
    ipc = stats['instructions'] / stats['cycles']
    if cyc <= 1.05 * pressure[busiest] and pressure[busiest] >= dispatch:
        busy = [j for j, v in enumerate(pressure) if v >= 0.98 * pressure[busiest]]
        fma_share = sum(sum(v[j] for j in fma_cols) for v, t in stats['rows']
                        if t and FMA.match(t.split()[0])) / max(sum(pressure[j] for j in fma_cols), 1e-9)
        kind = ('FMA pipes' if fma_share > 0.5 else 'FP pipes') if set(busy) <= fma_cols else \
            'load/store pipes' if all(re.match(r'(L|Load|D$)', units[j][1].split('Unit')[-1])
                                      for j in busy) else 'units'
        bound = '%s (%s %.0f%%)' % (kind, '/'.join(sorted({units[j][1] for j in busy})),
                                   100 * pressure[busiest] / cyc)
    elif cyc <= 1.05 * dispatch:
        bound = 'dispatch (%d wide)' % stats['width']
    elif cpu in IN_ORDER:
        bound = 'in-order issue (model: %.2f instr/cycle; busiest unit %.0f%%)' % (
            ipc, 100 * pressure[busiest] / cyc)
    else:
        bound = 'dependencies (busiest unit %.0f%%)' % (100 * pressure[busiest] / cyc)
    fma_lat = [lat for lat, t in stats['latency'] if FMA.match(t.split()[0])]
    fma_pipe_busy = sum(pressure[j] for j in pipes) / (len(pipes) * cyc) if pipes else 0.0
    stack_ld = sum(1 for x in body if STACK.search(x[2]) and LOAD.match(x[1]))
    stack_st = sum(1 for x in body if STACK.search(x[2]) and STORE.match(x[1]))
    return {
        'fma_lat': max(fma_lat) if fma_lat else None,
        'insns': n_insn, 'cyc': cyc, 'rthr': stats['rthroughput'], 'fmas': fmas,
        'cyc_fma': cyc / fmas if fmas else None, 'pipes': len(pipes), 'pipe_names': pipe_names,
        'use': fmas / cyc / len(pipes) if pipes else None, 'pipe_busy': fma_pipe_busy,
        'flops': 2.0 * lanes * fmas / cyc, 'floats': lanes / cyc, 'bound': bound,
        'spills': 'none' if not (stack_ld or stack_st) else '%d ld + %d st' % (stack_ld, stack_st),
        'loads': sum(1 for x in body if LOAD.match(x[1])),
        'stores': sum(1 for x in body if STORE.match(x[1])),
        'bcasts': sum(1 for x in body if BCAST.match(x[1] + ' ' + x[2])),
    }


TARGET_LANES = {'N_NEON': ('NEON', 4), 'N_SVE_256': ('SVE_256', 8), 'N_SVE2_128': ('SVE2_128', 4),
                'N_SVE': ('SVE', None), 'N_SVE2': ('SVE2', None), 'N_SCALAR': ('SCALAR', 1)}

rows, notes, builds = [], [], []
for name, cxx, objdump, dumpopts, flags, triple, cpu, core in configs:
    target, lanes = '?', 1
    picked = {}
    for src in sources:
        funcs = parse_listing(os.path.join(out_dir, name, src + '.lis'))
        for fname in funcs:
            m = re.search(r'::(N_[A-Z0-9_]+)::', fname)
            if m and m.group(1) in TARGET_LANES:
                target, lanes = TARGET_LANES[m.group(1)]
        if lanes is None:  # vector-length agnostic SVE: the core's 256 bits
            lanes = 8
        for fname, start, body, exits in loops(funcs):
            c = classify(fname, body)
            if not c:
                continue
            key, label, shape = c
            n_fma = sum(1 for x in body if FMA.match(x[1]))
            conditional = not re.match(r'^b(\.[nw])?$', body[-1][1])
            # The grid loop has the most FMAs; then a single block over a trace, a
            # conditional back edge over an unconditional one, the shorter, the first.
            rank = (n_fma, exits == 0, conditional, -len(body))
            best = picked.get(key)
            if best is None or rank > best[0]:
                picked[key] = (rank, label, shape, src, fname, start, body, exits)
    builds.append('- %s, %s: `%s %s`' % (core, target, cxx, flags))
    for key, _, _ in KERNELS:
        if key not in picked:
            rows.append([core, target, LABELS[key], 'no such loop found'] + ['-'] * 10)
            continue
        _, label, shape, src, fname, start, body, exits = picked[key]
        stem = os.path.join(out_dir, name, key)
        text, dropped = mca_source(body)
        open(stem + '.s', 'w').write(text)
        stats, err = run_mca(stem + '.s', triple, cpu, stem + '.mca.txt')
        where = '%s: %s+0x%x' % (src, fname[:110], start)
        split_text, n_split = split_post_index(text)
        split_cell, split_note, primary_split = '', None, False
        if n_split:
            open(stem + '.split.s', 'w').write(split_text)
            split_stats, split_err = run_mca(stem + '.split.s', triple, cpu, stem + '.split.mca.txt')
            if stats is None and split_stats is not None:
                # llvm-mca 19 aborts on Cortex-M55's post-indexed str.w: the split loop is
                # all there is.
                stats, split_stats, primary_split = split_stats, None, True
        if stats is None:
            rows.append([core, target, label, shape] + ['llvm-mca: ' + err] + ['-'] * 10)
            continue
        a = analyse(body, stats, lanes, cpu)
        if primary_split:
            split_cell = ' (post-indexed store split**)'
            split_note = ('- ** %s %s %s: llvm-mca (%s) fails on the loop as compiled (%s); the '
                          'row models it with each of its %d post-indexed store(s) split into a '
                          'store and an add of the base (%s.split.{s,mca.txt}).'
                          % (core, target, label, cpu, err, n_split, stem))
        elif n_split and split_stats:
            split_cyc = split_stats['cycles'] / split_stats['iterations']
            split_cell = '; %.2f with the post-indexed store split*' % split_cyc
            if split_cyc < 0.8 * a['cyc']:
                b = analyse(body, split_stats, lanes, cpu)
                a['bound'] = 'post-indexed store (model artefact*); split: %s' % b['bound']
            split_note = ('- * %s %s %s: %d post-indexed store(s) in the loop: llvm-mca issues '
                          'an instruction once all its operands are ready, so the store\'s '
                          'base update waits for its data and serialises the iterations. '
                          'With the update as a separate add (the core splits store address '
                          'and data into separate micro-ops) the model predicts %.2f '
                          'cycles/iter, %.3f cycles/FMA, %.2f floats/cyc (%s.split.{s,mca.txt}).'
                          % (core, target, label, n_split, split_cyc,
                             split_cyc / a['fmas'] if a['fmas'] else 0, lanes / split_cyc, stem))
        work = '%.1f FLOP/cyc' % a['flops'] if key != 'exp' else '%.2f floats/cyc' % a['floats']
        rows.append([
            '%s (`%s`)' % (core, cpu), '%s, %d lane%s' % (target, lanes, 's' if lanes > 1 else ''),
            label, shape, str(a['insns']), '%.2f (%.2f)%s' % (a['cyc'], a['rthr'], split_cell),
            str(a['fmas']), '%.3f' % a['cyc_fma'] if a['cyc_fma'] else '-',
            '%d (%s)' % (a['pipes'], a['pipe_names']) if a['pipes'] else '-',
            ('%d x %d = %d accumulators needed' % (a['fma_lat'], a['pipes'], a['fma_lat'] * a['pipes'])
             if key != 'exp' else '%d-cycle FMAs in a dependent chain' % a['fma_lat'])
            if a['fma_lat'] and a['pipes'] else '-',
            '%.0f%%' % (100 * a['use']) if a['use'] is not None else '-',
            work, a['bound'], a['spills']])
        extra = ''
        if exits:
            extra += '; a trace with %d side exit(s), none taken on the path modelled' % exits
        if dropped:
            extra += '; left out of the llvm-mca input (no scheduling information): %s' % (
                ', '.join('%d `%s`' % (dropped.count(m), m) for m in sorted(set(dropped))))
        notes.append('- %s %s %s: `%s`; %d loads (%d broadcasts), %d stores; the FMA pipes are '
                     'busy %.0f%% of the cycles with everything they run%s; files %s.{s,mca.txt}'
                     % (core, target, label, where, a['loads'], a['bcasts'], a['stores'],
                        100 * a['pipe_busy'], extra, stem))
        if split_note:
            notes.append(split_note)

header = ['core (llvm-mca model)', 'build', 'loop', 'grid', 'insns/iter', 'cycles/iter (RThroughput)',
          'FMAs/iter', 'cycles/FMA', 'FMA pipes (pressure view)', 'FMA latency x pipes',
          'FMA-pipe use', 'throughput', 'bound by', 'spills in loop']
print('| ' + ' | '.join(header) + ' |')
print('|' + '---|' * len(header))
for r in rows:
    print('| ' + ' | '.join(r) + ' |')
print()
print('llvm-mca: `%s` (%s), 1000 iterations per loop. Loops found:' % (
    mca, re.search(r'LLVM version [\d.]+', subprocess.run([mca, '--version'], capture_output=True,
                                                 text=True).stdout).group(0)))
print('\n'.join(notes))
print()
print('Builds (plus the library flags, static dispatch, -O2 -g):')
print('\n'.join(builds))
PY
