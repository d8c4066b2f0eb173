#!/bin/sh
# Predicted (not measured) throughput of the hot loops of the float and int8
# kernels on Arm cores and on Intel's AVX-512 server core, from llvm-mca's
# scheduling models.
#
#   sh tools/arm_mca.sh            from the repository root; markdown on stdout
#
# 1. Compiles src/kernels/f32/attention_f32.cc and src/kernels/f32/linear_f32.cc per core, and for the
#    int8 kernels src/kernels/int/int_kernels.cc (plus, on Arm,
#    src/kernels/int/softmax_s8.cc: the scalar int8 softmax that its NEON and
#    SVE paths call), with the library's flags (LIB_CXXFLAGS in the Makefile:
#    -O2, static dispatch) plus -g, which GCC guarantees does not change the
#    generated code: the debug information only serves to name the loops.
# 2. Disassembles with inline information (objdump -dl --inlines) and finds
#    the single-basic-block loops (a backward branch with no other branch
#    between its target and itself; a body that returns is no loop). Each loop
#    is named by the inline chain of its instructions: ScorePanels<R, C>
#    (S = Q K^T), WeightedValuesStrip<R, C> (O += P V), LinearPanel<R, C>
#    (projections), ExponentiateScores (softmax exp). Per kernel the loop with
#    the most FMAs is kept: the R x C grid (among equals, the one with the
#    most rows: x86's 3 x 8 P V strip, taken for d_v >= 128, has as many FMAs
#    as the 6 x 4 grid that d = 64 runs).
# 3. Runs llvm-mca on each loop body and prints, per loop: instructions,
#    cycles (simulated, and llvm-mca's Block RThroughput), FMAs, cycles per
#    FMA, the pipes the FMAs issue to (read from llvm-mca's resource pressure
#    view, not assumed; on x86 not the load ports that an FMA with a memory
#    operand also uses), their use, what bounds the loop, and any stack
#    (spill) loads or stores inside it.
# 4. Whole key block, float prefill (a prediction built from step 3, not a
#    simulation of the block): one micro tile of R query rows against one key
#    block of B_c = kScoreTileKeys = 256 keys (edgeattn/arena_sizes.hpp; see
#    src/kernels/f32/attention_f32-inl.h), d = d_k = d_v = 64, L float lanes, C vectors
#    per grid strip (R x C: the score grid the table reports):
#      score iterations  d * B_c / (C L)      (B_c / (C L) strips of d steps)
#      exp iterations    R * B_c / L          (one vector of scores each)
#      P V iterations    B_c * ceil(d / (C L)) (d / (C L) strips of B_c steps)
#      cycles = the sum of each count times its loop's cycles per iteration
#      share of FMA peak = (2 R B_c d / L FMAs / FMA pipes) / cycles
#    Left out, so the share is an upper bound: the block-maximum pass, the
#    per-row rescale, the grid epilogues (scale and store; output rescale),
#    and everything between the loops. The FMA pipes are the model's, read
#    from the pressure view (so are their counts in the share). An exp loop
#    whose row is a post-indexed-store artefact enters with its split figure.
# 5. int8 (a second table): the dot-product loop, counting the dot-product
#    instructions (vpdpbusd, sdot, udot) as the "MAC" instructions instead of
#    FMAs, and the int8 softmax passes (max, sum of exponentials,
#    probabilities) and requantisation epilogues where each is a loop of its
#    own (single basic block, or a trace whose other branches leave it):
#      x86 AVX3_DL  vnni::Tile<R, V, signed> (vnni_tile-inl.h): R rows of A
#                   broadcast against V vectors of 16 packed columns, one
#                   vpdpbusd per cell per 4 bytes of depth; <6, 4, true>
#                   serves Q K^T and x W^T (A int8 as vpdpbusd's signed
#                   operand, panels of B + 128 as its unsigned one),
#                   <6, 4, false> P V (A = p + 128 unsigned, V signed).
#                   Softmax: vnni::SoftmaxS8Row and SumOfExponentials
#                   (avx512_requantize-inl.h), 64 scores per vector (a
#                   loop whose vpdpbusd come from AddBytes is a softmax
#                   sum, not a grid); the requantisation of a tile row
#                   (vnni::StoreRequantizedRow, 64 outputs) where it is
#                   a loop of its own (since 0.15.5 it is straight-line
#                   code per row, so the notes say no loop was found).
#      Arm NEON     DotS8x2x4RawNeonSdot, DotS8x4RawNeonSdot and
#      +dotprod     DotS8x4NeonSdot (arm_dot_product-inl.h; on when GCC
#                   defines __ARM_FEATURE_DOTPROD, as -mcpu=cortex-a76 and
#                   -mcpu=cortex-a55 do, like toolchains/aarch64-dotprod.mk's
#                   -march=armv8.2-a+dotprod): one or two A rows against 4 B
#                   rows, 16 bytes per step. The raw loops (Q K^T and x W^T
#                   of calls with several rows, the zero-point sums hoisted
#                   out) have 8 SDOTs from 6 loads (two rows: pairs of query
#                   or input rows) or 4 from 5 (one row: the last row of an
#                   odd count, keys only one row of a causal pair sees), all
#                   A.B products (P V of row pairs too, its offsets hoisted
#                   the same way); DotS8x4 (P V of single rows)
#                   has 9, of which 5 sum A and B against a vector of ones;
#                   "A.B" in the table: dot instructions whose two sources
#                   both change in the loop.
#      Arm SVE      DotS8x2x4RawSveSdot, DotS8x4RawSveSdot and
#                   DotS8x4SveSdot, the same with
#                   predicated SVE SDOT.
#      Softmax on Arm: SoftmaxS8Row (softmax_s8.cc), scalar table lookups.
#      KV cache     the int8 record steps of src/kv_cache/decode_attention_s8.cc:
#                   ScoreRecordS8Sdot / AccumulateRecordS8Sdot on Arm
#                   (int8_dots_sdot-inl.h: a query row's broadcast quad against
#                   four vectors of key quads; the weight codes against two
#                   vectors of value quads, flipped to v + 128 for UDOT) and
#                   ScoreRecordS8Vnni / AccumulateRecordS8Vnni on AVX3_DL.
#    The M55's int8 kernels are hand-written Helium loops (bench/README.md
#    covers them), so the M55 has no int8 rows.
#
# Cores and models (LLVM >= 17: LLVM 14's cortex-a76 and neoverse-v1 are both
# the Cortex-A57 model, which has no SVE at all):
#   Cortex-A76   NEON, -mcpu=cortex-a76. llvm-mca's cortex-a76 is still the
#                Cortex-A57 model, so the loops run on its neoverse-n1 model:
#                Neoverse N1 is the Cortex-A76 microarchitecture.
#   Cortex-A55   NEON, -mcpu=cortex-a55 (GCC's A55 tuning; dotprod), model
#                cortex-a55: an in-order model, so loops that are neither
#                pipe- nor dispatch-bound read "in-order issue".
#   Neoverse-V1  SVE_256 (-mcpu=neoverse-v1 -msve-vector-bits=256), and the
#                vector-length-agnostic SVE build (-mcpu=neoverse-v1 alone,
#                what toolchains/aarch64-sve.mk makes), model neoverse-v1.
#   Cortex-M55   arm-none-eabi, the flags of toolchains/cortex-m55.mk.
#                Highway has no MVE target: the library runs its SCALAR
#                target there, and the float grids are the Helium loops of
#                src/kernels/f32/cortex_m_f32-inl.h, which this script does not name (their
#                rows read "no such loop found"); the exp row is SCALAR code.
#                The low-overhead loop end `le` has no llvm-mca scheduling
#                information and is left out of its input (the core's loop
#                cache runs it without an issue slot).
#   Sapphire     x86-64 AVX-512, host g++ and objdump: -march=sapphirerapids
#   Rapids       -DHWY_WANT_AVX3_DL (Highway 1.0.3 stops with an #error in
#                detect_targets.h for that -march without HWY_WANT_AVX3_DL;
#                with it the static target is AVX3_DL, the one whose int8
#                kernels use VNNI), model sapphirerapids, or icelake-server
#                where an llvm-mca lacks it. Which ports run the zmm FMAs is
#                read from the pressure view like everything else: LLVM 19's
#                sapphirerapids (and emeraldrapids) model issues zmm
#                vfmadd*ps, vmulps and vpdpbusd to port 0 only and zmm vaddps
#                to port 5, i.e. one 512-bit FMA pipe, where the Xeon part
#                has two (ports 0 and 5; bench/cpu_identity.cc). So the x86
#                rows also carry, in the notes and the whole-block lines, the
#                same loops on llvm-mca's skylake-avx512 model, which issues
#                zmm FMAs to ports 0 and 5.
#                x86 FMAs are vfmadd231ps / vfmadd213ps / vfnmadd... (any
#                vf[n]m{add,sub}{132,213,231}{p,s}{s,d}); loops end in a
#                backward jcc.
#
# Artefacts (objects, listings, each loop's .s and llvm-mca report) go to
# build/arm_mca/. LLVM_MCA=/path/to/llvm-mca overrides the llvm-mca found.
set -eu
cd "$(dirname "$0")/.."
OUT=build/arm_mca
mkdir -p "$OUT/sysinclude"
# Cross compilers must not see the host's /usr/include (Makefile: sysinclude).
ln -sfn /usr/include/hwy "$OUT/sysinclude/hwy"

