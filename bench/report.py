"""Writes results.json, results.md and results.png from the figures run.py measured."""
from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, List, Optional, Tuple

from harness import EAGER, ET_C, ET_PY, FORMS, ORT, PTERUN_C, PTERUN_CLI, PTERUN_PY, REPO, RUNTIME_LABELS

TIMED = (PTERUN_C, PTERUN_CLI, PTERUN_PY, ET_C, ET_PY)


# ---------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------


def us(x: Optional[float]) -> str:
    if x is None:
        return "n/a"
    if x >= 1000:
        return f"{x / 1000:.3g} ms"
    if x >= 100:
        return f"{x:.0f} µs"
    if x >= 10:
        return f"{x:.1f} µs"
    return f"{x:.2f} µs"


def ratio(r: Optional[Dict[str, Any]]) -> str:
    if not r:
        return "n/a"
    return f"**{r['median']:.2f}** ({r['min']:.2f}–{r['max']:.2f})"


def num(x: Optional[float], fmt: str = "{:.2f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def mb(kb: Optional[int]) -> str:
    return "n/a" if kb is None else f"{kb / 1024:.1f} MB"


def kb(b: Optional[int]) -> str:
    return "n/a" if b is None else f"{b / 1024:.1f} KB"


class Notes:
    """Numbered footnotes for cells that are not available."""

    def __init__(self) -> None:
        self.items: List[str] = []

    def ref(self, why: str) -> str:
        why = why.removeprefix("not available: ")
        if why not in self.items:
            self.items.append(why)
        return f"n/a [{self.items.index(why) + 1}]"

    def render(self) -> List[str]:
        return [f"[{i + 1}] {w}" + "  " for i, w in enumerate(self.items)]


def table(head: List[str], rows: List[List[str]]) -> List[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------


def latency_cell(mt: Dict[str, Any], form: str, rt: str, notes: Notes) -> str:
    x = mt.get("latency", {}).get(form, {}).get(rt)
    if x:
        s = x["spread_us"]
        return f"{us(x['median_us'])} ({us(s['min'])}–{us(s['max'])})"
    why = mt["status"].get(form, {}).get(rt, "not available")
    return "**ERROR** " + why[7:] if why.startswith("error: ") else notes.ref(why)


def headline(res: Dict[str, Any]) -> List[str]:
    t = str(res["headline_threads"])
    bt = res["by_threads"]
    io = res.get("instruction_overhead", {})
    co = res.get("python_call_overhead", {})
    rows = []
    for key, label, target, note in (
            ("nondelegated_vs_executorch", "Non-delegated programs, pterun / ExecuTorch", "≤ 0.70",
             "C driver vs C++ driver, same .pte"),
            ("delegated_vs_executorch", "XNNPACK-delegated programs, pterun / ExecuTorch", "≤ 1.00",
             "C driver vs C++ driver, same .pte"),
            ("best_vs_eager", "Best pterun form / PyTorch eager", "≤ 1.00 on each model",
             "both called from Python")):
        v = res.get(key)
        rows.append([label, f"**{num(v)}**", target, note])
    alt = []
    for tt, b in bt.items():
        alt.append(f"{tt} thread(s): non-delegated {num(b['nondelegated_vs_executorch_c'])}, delegated "
                   f"{num(b['delegated_vs_executorch_c'])}, best/eager {num(b['best_vs_eager_python'])}; from Python: "
                   f"non-delegated {num(b['nondelegated_vs_executorch_python'])}, delegated "
                   f"{num(b['delegated_vs_executorch_python'])}; pterun C / eager {num(b['best_vs_eager_c'])}")
    if io.get("ratio_c") is not None:
        rows.append(["Per-instruction overhead, pterun / ExecuTorch", f"**{io['ratio_c']:.2f}**", "≤ 0.50",
                     f"{io[PTERUN_C]['ns_per_instruction']:.0f} ns vs {io[ET_C]['ns_per_instruction']:.0f} ns (C, slope)"])
    tr = res.get("tracer_overhead")
    if tr:
        rows.append(["Profiler per instruction, tracer off → on (pterun)",
                     f"{tr['off']['ns_per_instruction']:.0f} ns → {tr['on']['ns_per_instruction']:.0f} ns",
                     "off: no cost but one branch", f"a traced instruction costs {tr['traced_instruction_ns']:.0f} ns more"])
    if co.get("call_ratio_pterun_vs_executorch") is not None:
        rows.append(["Python call on a one-operator program, pterun / ExecuTorch",
                     f"**{co['call_ratio_pterun_vs_executorch']:.2f}**", "≤ 1.00",
                     f"{us(co['pterun_call_us']['median'])} vs {us(co['executorch_call_us']['median'])}"])
    if co.get("overhead_ratio_pterun_vs_executorch") is not None:
        rows.append(["Python per-call overhead (call − C execute), pterun / ExecuTorch",
                     f"**{co['overhead_ratio_pterun_vs_executorch']:.2f}**", "≤ 1.00",
                     f"{us(co['pterun_overhead_us']['median'])} vs {us(co['executorch_overhead_us']['median'])}"])
    fr = []
    for name, rows_t in res.get("roofline", {}).items():
        r = rows_t.get(t, {})
        if r.get("gemm_heavy") and r.get("pterun"):
            fr.append(f"{name} {100 * r['pterun']['fraction_of_peak']:.1f}%")
    if fr:
        rows.append(["GEMM-heavy models, fraction of the sgemm peak (pterun)", ", ".join(fr), "≥ 70%",
                     f"peak {num(res['sgemm'][t]['peak_gflops'], '{:.1f}')} GFLOP/s"])
    sizes = res.get("library_sizes", {})
    lib = sizes.get("pterun", {}).get("libpterun")
    if lib:
        rows.append(["libpterun stripped, text", kb(lib.get("text")), "≤ 64 KB", f"file {kb(lib['stripped_bytes'])}"])
    ext = sizes.get("pterun_python", {}).get("_pterun")
    if ext:
        rows.append(["Python extension stripped", kb(ext["stripped_bytes"]), "≤ 200 KB", f"text {kb(ext.get('text'))}"])
    allocs = [a["allocations"] for m in res["models"].values() for mt in m["threads"].values()
              for f in mt.get("allocations", {}).values() for rt, a in f.items() if rt == PTERUN_C]
    if allocs:
        rows.append(["Heap allocations during pterun execute", f"**{sum(allocs)}**", "0",
                     f"over {len(allocs)} (program, thread setting) runs, first execute included"])
    out = [f"## Headline ({t} thread{'s' if t != '1' else ''})", ""]
    out += table(["figure", "value", "target", "how"], rows)
    out += ["Medians over the zoo models where both runtimes ran; a ratio is pterun's latency over the other's. "
            "All thread settings:", ""] + [f"- {a}" for a in alt] + [""]
    return out


def latency_tables(res: Dict[str, Any], notes: Notes) -> List[str]:
    out: List[str] = []
    for t in map(str, res["machine"]["thread_settings"]):
        out += [f"## Latency, {t} thread{'s' if t != '1' else ''}", "",
                "Median of per-round medians; in parentheses the min–max of the round medians.", ""]
        rows = []
        for name, m in res["models"].items():
            mt = m["threads"].get(t)
            if not mt:
                continue
            for form in FORMS:
                rows.append([name if form == "nondelegated" else "", form] +
                            [latency_cell(mt, form, rt, notes) for rt in TIMED] +
                            ([latency_cell(mt, "eager", EAGER, notes)] if form == "nondelegated" else [""]))
        out += table(["model", "form"] + [RUNTIME_LABELS[r] for r in TIMED] + [RUNTIME_LABELS[EAGER]], rows)
        out += [f"Ratios ({t} thread{'s' if t != '1' else ''}): per-round pterun / other, median (min–max).", ""]
        rows = []
        for name, m in res["models"].items():
            r = m["threads"].get(t, {}).get("ratios")
            if not r:
                continue
            be = r.get("best_vs_eager_python")
            rows.append([name, ratio(r["nondelegated_vs_executorch_c"]), ratio(r["delegated_vs_executorch_c"]),
                         ratio(r["nondelegated_vs_executorch_python"]), ratio(r["delegated_vs_executorch_python"]),
                         ratio(be) + (f" {be['form'][:3]}." if be else ""), ratio(r.get("best_vs_eager_c"))])
        out += table(["model", "non-delegated / ExecuTorch (C)", "delegated / ExecuTorch (C)",
                      "non-delegated / ExecuTorch (Python)", "delegated / ExecuTorch (Python)",
                      "best pterun / eager (Python)", "best pterun C / eager"], rows)
    return out


def load_table(res: Dict[str, Any], notes: Notes) -> List[str]:
    out = ["## Load time (program + method)", "",
           "Median over interleaved loads from a warm page cache: mapping and verifying the program "
           "(ExecuTorch: InternalConsistency verification, pterun always verifies fully), then loading the method "
           "(memory plan, operator resolution, delegate init).", ""]
    rows = []
    for name, m in res["models"].items():
        ld = m.get("load")
        if not ld:
            continue
        for form in FORMS:
            f = ld.get(form, {})
            cells = []
            for rt in (PTERUN_C, ET_C, PTERUN_PY, ET_PY):
                x = f.get(rt)
                cells.append(f"{us(x['total_ms'] * 1e3)} ({us(x['program_ms'] * 1e3)} + {us(x['method_ms'] * 1e3)})"
                             if x else "n/a")
            p, e = f.get(PTERUN_C), f.get(ET_C)
            cells.append(num(p["total_ms"] / e["total_ms"]) if p and e else "n/a")
            rows.append([name if form == "nondelegated" else "", form] + cells)
    out += table(["model", "form", "pterun C (program + method)", "ExecuTorch C++", "pterun Python",
                  "ExecuTorch Python", "pterun / ExecuTorch (C)"], rows)
    return out


def memory_table(res: Dict[str, Any]) -> List[str]:
    mem = res.get("memory")
    if not mem:
        return []
    base = mem["baseline_kb"]
    out = ["## Peak resident memory", "",
           f"One fresh process per runtime and program: load, execute 10 times, read VmHWM. Shown: peak minus "
           f"the bare process (a C program that loads nothing: {mb(base['c_kb'])}; the bare Python interpreter: "
           f"{mb(base['python_kb'])}), and in parentheses the part added by loading and running the model "
           f"(peak minus the runtime's own start-up, imports included).", ""]
    rows = []
    startup: Dict[str, List[int]] = {}
    for name, forms in mem["models"].items():
        for form in FORMS + ("eager",):
            f = forms.get(form)
            if not f:
                continue
            cells = []
            for rt in (PTERUN_C, ET_C, PTERUN_PY, ET_PY, EAGER):
                x = f.get(rt)
                cells.append(f"{mb(x['over_bare_kb'])} ({mb(x['model_kb'])})" if x else
                             "" if (form == "eager") != (rt == EAGER) else "n/a")
                if x:
                    startup.setdefault(rt, []).append(x["startup_over_bare_kb"])
            rows.append([name, form] + cells)
    out += table(["model", "form"] + [RUNTIME_LABELS[r] for r in (PTERUN_C, ET_C, PTERUN_PY, ET_PY, EAGER)], rows)
    if startup:
        out += ["Start-up footprint (libraries and imports, before any program), over the bare process: " +
                "; ".join(f"{RUNTIME_LABELS[rt]} {mb(sorted(v)[len(v) // 2])}" for rt, v in startup.items()) + ".", ""]
    return out


def alloc_table(res: Dict[str, Any]) -> List[str]:
    out = ["## Heap allocations during execute", "",
           "Counted by interposing malloc/calloc/realloc/aligned allocation in the C drivers, from a fresh load "
           "over N executes (the first included); pterun's must be zero.", ""]
    rows = []
    for name, m in res["models"].items():
        for t, mt in m["threads"].items():
            for form in FORMS:
                a = mt.get("allocations", {}).get(form, {})
                if not a:
                    continue
                p, e = a.get(PTERUN_C), a.get(ET_C)
                rows.append([name, form, t,
                             f"{p['allocations']} in {p['executions']}" if p else "n/a",
                             f"{e['allocations']} in {e['executions']} ({e['per_execute']:.1f} per execute)" if e else "n/a"])
    return out + table(["model", "form", "threads", "pterun C", "ExecuTorch C++"], rows)


def overhead_tables(res: Dict[str, Any]) -> List[str]:
    out: List[str] = []
    co = res.get("python_call_overhead")
    if co:
        out += ["## Python per-call overhead", "",
                f"One-operator program `{co['program']}` (x + y on 2×2 float32). Call: one Python call as an "
                "application makes it (pterun: `method.execute([numpy arrays])`, ExecuTorch: "
                "`executorch.runtime` `method.execute([torch tensors])`), outputs returned as new arrays. "
                "Overhead: the call minus the same runtime's C-level set-inputs + execute, per round.", ""]
        rows = []
        for key, py, c in (("pterun", PTERUN_PY, PTERUN_C), ("executorch", ET_PY, ET_C)):
            call, ov = co.get(f"{key}_call_us"), co.get(f"{key}_overhead_us")
            cl = co["latency_us"].get(c)
            rows.append([RUNTIME_LABELS[py], us(call["median"]) if call else "n/a",
                         us(cl["median_us"]) if cl else "n/a", us(ov["median"]) if ov else "n/a"])
        out += table(["runtime", "Python call", "C execute", "overhead"], rows)
    io = res.get("instruction_overhead")
    if io:
        s, l_ = io["lengths"]
        out += ["## Per-instruction overhead", "",
                f"Programs `{io['programs'][0]}` and `{io['programs'][1]}`: x = x + y repeated {s} and {l_} times "
                f"({io['operator']}). Per instruction = (t{l_} − t{s}) / {l_ - s}, per round (the slope cancels "
                "per-call costs); fixed = t" + str(s) + " − " + str(s) + " × slope.", ""]
        rows = []
        for rt in (PTERUN_C, ET_C, PTERUN_PY, ET_PY):
            x = io.get(rt)
            if x:
                rows.append([RUNTIME_LABELS[rt], f"{x['ns_per_instruction']:.1f} ns "
                             f"({x['spread']['min']:.1f}–{x['spread']['max']:.1f})", us(x["fixed_us"]),
                             us(x[f"chain_{s}_us"]), us(x[f"chain_{l_}_us"])])
        out += table(["runtime", "per instruction", "fixed per call", f"chain of {s}", f"chain of {l_}"], rows)
        out += [f"pterun / ExecuTorch per instruction: C {num(io.get('ratio_c'))}, "
                f"Python {num(io.get('ratio_python'))}.", ""]
    tr = res.get("tracer_overhead")
    if tr:
        s, l_ = tr["lengths"]
        out += ["## Profiler cost: tracer off vs on", "",
                f"The same chain programs through the pterun CLI ({tr['iterations']} executes per run, "
                f"{tr['rounds']} interleaved rounds), without a tracer and with `--profile` (the etdump "
                f"profiler records every instruction); per instruction = (t{l_} − t{s}) / {l_ - s}. With no "
                "tracer attached the interpreter checks for one once per execute and runs a loop without the "
                "hook, so the off figure is the plain interpreter's.", ""]
        rows = [[mode, f"{tr[mode]['ns_per_instruction']:.1f} ns "
                 f"({tr[mode]['spread']['min']:.1f}–{tr[mode]['spread']['max']:.1f})"] for mode in ("off", "on")]
        out += table(["tracer", "per instruction"], rows)
        out += [f"A traced instruction (two clock reads, one event record) costs "
                f"{tr['traced_instruction_ns']:.1f} ns more.", ""]
    return out


def roofline_table(res: Dict[str, Any]) -> List[str]:
    out = ["## Roofline: fraction of this machine's sgemm peak", ""]
    rows = []
    for t, s in res.get("sgemm", {}).items():
        for lib in ("numpy", "xnnpack"):
            for x in s.get(lib, []):
                rows.append([t, x.get("library", lib), str(x.get("n", "")), num(x.get("best_gflops"), "{:.1f}"),
                             num(x.get("median_gflops"), "{:.1f}"), x.get("error", "")])
    out += table(["threads", "sgemm", "n", "best GFLOP/s", "median GFLOP/s", "note"], rows)
    out += ["Peak per thread setting = the best rate above (" +
            "; ".join(f"{t} thread(s): {num(s.get('peak_gflops'), '{:.1f}')} GFLOP/s, {s.get('peak_source')}"
                      for t, s in res.get("sgemm", {}).items()) +
            "). Model FLOPs: torch.utils.flop_counter on the eager module (matrix products and convolutions, "
            "2 per multiply-add); rate = FLOPs / latency of the model's fastest form on that runtime.", ""]
    rows = []
    for name, per_t in res.get("roofline", {}).items():
        for t, r in per_t.items():
            cells = []
            for k in ("pterun", "executorch", "eager"):
                x = r.get(k)
                cells.append(f"{x['gflops']:.2f} GFLOP/s = **{100 * x['fraction_of_peak']:.1f}%** ({x['form'][:3]}.)"
                             if x else "n/a")
            rows.append([name + (" (GEMM-heavy)" if r["gemm_heavy"] else ""), t, f"{r['flops'] / 1e6:.2f}"] + cells)
    out += table(["model", "threads", "MFLOP per inference", "pterun C", "ExecuTorch C++", "eager"], rows)
    return out


def sizes_table(res: Dict[str, Any]) -> List[str]:
    sz = res.get("library_sizes")
    if not sz:
        return []
    out = ["## Library sizes", "",
           "Stripped copies (`strip --strip-unneeded`); text/data/bss from `size`.", ""]
    rows = []
    for group, label in (("pterun", "pterun (build)"), ("pterun_python", "pterun wheel"),
                         ("executorch", "executorch wheel lib/"), ("executorch_python", "executorch wheel")):
        for name, x in sz.get(group, {}).items():
            rows.append([label, name, kb(x.get("stripped_bytes")), kb(x.get("text")), kb(x.get("data")),
                         kb(x.get("file_bytes"))])
    out += table(["package", "library", "stripped", "text", "data", "as shipped"], rows)
    need = sz.get("executorch_python_needs")
    if need:
        out += ["ExecuTorch's Python extension also needs libtorch: " +
                ", ".join(f"{k} {v / 2**20:.0f} MB" for k, v in need.items()) + ".", ""]
    return out


# ---------------------------------------------------------------------------
# Real-size models (results["realsize"], from run.py's measure_realsize)
# ---------------------------------------------------------------------------

REAL_COLUMNS = (("nondelegated", PTERUN_C, "pterun own kernels"), ("delegated", PTERUN_C, "pterun XNNPACK"),
                ("nondelegated", ET_C, "ExecuTorch"), ("delegated", ET_C, "ExecuTorch XNNPACK"),
                ("onnx", ORT, "ONNX Runtime"), ("eager", EAGER, "eager"))


def ms(x_us: Optional[float]) -> str:
    return "n/a" if x_us is None else f"{x_us / 1e3:.1f}"


def real_cell(mt: Dict[str, Any], form: str, rt: str, notes: Notes) -> str:
    x = mt.get("latency", {}).get(form, {}).get(rt)
    if x:
        cpu = x.get("cpu_per_call_us")
        return f"{ms(x['median_us'])} / {ms(cpu)}" if cpu is not None else ms(x["median_us"])
    one = mt.get("single_call_us", {}).get(form, {}).get(rt)
    if one is not None:
        return f"{ms(one)} (once) [not timed]"
    why = mt["status"].get(form, {}).get(rt, "not available")
    return "**ERROR** " + why[7:] if why.startswith("error: ") else notes.ref(why)


def cpu_ratio(mt: Dict[str, Any], a: Tuple[str, str], b: Tuple[str, str]) -> str:
    x = mt.get("latency", {}).get(a[0], {}).get(a[1], {}).get("cpu_per_call_us")
    y = mt.get("latency", {}).get(b[0], {}).get(b[1], {}).get("cpu_per_call_us")
    return f"{x / y:.2f}" if x and y else "n/a"


def quantized_table(rs: Dict[str, Any], notes: Notes) -> List[str]:
    """The int8 forms (bench/realsize.py's xnnpack_int8/): pterun against
    ExecuTorch's int8 XNNPACK on the same file, and against pterun's fp32."""
    rows = []
    for name, m in rs["models"].items():
        for t, mt in sorted(m["threads"].items(), key=lambda kv: int(kv[0])):
            if "quantized" not in mt.get("status", {}) or not mt["status"]["quantized"]:
                continue
            r = mt.get("ratios", {})
            qf = r.get("quantized_vs_pterun_fp32") or {}
            fp32 = qf.get("fp32_form")
            speed = f"{1 / qf['median']:.2f}×" if qf.get("median") else "n/a"
            rows.append([name, t, real_cell(mt, "quantized", PTERUN_C, notes),
                         real_cell(mt, "quantized", ET_C, notes),
                         ratio(r.get("quantized_vs_executorch_quantized")),
                         cpu_ratio(mt, ("quantized", PTERUN_C), ("quantized", ET_C)),
                         fp32 or "n/a", ratio(r.get("quantized_vs_pterun_fp32")),
                         cpu_ratio(mt, ("quantized", PTERUN_C), (fp32, PTERUN_C)) if fp32 else "n/a", speed])
    if not rows:
        return []
    return ["### Quantized (int8) forms", "",
            "PT2E `XNNPACKQuantizer` int8 (static per-channel for the CNNs and ViT, dynamic activations for "
            "BERT's and GPT-2's linears), XNNPACK-delegated; the same file on both runtimes. Cells: wall median / CPU per "
            "call, ms. Ratios: per-round wall-time ratios, median (min–max), and the same from CPU time per "
            "call (on this shared machine the CPU column is the one to trust); < 1: pterun faster. pterun "
            "int8 / pterun fp32 compares with pterun's fastest fp32 form of the same model (target: "
            "int8 at least 2× faster, i.e. ≤ 0.50).", ""] + table(
        ["model", "threads", "pterun int8", "ExecuTorch int8", "pterun int8 / ExecuTorch int8", "same, CPU",
         "pterun fp32 form", "pterun int8 / pterun fp32", "same, CPU", "int8 speed-up (wall)"], rows)


def realsize_section(res: Dict[str, Any], notes: Notes) -> List[str]:
    rs = res.get("realsize")
    if not rs:
        return []
    when = f" on {rs['date']}" if rs.get("date") else ""
    la0, la1 = rs.get("loadavg_start"), rs.get("loadavg_end")
    where = ""
    if rs.get("cpu"):
        where = f" on {rs['cpu']} ({', '.join(rs.get('cpu_flags') or []) or 'no vector extensions'})"
        if rs.get("git_commit"):
            where += f", pterun at {rs['git_commit']}"
    out = ["## Real-size models", "",
           f"Measured{when}{where}; fp32, architectures from Hugging Face `transformers` "
           f"({(rs.get('generator') or {}).get('transformers')}) model classes with random weights from a fixed "
           "seed (`bench/realsize.py`), exported non-delegated and XNNPACK-delegated, and to ONNX from the same eager "
           "module. Every peer runs at the same thread count in fresh processes (pterun: PTERUN_NUM_THREADS; "
           "ExecuTorch: thread pool reset to N; ONNX Runtime: N intra-op threads, 1 inter-op; eager: "
           f"torch.set_num_threads(N)), interleaved round-robin, {rs['rounds']} rounds, each runtime's round "
           "started only once every worker process has gone idle (ONNX Runtime's pool spins on after its "
           "calls, into the next runtime's round), every output checked "
           "against eager first.", "",
           "**The machine was busy**: it is shared with other engineers who build on its 2 cores (1-min load "
           f"average {la0[0]:.1f} at the start of this section, {la1[0]:.1f} at its end). Each cell is therefore "
           "*wall median / CPU per call* in ms: the CPU time is the worker process's own count of its CPU "
           "time (every thread, to the nanosecond) over the timed rounds divided by its calls, which other processes' load "
           "does not inflate the way it inflates wall time (with 2 threads it adds both threads' time).", ""]
    for t in sorted({t for m in rs["models"].values() for t in m["threads"]}, key=int):
        rows = []
        for name, m in rs["models"].items():
            mt = m["threads"].get(t)
            if mt:
                rows.append([name] + [real_cell(mt, f, rt, notes) for f, rt, _ in REAL_COLUMNS])
        if rows:
            out += [f"### {t} thread(s): latency, ms (wall median / CPU per call)", ""]
            out += table(["model"] + [c for _, _, c in REAL_COLUMNS], rows)
    out += ["### Ratios", "",
            "pterun's faster form against each peer's faster form, and pterun's XNNPACK-delegated form against "
            "ExecuTorch's on the same file: per-round wall-time ratios, median (min–max); < 1: pterun faster. "
            "The last column gives the same four ratios from CPU time per call (same forms). On a machine "
            "loaded by others, 2-thread figures mostly measure oversubscription: a runtime whose workers spin "
            "while waiting (its CPU per call grows with the thread count) loses most there.", ""]
    rows = []
    for name, m in rs["models"].items():
        for t, mt in sorted(m["threads"].items(), key=lambda kv: int(kv[0])):
            r = mt.get("ratios", {})
            b = r.get("best_vs_executorch") or r.get("best_vs_onnxruntime") or {}
            cpu = []
            for key, rt in (("best_vs_executorch", ET_C), ("best_vs_onnxruntime", ORT), ("best_vs_eager", EAGER)):
                x = r.get(key)
                a = x and mt["latency"].get(x["pterun_form"], {}).get(PTERUN_C, {}).get("cpu_per_call_us")
                c = x and mt["latency"].get(x["peer_form"], {}).get(rt, {}).get("cpu_per_call_us")
                cpu.append(f"{a / c:.2f}" if a and c else "n/a")
            a = mt["latency"].get("delegated", {}).get(PTERUN_C, {}).get("cpu_per_call_us")
            c = mt["latency"].get("delegated", {}).get(ET_C, {}).get("cpu_per_call_us")
            cpu.append(f"{a / c:.2f}" if a and c else "n/a")
            rows.append([name, t, b.get("pterun_form", "n/a"), ratio(r.get("best_vs_executorch")),
                         ratio(r.get("best_vs_onnxruntime")), ratio(r.get("best_vs_eager")),
                         ratio(r.get("delegated_vs_executorch_delegated")), " / ".join(cpu)])
    out += table(["model", "threads", "pterun best form", "pterun best / ExecuTorch best",
                  "/ ONNX Runtime", "/ eager", "delegated / ExecuTorch delegated",
                  "same four, CPU per call"], rows)
    sp = [(n, m["pterun_speedup"]) for n, m in rs["models"].items() if m.get("pterun_speedup", {}).get("best")]
    if sp:
        t0, t1 = sp[0][1]["threads"]
        out += [f"pterun's best form, {t1} threads against {t0} (wall): " +
                ", ".join(f"{n} {x['best']:.2f}×" for n, x in sp) + ".", ""]
    out += quantized_table(rs, notes)
    out += ["### % of measured sgemm peak", "",
            "FLOPs of the eager module (torch's FlopCounterMode: matrix products and convolutions, 2 per "
            "multiply-add) over each runtime's fastest form's wall median, against this machine's measured "
            "sgemm peak at that thread count (numpy's BLAS and XNNPACK's fully-connected operator, best rate).", ""]
    rows = []
    for name, m in rs["models"].items():
        for t, mt in sorted(m["threads"].items(), key=lambda kv: int(kv[0])):
            rf = mt.get("roofline", {})
            cells = []
            for rt in (PTERUN_C, ET_C, ORT, EAGER):
                x = rf.get(rt)
                cells.append(f"{100 * x['fraction_of_peak']:.0f}% ({x['gflops']:.1f})" if x else "n/a")
            rows.append([name, m.get("bound", ""), t, num((m.get("flops") or 0) / 1e9, "{:.2f}"),
                         num(rf.get("peak_gflops"), "{:.1f}")] + cells)
    out += table(["model", "bound by", "threads", "GFLOP", "peak GFLOP/s", "pterun % (GFLOP/s)", "ExecuTorch",
                  "ONNX Runtime", "eager"], rows)
    out += ["### Load time and peak resident memory, pterun vs ExecuTorch", "",
            "Load: program + method (map, verify, memory plan, operators, delegate init with weight packing), "
            "median of interleaved loads from a warm page cache. Peak: VmHWM of a fresh process after load and "
            f"10 executes, minus the bare C process ({mb(rs.get('memory_baseline_kb', {}).get('c_kb'))}); in "
            "parentheses the part the model added (peak minus the driver's start-up).", ""]
    rows = []
    for name, m in rs["models"].items():
        for form in FORMS + ("quantized",):
            ld, mem = m.get("load", {}).get(form, {}), m.get("memory", {}).get(form, {})
            if form == "quantized" and not ld and not mem:
                continue
            base = rs.get("memory_baseline_kb", {}).get("c_kb", 0)
            cells = []
            for rt in (PTERUN_C, ET_C):
                x = ld.get(rt)
                cells.append(f"{x['total_ms']:.1f}" if x else "n/a")
            p, e = ld.get(PTERUN_C), ld.get(ET_C)
            cells.append(num(p["total_ms"] / e["total_ms"]) if p and e else "n/a")
            for rt in (PTERUN_C, ET_C):
                x = mem.get(rt)
                cells.append(f"{mb(x['peak_kb'] - base)} ({mb(x['peak_kb'] - x['startup_kb'])})" if x else "n/a")
            p, e = mem.get(PTERUN_C), mem.get(ET_C)
            cells.append(num((p["peak_kb"] - base) / (e["peak_kb"] - base)) if p and e and e["peak_kb"] > base
                         else "n/a")
            rows.append([name if form == "nondelegated" else "", form] + cells)
    out += table(["model", "form", "pterun load ms", "ExecuTorch load ms", "ratio", "pterun peak",
                  "ExecuTorch peak", "ratio"], rows)
    out += [f"- {RUNTIME_LABELS[rt]}: {why}" for rt, why in rs.get("availability", {}).items() if why != "ok"]
    out += [f"- real-size ERROR: {e}" for e in rs.get("errors", [])]
    return out + [""]


def selective_section(res: Dict[str, Any]) -> List[str]:
    """bench/selective_size.py's rows (it records them into results.json)."""
    sel = res.get("selective_build")
    if not sel:
        return []
    out = ["## Selective build", "",
           f"Written by `bench/selective_size.py` ({sel.get('date', '?')}). Kernel libraries (portable + optimized) "
           "built with `-DPTERUN_SELECT_PROGRAMS=<program>` against the full build, stripped "
           "(`strip --strip-unneeded`).", ""]
    rows = [[r["program"], str(r["operators"]), kb(r["full_bytes"]), kb(r["selective_bytes"]),
             f"{kb(r['full_bytes'] - r['selective_bytes'])} ({100 * (r['full_bytes'] - r['selective_bytes']) / r['full_bytes']:.0f}%)"]
            for r in sel.get("rows", [])]
    out += table(["program", "operators", "full", "selective", "saved"], rows)
    return out


def markdown(res: Dict[str, Any]) -> str:
    m = res["machine"]
    v = m["versions"]
    notes = Notes()
    out = ["# pterun benchmark results", "",
           f"Written by `{m['command']}` on {m['date']} ({res['elapsed_s']:.0f} s). Raw figures: "
           "[results.json](results.json); chart: [results.png](results.png); method: [README.md](README.md).", ""]
    out += table(["", ""], [
        ["CPU", f"{m['cpu']}, {m['cores']} cores ({m['cores_available']} available to the run); "
                f"{', '.join(m['cpu_flags'])}"],
        ["Thread settings", ", ".join(map(str, m["thread_settings"])) + " (pterun: PTERUN_NUM_THREADS; ExecuTorch: "
                            "its thread pool reset to N; eager: torch.set_num_threads(N); BLAS: *_NUM_THREADS)"],
        ["pterun", f"{m['pterun_version']} at {m['git_commit']}; components: {m['pterun_components']}; "
                   f"backends: {', '.join(m['pterun_backends'] or []) or 'none'}; {m['pterun_operators']} operators"],
        ["ExecuTorch", f"{v.get('executorch')} (wheel: libexecutorch, optimized kernels, XNNPACK delegate, "
                       "thread pool)"],
        ["PyTorch", v.get("torch", "?")],
        ["Python, numpy, C compiler", f"{v.get('python')}, {v.get('numpy')}, {m['compiler']}"],
        ["Kernel, load average", f"{m['kernel']}; 1/5/15-min load average "
                                 f"{'/'.join(f'{x:.1f}' for x in m['load_average']['start'])} at the start, "
                                 f"{'/'.join(f'{x:.1f}' for x in m['load_average']['end'])} at the end"],
        ["Repetitions", f"{m['rounds']} interleaved rounds; per round each runtime gets a warm-up and about "
                        f"{m['round_ms']:.0f} ms of timed iterations"],
    ])
    if res.get("errors"):
        out += ["## ERRORS", ""] + [f"- {e}" for e in res["errors"]] + [""]
    if res.get("warnings"):
        out += ["## Warnings", ""] + [f"- {w}" for w in res["warnings"]] + [""]
    out += realsize_section(res, notes)
    if res.get("realsize"):
        out += ["## Zoo models: per-call overhead", "",
                "The zoo's models run in microseconds: the figures below measure what a runtime costs per call, "
                "per instruction and per load, not kernel speed (the real-size models above do)." +
                (f" Measured on {m['date']}." if res["realsize"].get("date") else ""), ""]
    out += headline(res)
    out += latency_tables(res, notes)
    out += load_table(res, notes)
    out += memory_table(res)
    out += alloc_table(res)
    out += overhead_tables(res)
    out += roofline_table(res)
    out += sizes_table(res)
    out += selective_section(res)
    out += ["## Not available", ""]
    out += [f"- {RUNTIME_LABELS[rt]}: {why}" for rt, why in res["availability"].items() if why != "ok"]
    out += notes.render() + [""]
    return "\n".join(out)


# ---------------------------------------------------------------------------
# JSON and chart
# ---------------------------------------------------------------------------


def repo_relative(x: Any) -> Any:
    """Paths inside the checkout written relative to it: the committed results
    must not carry the measuring machine's folders."""
    if isinstance(x, str) and x.startswith(REPO + os.sep):
        return os.path.relpath(x, REPO)
    if isinstance(x, dict):
        return {k: repo_relative(v) for k, v in x.items()}
    if isinstance(x, list):
        return [repo_relative(v) for v in x]
    return x


def json_view(res: Dict[str, Any]) -> Dict[str, Any]:
    """results.json: everything, without the per-round nanosecond copies,
    paths relative to the checkout."""
    r = repo_relative(copy.deepcopy(res))
    for m in r["models"].values():
        for mt in m["threads"].values():
            for f in mt.get("latency", {}).values():
                for x in f.values():
                    x.pop("round_medians_ns", None)
    for m in (r.get("realsize") or {}).get("models", {}).values():
        for mt in m["threads"].values():
            for f in mt.get("latency", {}).values():
                for x in f.values():
                    x.pop("round_medians_ns", None)
    order = ["nondelegated_vs_executorch", "delegated_vs_executorch", "best_vs_eager", "headline_threads"]
    return {**{k: r.pop(k) for k in order}, **r}


def chart(res: Dict[str, Any], path: str) -> Optional[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError as e:
        return f"results.png not written: {e} (pip install matplotlib)"
    t = str(res["headline_threads"])
    names = [n for n, m in res["models"].items() if t in m["threads"]]
    series = [("pterun C, non-delegated", "nondelegated", PTERUN_C, "#1f77b4"),
              ("ExecuTorch C++, non-delegated", "nondelegated", ET_C, "#ff7f0e"),
              ("pterun C, XNNPACK", "delegated", PTERUN_C, "#aec7e8"),
              ("ExecuTorch C++, XNNPACK", "delegated", ET_C, "#ffbb78"),
              ("pterun Python, best", None, PTERUN_PY, "#2ca02c"),
              ("PyTorch eager", "eager", EAGER, "#7f7f7f")]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(max(10, 1.1 * len(names) + 3), 9))
    width = 0.8 / len(series)
    for i, (label, form, rt, color) in enumerate(series):
        ys, lo, hi = [], [], []
        for n in names:
            mt = res["models"][n]["threads"][t]
            cands = [mt.get("latency", {}).get(f, {}).get(rt) for f in ((form,) if form else FORMS)]
            cands = [c for c in cands if c]
            c = min(cands, key=lambda c: c["median_us"]) if cands else None
            ys.append(c["median_us"] if c else 0)
            lo.append(c["median_us"] - c["spread_us"]["min"] if c else 0)
            hi.append(c["spread_us"]["max"] - c["median_us"] if c else 0)
        xs = [k + (i - len(series) / 2 + 0.5) * width for k in range(len(names))]
        ax1.bar(xs, [y if y > 0 else float("nan") for y in ys], width, yerr=[lo, hi], label=label, color=color)
    ax1.set_yscale("log")
    ax1.set_ylabel("latency (µs, log)")
    ax1.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax1.set_title(f"Median latency, {t} thread(s); error bars: min–max of round medians; no bar: not available",
                  fontsize=9)
    ax1.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax1.legend(fontsize=7, ncol=3)
    rseries = [("non-delegated: pterun / ExecuTorch (C)", "nondelegated_vs_executorch_c", "#1f77b4"),
               ("delegated: pterun / ExecuTorch (C)", "delegated_vs_executorch_c", "#ff7f0e"),
               ("best pterun / eager (Python)", "best_vs_eager_python", "#2ca02c")]
    width = 0.8 / len(rseries)
    for i, (label, key, color) in enumerate(rseries):
        vals = [res["models"][n]["threads"][t]["ratios"].get(key) for n in names]
        xs = [k + (i - len(rseries) / 2 + 0.5) * width for k in range(len(names))]
        ax2.bar(xs, [v["median"] if v else float("nan") for v in vals], width, label=label, color=color,
                yerr=[[v["median"] - v["min"] if v else 0 for v in vals], [v["max"] - v["median"] if v else 0 for v in vals]])
    ax2.axhline(1.0, color="black", lw=0.8)
    ax2.set_yscale("log")
    ax2.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax2.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax2.set_ylabel("pterun / other (log; < 1: pterun faster)")
    ax2.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax2.legend(fontsize=7)
    fig.suptitle(f"pterun benchmark, {res['machine']['cpu']}, {res['machine']['date']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def write_all(res: Dict[str, Any], out: str) -> None:
    warn = chart(res, os.path.join(out, "results.png"))
    if warn:
        res["warnings"].append(warn)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(json_view(res), f, indent=1, sort_keys=False)
        f.write("\n")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(markdown(res))


def main() -> None:
    """Re-render results.md and results.png from a results.json (e.g. after editing this file)."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("json", help="results.json written by bench/run.py")
    args = ap.parse_args()
    with open(args.json) as f:
        res = json.load(f)
    out = os.path.dirname(os.path.abspath(args.json))
    res.setdefault("warnings", [])
    write_all(res, out)


if __name__ == "__main__":
    main()
