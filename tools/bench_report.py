#!/usr/bin/python3
"""Turns one benchmark results file into the plot and the README speed tables.

`make bench` writes bench/results/latest.json (Google Benchmark JSON, with the gflops,
pct_peak, vs_eigen and vs_onednn counters on every 1-worker row, gflops, pct_peak and
vs_one_worker on the multi-worker rows `f32_<N>workers/...`, the same beside a busy process on
`f32_busy_<N>workers/...` and vs_idle on `f32_busy/...`, gops, pct_peak and vs_f32 on the
fixed-point rows `s8/...` and `s16/...`); `make bench-report` runs this on it:

- bench/results/latest.png (next to the JSON, same stem): GFLOP/s (fixed point: GOP/s) per
  shape and percent of the peak per shape, edgeattn vs oneDNN vs Eigen as grouped bars,
  edgeattn's multi-worker and fixed-point rows as bars of their own;
- the tables between <!-- bench-table:begin --> and <!-- bench-table:end --> in README.md
  (the headline shapes, as listed in the JSON's headline_shapes context) and in
  bench/README.md (every shape), rewritten in place: the 1-worker float32 shapes with all
  three libraries, then a small table of the multi-worker rows (speed-up over one worker,
  CPU/real), then one of the busy rows (2 workers beside a busy process against 1 worker
  there and against the idle 1-worker row; not plotted), then the fixed-point rows (GOP/s, share of the integer probe's peak, speed-up
  over edgeattn's float32 row of the same layer).

Standard library and matplotlib only, so it runs wherever `make bench` does.
"""

import argparse
import json
import os
import re
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN_MARKER = "<!-- bench-table:begin -->"
END_MARKER = "<!-- bench-table:end -->"
# Column and bar order; names as the benchmark names end.
LIBRARIES = ("edgeattn", "eigen", "onednn")
DISPLAY_NAMES = {"edgeattn": "edgeattn", "eigen": "Eigen", "onednn": "oneDNN"}
BAR_ORDER = ("edgeattn", "onednn", "eigen")
BAR_COLOURS = {"edgeattn": "#1f77b4", "onednn": "#ff7f0e", "eigen": "#2ca02c"}
# The precision component of a multi-worker row: "f32_2workers", "f32_busy_2workers".
WORKERS_PATTERN = re.compile(r"^[^/]*_(\d+)workers/")
# Rows beside a busy process: "f32_busy/...", "f32_busy_2workers/...".
BUSY_PATTERN = re.compile(r"^[^/]*_busy[_/]")
# Fixed-point rows: "s8/...", "s16/...".
FIXED_POINT_PATTERN = re.compile(r"^s(8|16)/")
FIXED_POINT_COLOURS = {"s8": "#9467bd", "s16": "#8c564b"}


def split_name(run_name):
    """'f32/prefill/d64/n2048/eigen' -> ('f32/prefill/d64/n2048', 'eigen')."""
    shape, _, library = run_name.rpartition("/")
    return shape, library


def peer_shape(shape):
    """The peers run their normal build: 'f32_avx2/mha/...' -> 'f32/mha/...'."""
    _, _, sizes = shape.partition("/")
    return "f32/" + sizes


def workers_of(shape):
    """edgeattn's workers: 2 for 'f32_2workers/...', 1 otherwise."""
    match = WORKERS_PATTERN.match(shape)
    return int(match.group(1)) if match else 1


def is_busy(shape):
    return BUSY_PATTERN.match(shape) is not None


def one_worker_shape(shape):
    """'f32_2workers/mha/...' -> 'f32/mha/...', 'f32_busy_2workers/...' -> 'f32_busy/...'."""
    precision, _, rest = shape.partition("/")
    return re.sub(r"_\d+workers$", "", precision) + "/" + rest


def idle_shape(shape):
    """'f32_busy/mha/...' -> 'f32/mha/...'."""
    precision, _, rest = shape.partition("/")
    return precision.replace("_busy", "") + "/" + rest