# --- llvm-mca with the Neoverse N1 / V1, Cortex-A55/M55 and x86 models ------
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
  binutils-arm-none-eabi libhwy-dev g++ binutils >&2
# Intel's server core: the sapphirerapids model where this llvm-mca has it.
X86_CPU=icelake-server
if "$MCA" -mtriple=x86_64 -mcpu=help 2>&1 | grep -q '^ *sapphirerapids '; then
  X86_CPU=sapphirerapids
fi

# --- compile ----------------------------------------------------------------
# LIB_CXXFLAGS without -Werror (a warning in code being edited must not stop
# the analysis), -fcallgraph-info and the dependency flags; plus -g.
LIB_FLAGS="-std=c++17 -O2 -DNDEBUG -Wall -Wextra -fno-exceptions -fno-rtti \
-fno-threadsafe-statics -ffunction-sections -fdata-sections -Iinclude -Isrc \
-isystem $OUT/sysinclude -DEDGEATTN_STATIC_DISPATCH -DHWY_COMPILE_ONLY_STATIC -g"
CM55_FLAGS="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -mfpu=auto"
# toolchains/host.mk's define for AVX3_DL; Highway 1.0.3 needs it with this -march.
X86_FLAGS="-march=sapphirerapids -DHWY_WANT_AVX3_DL"
ARM_INT8="kernels/int/int_kernels kernels/int/softmax_s8 kv_cache/decode_attention_s8"
# The AVX3_DL softmax is vnni::SoftmaxS8Row, inside int_kernels.o.
X86_INT8="kernels/int/int_kernels kv_cache/decode_attention_s8"

# name|compiler|objdump|objdump options|core flags|mca triple|mca cpu|core shown|int8 sources
CONFIGS="a76|aarch64-linux-gnu-g++|aarch64-linux-gnu-objdump||-mcpu=cortex-a76|aarch64|neoverse-n1|Cortex-A76|$ARM_INT8
a55|aarch64-linux-gnu-g++|aarch64-linux-gnu-objdump||-mcpu=cortex-a55|aarch64|cortex-a55|Cortex-A55|$ARM_INT8
v1-sve256|aarch64-linux-gnu-g++|aarch64-linux-gnu-objdump||-mcpu=neoverse-v1 -msve-vector-bits=256|aarch64|neoverse-v1|Neoverse-V1|$ARM_INT8
v1-sve|aarch64-linux-gnu-g++|aarch64-linux-gnu-objdump||-mcpu=neoverse-v1|aarch64|neoverse-v1|Neoverse-V1|$ARM_INT8
m55|arm-none-eabi-g++|arm-none-eabi-objdump|-m armv8.1-m.main|$CM55_FLAGS|thumbv8.1m.main-none-eabi|cortex-m55|Cortex-M55|
spr|g++|objdump||$X86_FLAGS|x86_64|$X86_CPU|Sapphire Rapids|$X86_INT8"
SOURCES="attention_f32 linear_f32"

# shellcheck disable=SC2086  # LIB_FLAGS and the core flags are word lists
compile() {  # compiler flags source object; one retry: the sources may be mid-edit
  rm -f "$4"  # never analyse an object left by an earlier run
  if ! $1 $LIB_FLAGS $2 -c "src/$3.cc" -o "$4" 2>"$4.log"; then
    echo "compile of src/$3.cc ($2) failed, retrying in 60 s:" >&2
    tail -n 5 "$4.log" >&2
    sleep 60
    $1 $LIB_FLAGS $2 -c "src/$3.cc" -o "$4"
  fi
}

# Objects and listings are named by the source's base name (int_kernels.lis).
echo "$CONFIGS" | while IFS='|' read -r name cxx objdump dumpopts flags _ _ _ int8; do
  mkdir -p "$OUT/$name"
  n=0
  for s in $SOURCES $int8; do  # two at a time
    compile "$cxx" "$flags" "$s" "$OUT/$name/${s##*/}.o" &
    n=$((n + 1))
    if [ $((n % 2)) -eq 0 ]; then wait; fi
  done
  wait
  for s in $SOURCES $int8; do
    if [ ! -f "$OUT/$name/${s##*/}.o" ]; then
      echo "arm_mca: src/$s.cc does not compile for $name (see $OUT/$name/${s##*/}.o.log)" >&2
      exit 1
    fi
    # shellcheck disable=SC2086  # dumpopts is a word list
    "$objdump" -dlC --inlines --no-show-raw-insn $dumpopts "$OUT/$name/${s##*/}.o" \
      >"$OUT/$name/${s##*/}.lis"
  done
done

# --- find the loops, run llvm-mca, print the tables -------------------------
python3 - "$OUT" "$MCA" "$SOURCES" "$CONFIGS" <<'PY'
import math, os, re, subprocess, sys

out_dir, mca, sources = sys.argv[1], sys.argv[2], sys.argv[3].split()
configs = [l.split('|') for l in sys.argv[4].strip().split('\n')]

CONDS = 'eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al'
# Arm branches, and x86's jcc and jmp.
BRANCH = re.compile(r'^(b|b\.?(?:%s))(\.[nw])?$|^(cbz|cbnz|tbz|tbnz|le|letp)$|^j[a-z]+$' % CONDS)
UNCONDITIONAL = re.compile(r'^(b(\.[nw])?|jmp)$')
RETURN = re.compile(r'^(ret[a-z]*|bx|pop\.?w?)$')
FMA = re.compile(r'^(fmla|fmls|fmad|fmsb|fmadd|fmsub|fnmadd|fnmsub|vfma|vfms|vfnma|vfnms)(\.|$)'
                 r'|^vfn?m(add|sub)(132|213|231)[ps][sd]$')
# The int8 dot products ("MAC" instructions of the int8 table): 4 byte products per
# 32-bit lane each.
MAC = re.compile(r'^(sdot|udot|usdot|sudot|vpdpbusds?)$')
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
# objdump's comment after the operands: Arm // @ ;, x86 #.
COMMENT = {'arm': re.compile(r'\s+(?://|@|;)\s*'), 'x86': re.compile(r'\s+#\s*')}


def parse_listing(path, arch='arm'):
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
            parts = COMMENT[arch].split(m.group(3), maxsplit=1)
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


def returns(x):
    """A return (ret; Thumb's bx lr or a pop into pc)."""
    return bool(RETURN.match(x[1])) and (x[1].startswith('ret') or 'lr' in x[2] or 'pc' in x[2])


def loops(funcs):
    """Loops as straight-line traces: (function, start, body, side exits), body ending in its
    backward branch. A single basic block has no other branch; a trace's other branches are
    conditional and all leave [start, end] (side exits: on the path measured none is taken).
    A body that returns is no loop (code reached by a backward jump)."""
    found = []
    for fname, insns in funcs.items():
        for i, (addr, mn, ops, _) in enumerate(insns):
            target = branch_target(mn, ops)
            if target is None or target > addr:
                continue
            body = [x for x in insns[:i + 1] if x[0] >= target]
            exits = 0
            for x in body[:-1]:
                if returns(x):
                    break
                t = branch_target(x[1], x[2])
                if t is None:
                    continue
                if target <= t <= addr or UNCONDITIONAL.match(x[1]):
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


# --- operands, loads and stores: Arm by mnemonic, x86 (AT&T) by operand -----
def x86_operands(ops):
    """AT&T operands split at the commas outside (...) and {...}."""
    out, depth, cur = [], 0, ''
    for ch in ops:
        depth += ch in '({'
        depth -= ch in ')}'
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


X86_NO_ACCESS = re.compile(r'^(lea|nop|j|call|prefetch)')
X86_READS_LAST = re.compile(r'^(cmp|test|bt|ucomis|comis|vptest|kortest)')


def is_load(x, arch):
    if arch != 'x86':
        return bool(LOAD.match(x[1]))
    if X86_NO_ACCESS.match(x[1]):
        return False
    if x[1].startswith('pop'):
        return True
    o = x86_operands(x[2])
    return any('(' in p for p in o[:-1]) or (bool(o) and '(' in o[-1] and (
        len(o) == 1 or X86_READS_LAST.match(x[1]) is not None))


def is_store(x, arch):
    if arch != 'x86':
        return bool(STORE.match(x[1]))
    if X86_NO_ACCESS.match(x[1]) or X86_READS_LAST.match(x[1]):
        return False
    if x[1].startswith('push'):
        return True
    o = x86_operands(x[2])
    return len(o) >= 2 and '(' in o[-1]