def is_fixed_point(shape):
    return FIXED_POINT_PATTERN.match(shape) is not None


def f32_twin(shape):
    """The f32 row of a fixed-point row's layer, as bench/benchmark_names.cc derives it:
    's8/mha/dm256h4/n1024' -> 'f32/mha/dm256h4/n1024'; the single-head MHA layers named as
    prefill shapes: 's16/prefill_causal/d64/n2048' -> 'f32/mha_causal/dm64h1/n2048'."""
    parts = shape.split("/")
    if len(parts) != 4:
        return None
    _, kind, sizes, n = parts
    if kind.startswith("prefill") and sizes.startswith("d"):
        kind = "mha" + kind[len("prefill"):]
        sizes = "dm" + sizes[1:] + "h1"
    return "/".join(("f32", kind, sizes, n))


class Results:
    """The median row of every (shape, library), in the order the benchmarks ran."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as results_file:
            data = json.load(results_file)
        self.path = path
        self.context = data.get("context", {})
        self.rows = {}
        self.shapes = []
        # Lowest CPU/real per worker over every repetition (multi-worker rows measure the
        # process's CPU time), and each row's own lowest CPU/real, not divided.
        self.min_cpu_share = 1.0
        self.cpu_shares = {}
        for row in data.get("benchmarks", []):
            if row.get("error_occurred"):
                continue
            repeated = row.get("repetitions", 1) > 1
            shape, library = split_name(row["run_name"])
            if row["run_type"] == "iteration":
                if row["real_time"] > 0:
                    share = row["cpu_time"] / row["real_time"]
                    if not is_busy(shape):  # busy rows share a core on purpose
                        self.min_cpu_share = min(self.min_cpu_share, share / workers_of(shape))
                    key = (shape, library)
                    self.cpu_shares[key] = min(self.cpu_shares.get(key, share), share)
                if repeated:
                    continue
            elif row.get("aggregate_name") != "median":
                continue
            if shape not in self.shapes:
                self.shapes.append(shape)
            self.rows[(shape, library)] = row

    def row(self, shape, library):
        """The library's row for a shape; the peers' rows of an AVX2 shape are the f32 ones."""
        if library != "edgeattn":
            shape = peer_shape(shape)
        return self.rows.get((shape, library))

    def value(self, shape, library, counter):
        row = self.row(shape, library)
        return None if row is None else row.get(counter)

    def one_worker_value(self, shape, counter):
        """edgeattn's counter on the 1-worker row of a multi-worker shape (beside the busy
        process for a busy shape)."""
        return self.value(one_worker_shape(shape), "edgeattn", counter)

    def f32_value(self, shape, counter):
        """edgeattn's counter on the f32 row of a fixed-point shape's layer."""
        return self.value(f32_twin(shape), "edgeattn", counter)

    def headline_shapes(self):
        listed = self.context.get("headline_shapes", "")
        wanted = [shape for shape in listed.split(",") if shape]
        return [shape for shape in self.shapes if shape in wanted] or self.shapes


def cell(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


def caption(results):
    context = results.context
    source = os.path.relpath(results.path, REPO)
    noisy = results.min_cpu_share < 0.9
    core = context.get("cpu_core", "unknown")
    machine = (
        f"{core if core != 'unknown' else context.get('cpu_model_name', 'an unnamed CPU')} "
        f"({context.get('cpu_vendor', '?')} family {context.get('cpu_family', '?')} model "
        f"{context.get('cpu_model', '?')}; vector pipes: {context.get('cpu_vector_pipes', 'unknown')})"
    )
    return (
        f"`{source}` ({context.get('suite', '?')} suite, {context.get('date', '?')[:10]}, "
        f"`make bench-report`) on {machine}: one core, float32, medians of "
        f"{context.get('timing', '?').split(' of ')[0]}. FMA peaks of that run: "
        f"{float(context.get('fma_peak_gflops', 'nan')):.1f} GFLOP/s "
        f"({context.get('edgeattn_simd_target', '?')}), "
        f"{float(context.get('fma_peak_avx2_gflops', 'nan')):.1f} GFLOP/s (AVX2). "
        f"Eigen {context.get('eigen_version', '?')}, oneDNN {context.get('onednn_version', '?')} "
        f"({context.get('onednn_cpu_isa', '?')}). pct_peak is against the peak of the target "
        "the row ran on; vs_X = X's time / edgeattn's (> 1: edgeattn is faster). `f32_avx2` "
        "rows: edgeattn capped at AVX2, the peers' columns are their normal builds' rows. "
        f"Lowest CPU/real time share per worker: {results.min_cpu_share:.2f}"
        + (" (the machine was shared: figures are noisy)." if noisy else ".")
    )


def workers_caption(results, workers):
    peak = float(results.context.get("fma_peak_gflops", "nan"))
    return (
        f"{workers}-worker rows: edgeattn alone on the pthread pool (the main thread + "
        f"{workers - 1}), same shapes and FLOPs. pct_peak is against {workers} x the single-core "
        f"peak ({workers} x {peak:.1f} = {workers * peak:.1f} GFLOP/s); vs_one_worker = "
        "edgeattn's 1-worker time of the shape / this row's. No peer ratios: Eigen and oneDNN "
        "run on one thread. CPU/real: process CPU time / real time, lowest repetition "
        f"({workers}.00: every worker busy throughout; near 1: another process took a core)."
    )


def busy_caption(workers):
    return (
        f"Busy rows: edgeattn beside a child process that spins on one core (normal priority, "
        f"not pinned, the bench's session), {workers} workers against 1 worker there "
        "(vs_one_worker) and against the 1-worker row without the busy process (vs idle "
        "1-worker). CPU/real: the bench process's CPU time / real time (the spinner's not "
        "counted), lowest repetition."
    )


def fixed_point_caption(results):
    context = results.context

    def peak(dtype):
        return (f"{float(context.get(dtype + '_peak_gops', 'nan')):.1f} GOP/s, "
                f"{context.get(dtype + '_peak_probe', '?').split(',')[0]}")

    return (
        "Fixed-point rows: edgeattn's int8 and int16 MHA (`ea_mha_quant_run_s8` / `_s16`, TFLite's "
        "integer chain) alone, one core. GOP/s counts 2 integer ops per multiply-accumulate, "
        "the FLOP count of the f32 row of the same layer. `s8`/`s16` prefill rows are "
        "single-head MHA layers (d_model = d), the three projections and the output "
        "projection included, unlike the f32 prefill rows: their f32 row is "
        "`f32/mha[_causal]/dm<d>h1`. pct_peak is against the integer probe of the same run: "
        f"s8 rows {peak('int8')}; s16 rows {peak('int16')}. vs_f32 = edgeattn's f32 time of "
        "the layer / this row's (> 1: faster than float32)."
    )


def markdown_table(results, shapes):
    lines = [
        *textwrap.wrap(caption(results), width=95, break_on_hyphens=False),
        "",
        "| shape | edgeattn GFLOP/s | Eigen GFLOP/s | oneDNN GFLOP/s | edgeattn pct_peak "
        "| Eigen pct_peak | oneDNN pct_peak | vs_eigen | vs_onednn |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for shape in shapes:
        if workers_of(shape) > 1 or is_fixed_point(shape) or is_busy(shape):
            continue
        cells = [cell(results.value(shape, lib, "gflops"), 1) for lib in LIBRARIES]
        cells += [cell(results.value(shape, lib, "pct_peak"), 1) for lib in LIBRARIES]
        cells += [cell(results.value(shape, "edgeattn", ratio), 2)
                  for ratio in ("vs_eigen", "vs_onednn")]
        lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    multi = [shape for shape in shapes if workers_of(shape) > 1 and not is_busy(shape)]
    if multi:
        workers = max(workers_of(shape) for shape in multi)
        lines += [
            "",
            *textwrap.wrap(workers_caption(results, workers), width=95, break_on_hyphens=False),
            "",
            f"| shape | edgeattn GFLOP/s | 1-worker GFLOP/s | pct_peak ({workers} cores) "
            "| vs_one_worker | CPU/real |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for shape in multi:
            cells = [cell(results.value(shape, "edgeattn", "gflops"), 1),
                     cell(results.one_worker_value(shape, "gflops"), 1),
                     cell(results.value(shape, "edgeattn", "pct_peak"), 1),
                     cell(results.value(shape, "edgeattn", "vs_one_worker"), 2),
                     cell(results.cpu_shares.get((shape, "edgeattn")), 2)]
            lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    busy = [shape for shape in shapes if is_busy(shape) and workers_of(shape) > 1]
    if busy:
        workers = max(workers_of(shape) for shape in busy)
        lines += [
            "",
            *textwrap.wrap(busy_caption(workers), width=95, break_on_hyphens=False),
            "",
            "| shape | edgeattn GFLOP/s | 1-worker busy GFLOP/s | vs_one_worker "
            "| 1-worker idle GFLOP/s | vs idle 1-worker | CPU/real | 1-worker CPU/real |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for shape in busy:
            gflops = results.value(shape, "edgeattn", "gflops")
            idle = results.value(idle_shape(one_worker_shape(shape)), "edgeattn", "gflops")
            cells = [cell(gflops, 1),
                     cell(results.one_worker_value(shape, "gflops"), 1),
                     cell(results.value(shape, "edgeattn", "vs_one_worker"), 2),
                     cell(idle, 1),
                     cell(gflops / idle if gflops and idle else None, 2),
                     cell(results.cpu_shares.get((shape, "edgeattn")), 2),
                     cell(results.cpu_shares.get((one_worker_shape(shape), "edgeattn")), 2)]
            lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    fixed = [shape for shape in shapes if is_fixed_point(shape)]
    if fixed:
        lines += [
            "",
            *textwrap.wrap(fixed_point_caption(results), width=95, break_on_hyphens=False),
            "",
            "| shape | edgeattn GOP/s | f32 row | f32 GFLOP/s | pct_peak | vs_f32 |",
            "|---|---:|---|---:|---:|---:|",
        ]
        for shape in fixed:
            cells = [cell(results.value(shape, "edgeattn", "gops"), 1),
                     f32_twin(shape) or "-",
                     cell(results.f32_value(shape, "gflops"), 1),
                     cell(results.value(shape, "edgeattn", "pct_peak"), 1),
                     cell(results.value(shape, "edgeattn", "vs_f32"), 2)]
            lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def replace_table(readme_path, table):
    with open(readme_path, encoding="utf-8") as readme:
        text = readme.read()
    begin = text.find(BEGIN_MARKER)
    end = text.find(END_MARKER)
    if begin < 0 or end < begin:
        sys.exit(f"{readme_path}: no {BEGIN_MARKER} ... {END_MARKER} block")
    updated = text[: begin + len(BEGIN_MARKER)] + "\n" + table + "\n" + text[end:]
    if updated != text:
        with open(readme_path, "w", encoding="utf-8") as readme:
            readme.write(updated)
    print(f"table of {readme_path} regenerated")


def bar_style(shape, library):
    """Colour, hatch and legend label of one bar; edgeattn capped at AVX2, on several
    workers or in fixed point stands apart."""
    if library == "edgeattn" and is_fixed_point(shape):
        dtype = shape.split("/")[0]
        return FIXED_POINT_COLOURS[dtype], None, f"edgeattn {dtype} (fixed point, GOP/s)"
    if library == "edgeattn" and shape.startswith("f32_avx2/"):
        return "#9ecae1", "//", "edgeattn, capped at AVX2"
    if library == "edgeattn" and workers_of(shape) > 1:
        return "#08306b", "..", f"edgeattn, {workers_of(shape)} workers (pct_peak of as many cores)"
    return BAR_COLOURS[library], None, DISPLAY_NAMES[library]


def plot(results, png_path):
    try:
        import matplotlib  # pylint: disable=import-outside-toplevel
    except ImportError:
        sys.exit("matplotlib is missing: apt-get install python3-matplotlib, and run this with "
                 "Debian's /usr/bin/python3 (as make bench-report does)")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

    shapes = [shape for shape in results.shapes if not is_busy(shape)]  # in the tables only
    width = 0.27
    figure, axes = plt.subplots(2, 1, figsize=(max(8.0, 0.5 * len(shapes) + 2.0), 9.0),
                                sharex=True)
    panels = (("gflops", "GFLOP/s (fixed point: GOP/s)"),
              ("pct_peak", "% of the FMA peak of the row's target\n(N-worker rows: N cores; "
                           "fixed point:\nthe integer probe)"))
    for axis, (counter, label) in zip(axes, panels):
        labelled = set()
        for index, shape in enumerate(shapes):
            # A peer's bar only where it ran: AVX2 and multi-worker shapes have edgeattn's alone.
            # Fixed-point rows carry gops where the float rows carry gflops.
            key = "gops" if counter == "gflops" and is_fixed_point(shape) else counter
            bars = [(library, results.rows[(shape, library)][key]) for library in BAR_ORDER
                    if key in results.rows.get((shape, library), {})]
            for position, (library, height) in enumerate(bars):
                colour, hatch, legend = bar_style(shape, library)
                edge = "#1f77b4" if hatch == "//" else "white"
                axis.bar(index + (position - (len(bars) - 1) / 2) * width, height, width,
                         color=colour, hatch=hatch, edgecolor=edge,
                         label=None if legend in labelled else legend)
                labelled.add(legend)
        axis.set_ylabel(label)
        axis.grid(axis="y", alpha=0.3)
    # Headroom above the tallest bar for the legend (five entries with the AVX2 and 2-worker
    # bars).
    axes[0].set_ylim(top=axes[0].get_ylim()[1] * 1.35)
    axes[0].legend(fontsize=8, ncol=2, loc="upper center")
    workers = results.context.get("parallel_workers", "2")
    axes[0].set_title(f"edgeattn vs oneDNN vs Eigen, float32, one core ({workers}-worker rows: "
                      f"{workers} cores)\nand edgeattn's fixed-point int8 / int16 MHA (GOP/s, "
                      "% of the integer probe)\n"
                      f"{os.path.basename(results.path)}, {results.context.get('date', '')[:10]}")
    axes[1].set_xticks(range(len(shapes)))
    axes[1].set_xticklabels(shapes, rotation=60, ha="right", fontsize=8)
    figure.tight_layout()
    figure.savefig(png_path, dpi=110)
    plt.close(figure)
    print(f"plot written to {png_path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("results", nargs="?",
                        default=os.path.join(REPO, "bench", "results", "latest.json"))
    parser.add_argument("--png", help="plot path (default: the results path with .png)")
    parser.add_argument("--readme", default=os.path.join(REPO, "README.md"),
                        help="gets the headline shapes' table")
    parser.add_argument("--bench-readme", default=os.path.join(REPO, "bench", "README.md"),
                        help="gets every shape's table")
    args = parser.parse_args()

    results = Results(args.results)
    if not results.rows:
        sys.exit(f"{args.results}: no benchmark rows")
    plot(results, args.png or os.path.splitext(args.results)[0] + ".png")
    replace_table(args.readme, markdown_table(results, results.headline_shapes()))
    replace_table(args.bench_readme, markdown_table(results, results.shapes))


if __name__ == "__main__":
    main()