def is_broadcast(x, arch):
    if arch != 'x86':
        return bool(BCAST.match(x[1] + ' ' + x[2]))
    return bool(re.match(r'^vp?broadcast', x[1])) or '{1to' in x[2]


def on_stack(x, arch, frame_pointer):
    if arch != 'x86':
        return bool(STACK.search(x[2]))
    return bool(re.search(r'\(%rsp\b', x[2]) or (frame_pointer and re.search(r'\(%rbp\b', x[2])))


def uses_frame_pointer(insns):
    """x86: %rbp is the frame pointer (not a general register) in this function."""
    return any(mn.startswith('mov') and ops.replace(' ', '') == '%rsp,%rbp'
               for _, mn, ops, _ in insns)


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


IN_ORDER = {'cortex-m55', 'cortex-a55'}  # llvm-mca models these cores in order
# x86 ports that only load or store (Sapphire Rapids: 2 3 11 load, 4 9 store data,
# 7 8 store address; Ice Lake / Skylake server likewise).
X86_LS_PORTS = re.compile(r'^(SPRPort(02|03|04|07|08|09|11)|ICXPort[234789]|SKXPort[2347])$')


def load_store_unit(name):
    return bool(re.match(r'(L|Load|D$)', name.split('Unit')[-1]) or X86_LS_PORTS.match(name))


def analyse(body, stats, lanes, cpu, arch='arm', frame_pointer=False, op=FMA):
    """op: what counts as the loop's work instruction (FMA; MAC for the int8 table)."""
    iters = stats['iterations']
    cyc = stats['cycles'] / iters
    n_insn = len(body)
    fmas = sum(1 for x in body if op.match(x[1]))
    units = stats['units']
    fma_cols = set()
    for vals, text in stats['rows']:
        if op.match(text.split()[0] if text else ''):
            # not the load ports of an x86 FMA with a memory operand
            fma_cols.update(j for j, v in enumerate(vals)
                            if v > 0 and not load_store_unit(units[j][1]))
    pipes = sorted(fma_cols)
    names = [units[j][1] for j in pipes]
    # Units of one name (the Cortex-A55's two FPMAC) told apart by their index.
    pipe_names = '/'.join(n if names.count(n) == 1 else '%s[%s]' % (n, units[j][0])
                          for j, n in zip(pipes, names))
    # What bounds the loop: the busiest unit, dispatch, or neither (latency).
    pressure = stats['pressure']
    busiest = max(range(len(pressure)), key=lambda j: pressure[j])
    dispatch = stats['uops'] / iters / stats['width']
    ipc = stats['instructions'] / stats['cycles']
    if cyc <= 1.05 * pressure[busiest] and pressure[busiest] >= dispatch:
        busy = [j for j, v in enumerate(pressure) if v >= 0.98 * pressure[busiest]]
        fma_share = sum(sum(v[j] for j in fma_cols) for v, t in stats['rows']
                        if t and op.match(t.split()[0])) / max(sum(pressure[j] for j in fma_cols), 1e-9)
        kind = ('FMA pipes' if fma_share > 0.5 else 'FP pipes') if set(busy) <= fma_cols else \
            'load/store pipes' if all(load_store_unit(units[j][1]) for j in busy) else 'units'
        if op is MAC and kind == 'FMA pipes':
            kind = 'dot-product pipes'
        elif op is MAC and kind == 'FP pipes':
            kind = 'vector pipes'
        bound = '%s (%s %.0f%%)' % (kind, '/'.join(sorted({units[j][1] for j in busy})),
                                   100 * pressure[busiest] / cyc)
    elif cyc <= 1.05 * dispatch:
        bound = 'dispatch (%d wide)' % stats['width']
    elif cpu in IN_ORDER:
        bound = 'in-order issue (model: %.2f instr/cycle; busiest unit %.0f%%)' % (
            ipc, 100 * pressure[busiest] / cyc)
    else:
        bound = 'dependencies (busiest unit %.0f%%)' % (100 * pressure[busiest] / cyc)
    fma_lat = [lat for lat, t in stats['latency'] if op.match(t.split()[0])]
    fma_pipe_busy = sum(pressure[j] for j in pipes) / (len(pipes) * cyc) if pipes else 0.0
    stack_ld = sum(1 for x in body if on_stack(x, arch, frame_pointer) and is_load(x, arch))
    stack_st = sum(1 for x in body if on_stack(x, arch, frame_pointer) and is_store(x, arch))
    return {
        'fma_lat': max(fma_lat) if fma_lat else None,
        'insns': n_insn, 'cyc': cyc, 'rthr': stats['rthroughput'], 'fmas': fmas,
        'cyc_fma': cyc / fmas if fmas else None, 'pipes': len(pipes), 'pipe_names': pipe_names,
        'use': fmas / cyc / len(pipes) if pipes else None, 'pipe_busy': fma_pipe_busy,
        'flops': 2.0 * lanes * fmas / cyc, 'floats': lanes / cyc, 'bound': bound,
        'spills': 'none' if not (stack_ld or stack_st) else '%d ld + %d st' % (stack_ld, stack_st),
        'loads': sum(1 for x in body if is_load(x, arch)),
        'stores': sum(1 for x in body if is_store(x, arch)),
        'bcasts': sum(1 for x in body if is_broadcast(x, arch)),
    }


TARGET_LANES = {'N_NEON': ('NEON', 4), 'N_SVE_256': ('SVE_256', 8), 'N_SVE2_128': ('SVE2_128', 4),
                'N_SVE': ('SVE', None), 'N_SVE2': ('SVE2', None), 'N_SCALAR': ('SCALAR', 1),
                'N_AVX3_DL': ('AVX3_DL', 16), 'N_AVX3': ('AVX3', 16), 'N_AVX2': ('AVX2', 8)}
# A second model for a core whose own model gives it fewer vector pipes than the part
# has (see the header): the same loops, reported beside the primary model's figures.
CROSS_MODEL = {'sapphirerapids': 'skylake-avx512', 'icelake-server': 'skylake-avx512'}


def header_constant(path, name, default):
    try:
        m = re.search(r'\b%s\s*=\s*(\d+)' % name, open(path).read())
        return int(m.group(1)) if m else default
    except OSError:
        return default


# The float prefill's key block (src/kernels/f32/attention_f32-inl.h): B_c keys per score tile.
B_C = header_constant('include/edgeattn/arena_sizes.hpp', 'kScoreTileKeys', 256)
D_HEAD = 64


def config_arch(triple):
    return 'x86' if triple.startswith('x86') else 'arm'


def mca_row(stem, body, triple, cpu, arch):
    """llvm-mca over one loop: (stats, error, dropped, text, split text, split count)."""
    text, dropped = mca_source(body)
    open(stem + '.s', 'w').write(text)
    stats, err = run_mca(stem + '.s', triple, cpu, stem + '.mca.txt')
    split_text, n_split = split_post_index(text) if arch == 'arm' else (text, 0)
    return stats, err, dropped, text, split_text, n_split


def cross_check(stem, triple, cpu, body, lanes, arch, fp, op):
    """The same loop on CROSS_MODEL[cpu]: (model, analysis) or None."""
    other = CROSS_MODEL.get(cpu)
    if not other:
        return None
    stats, _ = run_mca(stem + '.s', triple, other, stem + '.%s.mca.txt' % other)
    return (other, analyse(body, stats, lanes, other, arch, fp, op)) if stats else None


def loop_remarks(exits, dropped, cross, ops):
    """The tail of a loop's note: side exits, instructions llvm-mca was not
    given, and the second model's figure (cross_check) where there is one."""
    extra = ''
    if exits:
        extra += '; a trace with %d side exit(s), none taken on the path modelled' % exits
    if dropped:
        extra += '; left out of the llvm-mca input (no scheduling information): %s' % (
            ', '.join('%d `%s`' % (dropped.count(m), m) for m in sorted(set(dropped))))
    if cross:
        other, c = cross
        extra += ('; on llvm-mca\'s `%s` model the same loop takes %.2f cycles/iter, its %s '
                  'on %d pipe%s (%s), %s' % (other, c['cyc'], ops, c['pipes'],
                                             's' if c['pipes'] != 1 else '', c['pipe_names'],
                                             c['bound']))
    return extra


rows, notes, builds, blocks = [], [], [], []
results = {}  # (config name, key) -> what the whole-block line needs
target_of = {}
for name, cxx, objdump, dumpopts, flags, triple, cpu, core, int8 in configs:
    arch = config_arch(triple)
    target, lanes = '?', 1
    picked = {}
    for src in sources:
        funcs = parse_listing(os.path.join(out_dir, name, src + '.lis'), arch)
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
            conditional = not UNCONDITIONAL.match(body[-1][1])
            grid_rows = int(shape.split(' x ')[0]) if ' x ' in shape else 0
            # The grid loop has the most FMAs; then the most rows (x86's 3 x 8 P V strip,
            # for d_v >= 128, has the FMAs of the 6 x 4 grid), a single block over a
            # trace, a conditional back edge over an unconditional one, the shorter, the first.
            rank = (n_fma, grid_rows, exits == 0, conditional, -len(body))
            best = picked.get(key)
            if best is None or rank > best[0]:
                picked[key] = (rank, label, shape, src, fname, start, body, exits,
                               arch == 'x86' and uses_frame_pointer(funcs[fname]))
    target_of[name] = (target, lanes)
    builds.append('- %s, %s: `%s %s`' % (core, target, cxx, flags))
    for key, _, _ in KERNELS:
        if key not in picked:
            rows.append([core, target, LABELS[key], 'no such loop found'] + ['-'] * 10)
            continue
        _, label, shape, src, fname, start, body, exits, fp = picked[key]
        stem = os.path.join(out_dir, name, key)
        stats, err, dropped, text, split_text, n_split = mca_row(stem, body, triple, cpu, arch)
        where = '%s: %s+0x%x' % (src, fname[:110], start)
        split_cell, split_note, primary_split, split_cyc = '', None, False, None
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
        a = analyse(body, stats, lanes, cpu, arch, fp)
        artefact = False
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
                artefact = True
                b = analyse(body, split_stats, lanes, cpu, arch, fp)
                a['bound'] = 'post-indexed store (model artefact*); split: %s' % b['bound']
            if split_cyc >= 0.95 * a['cyc']:  # e.g. an in-order model: nothing to lift
                split_note = ('- * %s %s %s: %d post-indexed store(s) in the loop; with each '
                              'base update as a separate add the model predicts the same %.2f '
                              'cycles/iter: the store does not bound this loop '
                              '(%s.split.{s,mca.txt}).'
                              % (core, target, label, n_split, split_cyc, stem))
            else:
                split_note = ('- * %s %s %s: %d post-indexed store(s) in the loop: llvm-mca '
                              'issues an instruction once all its operands are ready, so the '
                              'store\'s base update waits for its data and serialises the '
                              'iterations. With the update as a separate add (the core splits '
                              'store address and data into separate micro-ops) the model predicts '
                              '%.2f cycles/iter, %.3f cycles/FMA, %.2f floats/cyc '
                              '(%s.split.{s,mca.txt}).'
                              % (core, target, label, n_split, split_cyc,
                                 split_cyc / a['fmas'] if a['fmas'] else 0, lanes / split_cyc,
                                 stem))
        cross = cross_check(stem, triple, cpu, body, lanes, arch, fp, FMA)
        results[(name, key)] = {'cyc': a['cyc'], 'split': split_cyc if artefact else None,
                                'shape': shape, 'pipes': a['pipes'], 'pipe_names': a['pipe_names'],
                                'cross': cross}
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
        extra = loop_remarks(exits, dropped, cross, 'FMAs')
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
mca_version = re.search(r'LLVM version [\d.]+', subprocess.run(
    [mca, '--version'], capture_output=True, text=True).stdout).group(0)
print('llvm-mca: `%s` (%s), 1000 iterations per loop. Loops found:' % (mca, mca_version))
print('\n'.join(notes))
print()


# --- whole key block (float prefill, d = 64): a prediction from the loops above
def block_share(res, lanes, pipes, cycles_of):
    """(counts, share) of one micro tile against one key block; cycles_of(key) -> cycles/iter."""
    rows_, cols = (int(v) for v in re.match(r'(\d+) x (\d+)', res['score']['shape']).groups())
    strip = cols * lanes
    score_iters = D_HEAD * B_C // strip
    exp_iters = rows_ * B_C // lanes
    pv_iters = B_C * math.ceil(D_HEAD / strip)
    s, e, p = cycles_of('score'), cycles_of('exp'), cycles_of('pv')
    cycles = score_iters * s + exp_iters * e + pv_iters * p
    fmas = 2 * rows_ * B_C * D_HEAD // lanes
    return (score_iters, s, exp_iters, e, pv_iters, p, cycles, fmas), fmas / pipes / cycles


print('Whole key block, float prefill (a **prediction** from the loops above, not a simulation): '
      'one micro tile of R query rows (the score grid\'s R x C) against one key block of '
      'B_c = %d keys, d = %d, L lanes: cycles = d B_c / (C L) score iterations x score cycles + '
      'R B_c / L exp iterations x exp cycles + B_c ceil(d / (C L)) P V iterations x P V cycles; '
      'share of FMA peak = (2 R B_c d / L FMAs / FMA pipes) / cycles. The block maximum, the '
      'rescale, the grid epilogues (scale and store, output rescale) and all work between the '
      'loops are left out, so the share is an upper bound.' % (B_C, D_HEAD))
for name, cxx, objdump, dumpopts, flags, triple, cpu, core, int8 in configs:
    target, lanes = target_of[name]
    res = {k: results.get((name, k)) for k in ('score', 'pv', 'exp')}
    if any(v is None for v in res.values()):
        missing = ', '.join(LABELS[k] for k, v in res.items() if v is None)
        hint = ('; its float grids are src/kernels/f32/cortex_m_f32-inl.h\'s own loops, which this script '
                'does not name' if target == 'SCALAR' else '')
        blocks.append('- %s, %s: not estimated (no loop found for: %s%s).'
                      % (core, target, missing, hint))
        continue
    pipes = res['score']['pipes']
    if not pipes:
        blocks.append('- %s, %s: not estimated (no FMA pipes in the pressure view).'
                      % (core, target))
        continue

    def own(key):
        return res[key]['split'] or res[key]['cyc']
    (si, s, ei, e, pi, p, cycles, fmas), share = block_share(res, lanes, pipes, own)
    exp_text = ' (the exp loop with its post-indexed store split*)' if res['exp']['split'] else ''
    pv_text = ('' if res['pv']['shape'] == res['score']['shape'] else
               ' (the P V loop is %s; counted as the score grid)' % res['pv']['shape'])
    line = ('- %s (`%s`), %s, %d lanes, grid %s: %d x %.2f + %d x %.2f%s + %d x %.2f%s = %.0f '
            'cycles for %d FMAs, %.0f cycles at %d FMA%s/cycle (%s): **%.0f%% of FMA peak** '
            '(predicted)' % (core, cpu, target, lanes, res['score']['shape'], si, s, ei, e,
                             exp_text, pi, p, pv_text, cycles, fmas, fmas / pipes, pipes,
                             's' if pipes != 1 else '', res['score']['pipe_names'], 100 * share))
    if all(res[k]['cross'] for k in res):
        other = res['score']['cross'][0]
        other_pipes = res['score']['cross'][1]['pipes']
        (_, _, _, _, _, _, o_cycles, _), o_share = block_share(
            res, lanes, other_pipes, lambda key: res[key]['cross'][1]['cyc'])
        line += ('; on the `%s` model (%d FMA pipes, %s): %.0f cycles, **%.0f%%** of its FMA peak'
                 % (other, other_pipes, res['score']['cross'][1]['pipe_names'], o_cycles,
                    100 * o_share))
    blocks.append(line + '.')
print('\n'.join(blocks))
print()


# --- int8: the dot-product loops, the softmax passes, the requantisation loops --
TILE = re.compile(r'vnni::Tile<(\d+), (\d+), (true|false)>|4TileILi(\d+)ELi(\d+)ELb([01])E')
ARM_DOT = re.compile(r'DotS8x4(NeonSdot|SveSdot)?(?:\(|E)')
ARM_RAW_DOT = re.compile(r'DotS8x4Raw(NeonSdot|SveSdot)?(?:\(|E)')
ARM_PAIR_DOT = re.compile(r'DotS8x2x4Raw(NeonSdot|SveSdot)?(?:\(|E)')
KV_SCORES = re.compile(r'ScoreRecordS8(Sdot|Vnni)')
KV_VALUES = re.compile(r'AccumulateRecordS8(Sdot|Vnni)')
INT8_LABELS = {
    'dot_signed': 'int8 dot Q K^T, x W^T (B + 128)', 'dot_unsigned': 'int8 dot P V (A = p + 128)',
    'dot_pair': 'int8 dot DotS8x2x4Raw (Q K^T, P V, x W^T; row pairs, offset sums hoisted)',
    'dot_raw': 'int8 dot DotS8x4Raw (Q K^T, x W^T; single rows, offset sums hoisted)',
    'dot': 'int8 dot DotS8x4 (P V of single rows, causal pairs\' last keys; offsets in the loop)',
    'sm_max': 'int8 softmax: row max', 'sm_sum': 'int8 softmax: sum of exp',
    'sm_out': 'int8 softmax: probabilities', 'rq_linear': 'requantize x W^T (per channel)',
    'rq_attention': 'requantize scores / P V',
    'kv_scores': 'int8 KV cache: scores (key quads x query codes)',
    'kv_values': 'int8 KV cache: P V (value quads x weight codes)',
}
INT8_ORDER = ['dot_signed', 'dot_unsigned', 'dot_pair', 'dot_raw', 'dot', 'sm_max', 'sm_sum', 'sm_out', 'rq_linear',
              'rq_attention', 'kv_scores', 'kv_values']
INT8_GRIDS = {'x86': ['dot_signed', 'dot_unsigned', 'kv_scores', 'kv_values'],
              'arm': ['dot_pair', 'dot_raw', 'dot', 'kv_scores', 'kv_values']}


def vector_bytes(body, arch, lanes):
    """Bytes a vector instruction of the loop covers: 1 for scalar code."""
    text = ' '.join(x[2] for x in body)
    if arch == 'x86':
        return 64 if '%zmm' in text else 32 if '%ymm' in text else 16 if '%xmm' in text else 1
    return 4 * lanes if re.search(r'\bz\d+\.|\bv\d+\.(16b|4s|8h)|\bq\d+\b', text) else 1


def elements_per_iteration(body, arch, lanes):
    """Scores one iteration of a softmax loop covers: the lanes of its first vector load
    (SVE by element size; x86: bytes of a zmm), 1 for scalar code."""
    if arch == 'x86':
        return vector_bytes(body, arch, lanes)
    for x in body:
        if not is_load(x, arch):
            continue
        m = re.search(r'\bz\d+\.([bhsd])\b', x[2])
        if m:
            return {'b': 4 * lanes, 'h': 2 * lanes, 's': lanes, 'd': max(lanes // 2, 1)}[m.group(1)]
        m = re.search(r'\bv\d+\.(\d+)[bhsd]\b', x[2])
        if m:
            return int(m.group(1))
        if re.search(r'\bq\d+\b', x[2]):
            return 16
    return 1


def int8_role(fname, body, arch):
    """(key, grid text) of an int8 loop, or None."""
    dots = [x for x in body if MAC.match(x[1])]
    chains = fname + '\n' + ''.join(x[3] for x in (dots or body))
    whole = fname + '\n' + ''.join(x[3] for x in body)
    if dots and 'AddBytes' not in chains:  # AddBytes: a softmax's byte sums (vpdpbusd by ones)
        # The KV cache's record steps (src/kv_cache/int8_dots_{sdot,vnni}-inl.h): one query
        # row's (or a grid's) codes broadcast against key or value quads.
        if KV_SCORES.search(chains):
            return 'kv_scores', 'rows x 64 keys' if arch == 'x86' else '1 x 4 vectors x 2 quads'
        if KV_VALUES.search(chains):
            return 'kv_values', 'rows x 64 channels' if arch == 'x86' else '1 x 4 vectors'
        m = TILE.search(chains)
        if m:
            g = m.groups()
            r, v, signed = (g[0], g[1], g[2] == 'true') if g[0] else (g[3], g[4], g[5] == '1')
            return ('dot_signed' if signed else 'dot_unsigned'), '%s x %s' % (r, v)
        if ARM_PAIR_DOT.search(chains):
            return 'dot_pair', '2 x 4'
        if ARM_RAW_DOT.search(chains):
            return 'dot_raw', '1 x 4'
        if ARM_DOT.search(chains):
            return 'dot', '1 x 4'
        return None
    if any(k in whole for k in ('SoftmaxS8Row', 'SumOfExponentials', 'ProbabilitiesByDifference')):
        loads = sum(1 for x in body if is_load(x, arch))
        stores = sum(1 for x in body if is_store(x, arch))
        if arch == 'x86':
            if 'Lookup' in whole and 'mask_storeu_epi8' in whole:
                return 'sm_out', '1 lookup per score'
            if 'Lookup' in whole and 'AddBytes' in whole:
                return 'sm_sum', '3 byte-plane lookups per score'
            if '_mm512_max_epi8' in whole:
                return 'sm_max', 'max per score'
            return None  # the row's 64-byte reduction, the output-table build, the abort fill
        if stores and loads:
            return 'sm_out', 'table lookup, rescale, store'
        if not stores and loads >= 2:
            return 'sm_sum', 'table lookup per score'
        if not stores and loads == 1:
            return 'sm_max', 'max per score'
        return None
    if 'StoreRequantizedRow' in whole and 'NarrowFourToS8' in whole:  # one row of a tile
        return ('rq_linear' if 'LinearS8Packed' in fname else 'rq_attention'), '64 outputs'
    return None


def register_number(operand, arch):
    m = re.search(r'%[xyz]mm(\d+)' if arch == 'x86' else r'\b[qvzdsb](\d+)\b', operand)
    return int(m.group(1)) if m else None


def products(body, arch):
    """Dot instructions whose two sources both change in the loop (A.B products; the
    others multiply by a loop-invariant vector, e.g. sums against ones)."""
    defined = set()
    for x in body:
        if MAC.match(x[1]) or is_store(x, arch):
            continue
        o = x86_operands(x[2]) if arch == 'x86' else [p.strip() for p in x[2].split(',')]
        if o:
            n = register_number(o[-1] if arch == 'x86' else o[0], arch)
            if n is not None:
                defined.add(n)
    count = 0
    for x in body:
        if not MAC.match(x[1]):
            continue
        o = x86_operands(x[2]) if arch == 'x86' else [p.strip() for p in x[2].split(',')]
        sources = o[:2] if arch == 'x86' else o[1:3]
        if all(register_number(s, arch) in defined for s in sources):
            count += 1
    return count


rows8, notes8 = [], []
for name, cxx, objdump, dumpopts, flags, triple, cpu, core, int8 in configs:
    if not int8.strip():
        continue
    arch = config_arch(triple)
    target, lanes = target_of[name]
    picked = {}
    for src in (s.split('/')[-1] for s in int8.split()):
        funcs = parse_listing(os.path.join(out_dir, name, src + '.lis'), arch)
        for fname, start, body, exits in loops(funcs):
            c = int8_role(fname, body, arch)
            if not c:
                continue
            key, shape = c
            n_mac = sum(1 for x in body if MAC.match(x[1]))
            conditional = not UNCONDITIONAL.match(body[-1][1])
            rank = (n_mac, exits == 0, conditional, -len(body))
            best = picked.get(key)
            if best is None or rank > best[0]:
                picked[key] = (rank, shape, src, fname, start, body, exits,
                               arch == 'x86' and uses_frame_pointer(funcs[fname]))
    for key in INT8_ORDER:
        label = INT8_LABELS[key]
        if key not in picked:
            if key in INT8_GRIDS[arch]:
                rows8.append([core, target, label, 'no such loop found'] + ['-'] * 10)
            elif (key.startswith('sm_') or key == 'rq_attention'
                  or (key == 'rq_linear' and arch == 'x86')):
                if arch == 'arm' and key == 'rq_attention':
                    label = 'requantize (OutputS8, scalar, after each DotS8x4 call)'
                notes8.append('- %s %s %s: no loop of its own (a single basic block, or a trace '
                              'whose other branches leave it) in the listing.'
                              % (core, target, label))
            continue
        _, shape, src, fname, start, body, exits, fp = picked[key]
        stem = os.path.join(out_dir, name, 'int8_' + key)
        stats, err, dropped, text, split_text, n_split = mca_row(stem, body, triple, cpu, arch)
        split_cell, split_cyc = '', None
        if n_split:
            open(stem + '.split.s', 'w').write(split_text)
            split_stats, _ = run_mca(stem + '.split.s', triple, cpu, stem + '.split.mca.txt')
            if split_stats:
                split_cyc = split_stats['cycles'] / split_stats['iterations']
                split_cell = '; %.2f with the post-indexed store split*' % split_cyc
        if stats is None:
            rows8.append([core, target, label, shape] + ['llvm-mca: ' + err] + ['-'] * 10)
            continue
        a = analyse(body, stats, lanes, cpu, arch, fp, MAC)
        vb = vector_bytes(body, arch, lanes)
        grid = key.startswith('dot') or key.startswith('kv_')
        if grid:
            n_prod = products(body, arch)
            macs = a['fmas'] * vb / a['cyc']
            work = '%.0f int8 MAC/cyc (A.B: %.0f)' % (macs, n_prod * vb / a['cyc'])
            dots = '%d (A.B: %d)' % (a['fmas'], n_prod)
        else:
            per_iter = elements_per_iteration(body, arch, lanes)
            if key.startswith('sm_') and arch == 'x86':  # one vpsubb (d = max - x) per 64 scores
                per_iter = vb * max(1, sum(1 for x in body if x[1] == 'vpsubb'))
            work = '%.2f scores/cyc' % (per_iter / a['cyc'])
            if key.startswith('rq'):
                work = '%.2f outputs/cyc' % (int(shape.split()[0]) / a['cyc'])
            dots = '-'
        if split_cyc is not None and split_cyc < 0.8 * a['cyc']:
            a['bound'] = 'post-indexed store (model artefact*); split: %s' % analyse(
                body, split_stats, lanes, cpu, arch, fp, MAC)['bound']
        rows8.append([
            '%s (`%s`)' % (core, cpu), '%s, %d lane%s' % (target, lanes, 's' if lanes > 1 else ''),
            label, shape, str(a['insns']), '%.2f (%.2f)%s' % (a['cyc'], a['rthr'], split_cell),
            dots, '%.3f' % a['cyc_fma'] if grid and a['cyc_fma'] else '-',
            '%d (%s)' % (a['pipes'], a['pipe_names']) if grid and a['pipes'] else '-',
            '%d x %d = %d accumulators needed'
            % (a['fma_lat'], a['pipes'], a['fma_lat'] * a['pipes']) if grid and a['fma_lat'] and a['pipes'] else '-',
            '%.0f%%' % (100 * a['use']) if grid and a['use'] is not None else '-',
            work, a['bound'], a['spills']])
        cross = cross_check(stem, triple, cpu, body, lanes, arch, fp, MAC) if grid else None
        extra = loop_remarks(exits, dropped, cross, 'dot products')
        notes8.append('- %s %s %s: `%s: %s+0x%x`; %d loads (%d broadcasts), %d stores%s; files '
                      '%s.{s,mca.txt}' % (core, target, label, src, fname[:110], start, a['loads'],
                                          a['bcasts'], a['stores'], extra, stem))
        if split_cyc is not None:
            notes8.append('- * %s %s %s: with each post-indexed store\'s base update as a separate '
                          'add, %.2f cycles/iter (see the float table\'s note).'
                          % (core, target, label, split_cyc))

header8 = ['core (llvm-mca model)', 'build', 'loop', 'grid', 'insns/iter',
           'cycles/iter (RThroughput)', 'dot instrs/iter', 'cycles/dot',
           'dot pipes (pressure view)', 'dot latency x pipes', 'dot-pipe use', 'throughput',
           'bound by', 'spills in loop']
print('int8 kernels (same builds, plus `src/kernels/int/int_kernels.cc`, and on Arm '
      '`src/kernels/int/softmax_s8.cc`). The dot-product instructions (vpdpbusd, sdot, udot) '
      'take the FMAs\' place: each adds 4 byte products per 32-bit lane. "A.B" counts those whose '
      'two sources both change in the loop; the others multiply by a constant vector (sums '
      'for the zero points). The grid is R x V vectors (x86) or 1 or 2 A rows x 4 B rows '
      '(Arm).')
print()
print('| ' + ' | '.join(header8) + ' |')
print('|' + '---|' * len(header8))
for r in rows8:
    print('| ' + ' | '.join(r) + ' |')
print()
print('int8 loops found:')
print('\n'.join(notes8))
print()
print('Builds (plus the library flags, static dispatch, -O2 -g):')
print('\n'.join(builds))
PY
